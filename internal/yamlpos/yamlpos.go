// Package yamlpos locates the problems of a YAML file at FILE:LINE:COL
// where yaml.v3 does not: bytes YAML does not allow, syntax errors,
// aliases that expand too far.
package yamlpos

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Error is a problem of a YAML file at a position: Line and Column count
// from 1 (Column in characters, as yaml.v3's do), 0 when unknown.
type Error struct {
	File         string
	Line, Column int
	Msg          string
}

func (e Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// yaml.v3 reports a syntax error with a line only, and not always the
// right one: a parser error gives the 0-based line of the construct it was
// in (one too low), a scanner error the 1-based line of the problem, a
// reader error (control characters, bad UTF-8) and an unknown alias no
// line at all. The functions below find the position themselves: the
// bytes are checked before yaml.v3 sees them, and a syntax error is
// located by a light scan of the text (flow brackets, quotes, block
// indentation) guided by yaml.v3's message.

// CheckText reports every byte sequence YAML does not allow: bytes that
// are not UTF-8, NUL and other control characters, each at its line and
// column (columns count characters, as yaml.v3's do), the first max of
// them. A file that starts with a UTF-16 byte-order mark is left to
// yaml.v3.
func CheckText(name string, data []byte, max int) []Error {
	if len(data) >= 2 && (data[0] == 0xFE && data[1] == 0xFF || data[0] == 0xFF && data[1] == 0xFE) {
		return nil
	}
	var errs []Error
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		msg := ""
		switch {
		case r == utf8.RuneError && size == 1:
			msg = fmt.Sprintf("byte 0x%02X is not UTF-8; want the file in UTF-8", data[i])
		case r == 0:
			msg = "a NUL byte; want text (a double-quoted string may write it as \\0)"
		case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		case r < 0x20 || r == 0x7F || r >= 0x80 && r < 0xA0:
			msg = fmt.Sprintf("control character U+%04X; want printable text (a double-quoted string may write it as \\x%02X)", r, r)
		case r == 0xFEFF && i > 0:
			msg = "a byte-order mark (U+FEFF) inside the text; want it only at the start of the file, or not at all"
		case r == 0xFFFE || r == 0xFFFF:
			msg = fmt.Sprintf("U+%04X is not a character; want printable text", r)
		}
		if msg != "" {
			if len(errs) == max {
				break
			}
			errs = append(errs, Error{File: name, Line: line, Column: col, Msg: "invalid YAML: " + msg})
		}
		i += size
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return errs
}

// yamlError matches yaml.v3's error text: "yaml: line N: problem" or
// "yaml: problem".
var yamlError = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// parserProblems are the problems of yaml.v3's parser (rather than its
// scanner): their line is 0-based.
var parserProblems = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"found undefined tag handle",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
}

var unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// Locate turns an error of yaml.v3 on data into an Error at
// the position of the problem, as near as it can be found.
func Locate(name string, data []byte, err error) Error {
	fe := Error{File: name, Msg: "invalid YAML: " + err.Error()}
	m := yamlError.FindStringSubmatch(strings.TrimSpace(err.Error()))
	if m == nil {
		return fe
	}
	problem := m[2]
	fe.Msg = "invalid YAML: " + problem
	line := 0
	if m[1] != "" {
		line, _ = strconv.Atoi(m[1])
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	parser := false
	for _, p := range parserProblems {
		parser = parser || problem == p
	}
	if parser && m[1] != "" {
		line++ // 0-based
	}
	if line < 1 {
		line = 1
	}
	if line > len(lines) {
		line = len(lines)
	}
	at := func(l, c int, msg string) Error {
		fe.Line, fe.Column = l, c
		if msg != "" {
			fe.Msg = "invalid YAML: " + msg
		}
		return fe
	}
	text := func(l int) string {
		if l >= 1 && l <= len(lines) {
			return lines[l-1]
		}
		return ""
	}
	s := scanYAML(lines)

	if a := unknownAnchor.FindStringSubmatch(problem); a != nil {
		if l, c, ok := findAlias(lines, a[1]); ok {
			return at(l, c, fmt.Sprintf("alias *%s refers to no anchor; want an anchor &%s defined before it", a[1], a[1]))
		}
		return at(1, 0, fmt.Sprintf("alias *%s refers to no anchor; want an anchor &%s defined before it", a[1], a[1]))
	}
	switch problem {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'":
		closer := problem[len(problem)-2 : len(problem)-1]
		if s.unclosed != nil {
			return at(s.unclosed.line, s.unclosed.col, fmt.Sprintf("this %c is not closed (%s); want ',' between its items and %s after the last", s.unclosed.ch, problem, closer))
		}
		opener := map[string]string{"]": "[", "}": "{"}[closer]
		if c := strings.LastIndex(text(line), opener); c >= 0 {
			return at(line, runeCol(text(line), c), "")
		}
	case "did not find expected key", "did not find expected '-' indicator", "did not find expected node content":
		if s.stray != nil {
			return at(s.stray.line, s.stray.col, fmt.Sprintf("this %c closes nothing (%s); want it removed, or its opening %s", s.stray.ch, problem, map[rune]string{']': "[", '}': "{"}[s.stray.ch]))
		}
		if m := s.earlier(len(lines) + 1); m != nil {
			return at(m.line, m.col, s.why(m))
		}
		if s.badIndent != nil {
			what := "a key"
			if problem == "did not find expected '-' indicator" {
				what = "a list item"
			}
			return at(s.badIndent.line, s.badIndent.col, fmt.Sprintf("%s; want this line indented as %s above it is (spaces, not tabs)", problem, what))
		}
	case "found unexpected end of stream":
		if s.quote != nil {
			return at(s.quote.line, s.quote.col, fmt.Sprintf("this %c-quoted string is not closed (%s); want a closing %c", s.quote.ch, problem, s.quote.ch))
		}
	case "found character that cannot start any token", "found a tab character that violates indentation",
		"found a tab character where an indentation space is expected":
		// The scanner may report the line of the construct the tab is
		// in (a block of text, a list): the first tab in an
		// indentation from the line on, else the first tab at all.
		const tabMsg = "a tab; want spaces (YAML does not allow tabs for indentation or before a value)"
		for l := line; l <= len(lines); l++ {
			t := text(l)
			lead := t[:len(t)-len(strings.TrimLeft(t, " \t"))]
			if c := strings.IndexByte(lead, '\t'); c >= 0 {
				return at(l, runeCol(t, c), tabMsg)
			}
		}
		for l := max(line-1, 1); l <= len(lines); l++ {
			if t := text(l); strings.IndexByte(t, '\t') >= 0 {
				return at(l, runeCol(t, strings.IndexByte(t, '\t')), tabMsg)
			}
		}
		t := text(line)
		if c := strings.IndexAny(t, "@`%"); c >= 0 {
			return at(line, runeCol(t, c), fmt.Sprintf("%q cannot start a value; want the value quoted", t[c]))
		}
	case "mapping values are not allowed in this context":
		// A line above that ended a block of text or a value too
		// early makes this key look misplaced: point at that line.
		if m := s.earlier(line); m != nil {
			return at(m.line, m.col, s.why(m))
		}
		t := text(line)
		cols := mappingColons(t)
		if len(cols) > 1 {
			return at(line, runeCol(t, cols[1]), "a second ': ' on the line; want the value quoted (\"a: b\") or the key on a line of its own")
		}
		if len(cols) == 1 {
			return at(line, runeCol(t, firstContent(t)), "a key: value indented deeper than its mapping allows; want this line aligned with the keys above it, or the value above quoted")
		}
	case "did not find expected <document start>":
		if m := s.earlier(line + 1); m != nil {
			return at(m.line, m.col, s.why(m))
		}
	case "could not find expected ':'":
		// The line of a simple key, which the scanner reports at its
		// start; the colon may be missing on that line or the next.
		if s.badIndent != nil && s.badIndent.line >= line-1 && s.badIndent.line <= line+1 {
			return at(s.badIndent.line, s.badIndent.col, "a line that is neither key: value nor a list item; want key: value")
		}
		return at(line, runeCol(text(line), firstContent(text(line))), "a line that is neither key: value nor a list item (could not find expected ':'); want key: value")
	case "found unknown escape character":
		t := text(line)
		for i := 0; i+1 < len(t); i++ {
			if t[i] == '\\' {
				if !strings.ContainsRune("0abt\tnvfre \"/\\N_LPxuU", rune(t[i+1])) {
					return at(line, runeCol(t, i), fmt.Sprintf("unknown escape \\%c in a double-quoted string; want a YAML escape (\\n, \\t, \\\\, \\\", \\xXX, …) or single quotes", t[i+1]))
				}
				i++
			}
		}
	case "found undefined tag handle":
		for l := line; l <= len(lines) && l < line+2; l++ {
			t := text(l)
			if c := undefinedTag.FindStringIndex(t); c != nil {
				return at(l, runeCol(t, c[0]+1), "")
			}
		}
	}
	return at(line, runeCol(text(line), firstContent(text(line))), "")
}

var undefinedTag = regexp.MustCompile(`(?:^|[\s\[{,])![A-Za-z0-9-]+!`)

// runeCol returns the 1-based column, in characters, of byte offset i of
// line.
func runeCol(line string, i int) int {
	if i > len(line) {
		i = len(line)
	}
	return utf8.RuneCountInString(line[:i]) + 1
}

// firstContent returns the byte offset of the first non-blank character
// of line (0 if it has none).
func firstContent(line string) int {
	i := len(line) - len(strings.TrimLeft(line, " \t"))
	if i == len(line) {
		return 0
	}
	return i
}

// mappingColons returns the byte offsets of the block mapping indicators
// of a line (": " or a ':' at the end) outside quotes and flow
// collections, and before a comment.
func mappingColons(line string) []int {
	var out []int
	var quote byte
	depth := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case (c == '"' || c == '\'') && (i == 0 || strings.IndexByte(" [{,:", line[i-1]) >= 0):
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' '):
			return out
		case (c == '[' || c == '{') && (i == 0 || strings.IndexByte(" [{,:", line[i-1]) >= 0):
			depth++
		case (c == ']' || c == '}') && depth > 0:
			depth--
		case c == ':' && depth == 0 && (i+1 == len(line) || line[i+1] == ' '):
			out = append(out, i)
		}
	}
	return out
}

// findAlias returns the position of the first alias *name in lines.
func findAlias(lines []string, name string) (line, col int, ok bool) {
	for l, t := range lines {
		for i := 0; ; {
			j := strings.Index(t[i:], "*"+name)
			if j < 0 {
				break
			}
			j += i
			end := j + 1 + len(name)
			before := j == 0 || strings.IndexByte(" \t[{,:-", t[j-1]) >= 0
			after := end == len(t) || strings.IndexByte(" \t]},:", t[end]) >= 0
			if before && after {
				return l + 1, runeCol(t, j), true
			}
			i = j + 1
		}
	}
	return 0, 0, false
}

// mark is a position found by scanYAML, with the character there.
type mark struct {
	line, col int
	ch        rune
}

// yamlScan is what scanYAML found: the first closing bracket that closes
// nothing, the innermost flow collection left open (at a mismatched
// closer or at the end), a quoted string left open, and the first line
// whose indentation matches no enclosing block.
type yamlScan struct {
	stray, unclosed, quote, badIndent *mark
	// trailing is the first text after a closed quoted string or flow
	// collection; lost the first line of text where a key or a list
	// item is expected.
	trailing, lost *mark
	closer         rune // the quote or bracket trailing follows
	// badStart is the first key or item that starts with a character
	// no plain text may start with (",", "@", "`").
	badStart *mark
}

// block is an open block collection: its column and whether it is a
// list (else a mapping).
type block struct {
	col  int
	list bool
}

// scanYAML scans the structure of a YAML text that yaml.v3 refused, well
// enough to point at the usual mistakes.
func scanYAML(lines []string) yamlScan {
	var s yamlScan
	var flow []mark
	var quote *mark
	var blocks []block
	open := false   // the last line opened a nested block (key: or - with no value)
	inline := false // the last line's value was a plain scalar, which may continue
	scalar := -1    // the indentation of the key of a block scalar (| or >) being skipped
	scalarInd := -1 // the block scalar's content indentation, once known
	done := false   // a mismatched closer was found: the rest is not scanned
	var first mark  // the first line of the document
	// after checks what follows a quoted string or a flow collection
	// that closed at from: a comment, a ':' (it was a key) or nothing;
	// a closing bracket there closes nothing.
	after := func(l int, r []rune, from int) {
		closer := r[from-1]
		for from < len(r) && (r[from] == ' ' || r[from] == '\t') {
			from++
		}
		switch {
		case from == len(r) || r[from] == '#' || r[from] == ':':
		case r[from] == ']' || r[from] == '}':
			if s.stray == nil {
				s.stray = &mark{l, from + 1, r[from]}
			}
			done = true
		case s.trailing == nil:
			s.trailing, s.closer = &mark{l, from + 1, r[from]}, closer
		}
	}
	scanFrom := func(l int, r []rune, from int) {
		for j := from; j < len(r) && !done; j++ {
			c := r[j]
			if quote != nil {
				switch {
				case quote.ch == '"' && c == '\\':
					j++
				case quote.ch == '\'' && c == '\'' && j+1 < len(r) && r[j+1] == '\'':
					j++
				case c == quote.ch:
					quote = nil
					if len(flow) == 0 {
						after(l, r, j+1)
						return
					}
				}
				continue
			}
			switch c {
			case '#':
				if j == 0 || r[j-1] == ' ' || r[j-1] == '\t' {
					return
				}
			case '"', '\'':
				if j == from || strings.ContainsRune(" \t[{,:", r[j-1]) {
					quote = &mark{l, j + 1, c}
				}
			case '[', '{':
				flow = append(flow, mark{l, j + 1, c})
			case ']', '}':
				if len(flow) == 0 {
					if s.stray == nil {
						s.stray = &mark{l, j + 1, c}
					}
					done = true
					return
				}
				top := flow[len(flow)-1]
				if top.ch == '[' && c != ']' || top.ch == '{' && c != '}' {
					s.unclosed = &top
					done = true
					return
				}
				flow = flow[:len(flow)-1]
				if len(flow) == 0 {
					after(l, r, j+1)
					return
				}
			}
		}
	}
	for i, text := range lines {
		l := i + 1
		if done {
			break
		}
		r := []rune(text)
		ind := 0
		for ind < len(r) && r[ind] == ' ' {
			ind++
		}
		blank := ind == len(r) || r[ind] == '#'
		if scalar >= 0 {
			if ind == len(r) {
				continue
			}
			if scalarInd < 0 && ind > scalar {
				scalarInd = ind
			}
			if scalarInd >= 0 && ind >= scalarInd {
				continue
			}
			scalar, scalarInd = -1, -1
		}
		if quote != nil || len(flow) > 0 {
			scanFrom(l, r, 0)
			continue
		}
		if blank {
			continue
		}
		rest := string(r[ind:])
		if rest == "---" || strings.HasPrefix(rest, "--- ") || rest == "..." {
			blocks, open, inline = nil, false, false
			continue
		}
		if strings.ContainsRune(",@`", r[ind]) && s.badStart == nil {
			s.badStart = &mark{l, ind + 1, r[ind]}
		}
		item := rest == "-" || strings.HasPrefix(rest, "- ")
		key := !item && len(mappingColons(rest)) > 0
		switch {
		case len(blocks) == 0 || open && ind > blocks[len(blocks)-1].col:
			if len(blocks) == 0 {
				first = mark{l, ind + 1, r[ind]}
			}
			if len(blocks) == 0 && !item && !key && s.lost == nil && l < len(lines) {
				// Text before the first key: a line of the spec
				// that is neither key: value nor a list item.
				s.lost = &mark{l, ind + 1, r[ind]}
			}
			blocks = append(blocks, block{ind, item})
		case open && item && ind == blocks[len(blocks)-1].col && !blocks[len(blocks)-1].list:
			// key:\n- item: a list may sit at its key's column.
			blocks = append(blocks, block{ind, true})
		case inline && !item && !key && ind > blocks[len(blocks)-1].col:
			// The continuation of a plain scalar.
			continue
		default:
			for len(blocks) > 1 && blocks[len(blocks)-1].col > ind {
				blocks = blocks[:len(blocks)-1]
			}
			top := blocks[len(blocks)-1]
			if top.list && !item && len(blocks) > 1 && blocks[len(blocks)-2].col == ind {
				blocks = blocks[:len(blocks)-1]
				top = blocks[len(blocks)-1]
			}
			if top.col != ind || top.list != item {
				switch {
				case s.badIndent != nil:
				case len(blocks) == 1 && ind < top.col:
					// The document's first line is indented deeper
					// than a later top-level line: the first is wrong.
					s.badIndent = &mark{first.line, first.col, first.ch}
				default:
					s.badIndent = &mark{l, ind + 1, r[ind]}
				}
			} else if !item && !key && s.lost == nil {
				s.lost = &mark{l, ind + 1, r[ind]}
			}
		}
		// The value: after "- " (possibly a key of a mapping in the
		// item) or after the key's ": ".
		v := ind
		for v < len(r) && (r[v] == '-' && (v+1 == len(r) || r[v+1] == ' ')) {
			v++
			for v < len(r) && r[v] == ' ' {
				v++
			}
			if v < len(r) && len(mappingColons(string(r[v:]))) > 0 {
				blocks = append(blocks, block{v, false})
			}
		}
		if cs := mappingColons(string(r[v:])); len(cs) > 0 {
			v += utf8.RuneCountInString(string(r[v:])[:cs[0]]) + 1
		}
		for v < len(r) && r[v] == ' ' {
			v++
		}
		// Anchors and tags before the value.
		for v < len(r) && (r[v] == '&' || r[v] == '!') {
			for v < len(r) && r[v] != ' ' {
				v++
			}
			for v < len(r) && r[v] == ' ' {
				v++
			}
		}
		open, inline = v == len(r) || r[v] == '#', false
		switch {
		case open:
		case r[v] == '|' || r[v] == '>':
			scalar, scalarInd = ind, -1
		case r[v] == '[' || r[v] == '{' || r[v] == '"' || r[v] == '\'':
			scanFrom(l, r, v)
		default:
			inline = true
		}
	}
	if !done {
		if quote != nil {
			s.quote = quote
		}
		if len(flow) > 0 && s.unclosed == nil {
			top := flow[len(flow)-1]
			s.unclosed = &top
		}
	}
	return s
}

// AliasBudget bounds the nodes aliases may add to a spec: anchors that
// refer to anchors cannot make it explode. Nodes written out count
// nothing: a 10 MB spec of plain numbers is not refused.
const AliasBudget = 1 << 20

// CheckAliases computes the size of the tree under root as its aliases
// expand it, and reports an alias that refers to a node containing it,
// or the alias at which the expansion passes AliasBudget. It returns the
// expanded size.
func CheckAliases(name string, root *yaml.Node) (int, *Error) {
	const inProgress = -1
	size := map[*yaml.Node]int{}
	var fe *Error
	var measure func(n *yaml.Node) int
	measure = func(n *yaml.Node) int {
		if n == nil || fe != nil {
			return 0
		}
		if n.Kind == yaml.AliasNode {
			t := n.Alias
			if t == nil {
				return 1
			}
			if size[t] == inProgress {
				fe = &Error{File: name, Line: n.Line, Column: n.Column,
					Msg: fmt.Sprintf("alias *%s refers to the node &%s that contains it; want no alias inside its own anchor", n.Value, t.Anchor)}
				return 0
			}
			return measure(t)
		}
		if s, ok := size[n]; ok && s != inProgress {
			return s
		}
		size[n] = inProgress
		total := 1
		for _, c := range n.Content {
			total += measure(c)
			if total > 4*AliasBudget {
				total = 4 * AliasBudget // saturate: the budget is passed anyway
			}
		}
		size[n] = total
		return total
	}
	// Walk the tree as written: each alias adds the expanded size of its
	// anchor.
	written, added := 0, 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || fe != nil {
			return
		}
		if n.Kind == yaml.AliasNode {
			added += measure(n)
			if fe == nil && added > AliasBudget {
				fe = &Error{File: name, Line: n.Line, Column: n.Column,
					Msg: fmt.Sprintf("aliases expand the spec by more than %d nodes (at this alias *%s); want fewer aliases of large anchors", AliasBudget, n.Value)}
			}
			return
		}
		written++
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return written + added, fe
}

// earlier returns the first of the marks that can make a later line
// fail (a line indented as no block is, text where a key is expected,
// text after a closed quote or bracket) if it is above line.
func (s yamlScan) earlier(line int) *mark {
	var first *mark
	for _, m := range []*mark{s.badIndent, s.lost, s.trailing, s.badStart} {
		if m != nil && m.line < line && (first == nil || m.line < first.line) {
			first = m
		}
	}
	return first
}

// why says what is wrong at a mark of s.
func (s yamlScan) why(m *mark) string {
	switch m {
	case s.trailing:
		switch s.closer {
		case '"':
			return `text after the closing " of a string; want the whole value inside the quotes (a " inside is written \")`
		case '\'':
			return "text after the closing ' of a string; want the whole value inside the quotes (a ' inside is written '')"
		}
		return fmt.Sprintf("text after the closing %c; want every item inside the brackets (is this %c one too early?)", s.closer, s.closer)
	case s.badStart:
		return fmt.Sprintf("%q cannot start a key or a value; want it removed, or the text quoted", m.ch)
	case s.lost:
		return "a line of text where a key: value or a list item is expected; want key: value, or the text indented under its key (a block of text ends at the first line indented less than it)"
	}
	return "a line indented as no key or list item above it; want it aligned with the keys above it (a block of text ends at the first line indented less than it)"
}
