package reports

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
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

// writeTable writes a GitHub Markdown table with tablewriter: header
// auto-formatting and wrapping off. aligns has one letter per column, 'r'
// for right-aligned (numbers) and anything else for left; missing letters
// mean left. An empty header writes nothing.
func writeTable(w io.Writer, header []string, rows [][]string, aligns string) error {
	if len(header) == 0 {
		return nil
	}
	align := make(tw.Alignment, len(header))
	for i := range align {
		align[i] = tw.AlignLeft
		if i < len(aligns) && aligns[i] == 'r' {
			align[i] = tw.AlignRight
		}
	}
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	h := make([]string, len(header))
	for i, s := range header {
		h[i] = cellText(s)
	}
	t.Header(h)
	for _, r := range rows {
		row := make([]string, len(header))
		for i := range row {
			if i < len(r) {
				row[i] = cellText(r[i])
			}
			if row[i] == "" {
				row[i] = " " // keep empty cells from collapsing
			}
		}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
