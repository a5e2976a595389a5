package reports

import (
	"io"
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// cellText makes s safe inside a GitHub Markdown table cell: pipes are
// escaped and line breaks become spaces.
func cellText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "\r", " ")
	s = strings.ReplaceAll(s, "\t", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// mdText escapes the characters that Markdown would read as inline
// formatting in a label (a method label "L*R" or "_b_" is not emphasis,
// "<b>" not a tag). Labels hold no parentheses, so "[x]" cannot become a
// link and is left alone; pipes are escaped by tables (cellText).
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '*', '_', '`', '<', '~':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeTable writes a GitHub Markdown table: a cell's text trimmed of
// surrounding space and padded to its column's display width (East Asian
// wide characters count two columns, ambiguous ones one, whatever the
// locale), an empty cell written as a space. aligns has one letter per
// column, 'r' for right-aligned (numbers) and anything else for left;
// missing letters mean left. An empty header writes nothing. The layout
// is the one tablewriter's Markdown renderer wrote before it was dropped
// (its package state, a width cache made at init, stayed resident in
// every run: issue 41).
func writeTable(w io.Writer, header []string, rows [][]string, aligns string) error {
	if len(header) == 0 {
		return nil
	}
	table := make([][]string, 0, len(rows)+1)
	widths := make([]int, len(header))
	add := func(r []string) {
		row := make([]string, len(header))
		for i := range row {
			if i < len(r) {
				row[i] = strings.TrimSpace(cellText(r[i]))
			}
			if row[i] == "" {
				row[i] = " " // keep empty cells from collapsing
			}
			widths[i] = max(widths[i], displayWidth(row[i]))
		}
		table = append(table, row)
	}
	add(header)
	for _, r := range rows {
		add(r)
	}
	right := func(i int) bool { return i < len(aligns) && aligns[i] == 'r' }
	var b strings.Builder
	line := func(row []string) {
		b.WriteByte('|')
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-displayWidth(c))
			b.WriteByte(' ')
			if right(i) {
				b.WriteString(pad)
				b.WriteString(c)
			} else {
				b.WriteString(c)
				b.WriteString(pad)
			}
			b.WriteString(" |")
		}
		b.WriteByte('\n')
	}
	line(table[0])
	b.WriteByte('|')
	for i, n := range widths {
		dashes := strings.Repeat("-", n+1)
		if right(i) {
			b.WriteString(dashes + ":|")
		} else {
			b.WriteString(":" + dashes + "|")
		}
	}
	b.WriteByte('\n')
	for _, row := range table[1:] {
		line(row)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// displayWidth is the number of terminal columns s takes.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += displaywidth.Options{}.Rune(r)
	}
	return n
}
