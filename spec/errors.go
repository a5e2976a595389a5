package spec

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// FieldError is one problem found in a spec: where it is, which field, what
// is wrong and what was expected.
type FieldError struct {
	// File is the spec file; Line and Column locate the offending node
	// (1-based; 0 when unknown, e.g. a missing field of a --set value).
	File         string
	Line, Column int
	// Set is the --set argument the offending value came from, if any.
	Set string
	// Path is the field, e.g. "methods[1].params.C".
	Path string
	// Msg says what is wrong and what was expected: "-1 is out of range;
	// want float in (0, +inf)".
	Msg string
}

// Error formats e as FILE:LINE:COL: path: message, or for a value given
// with --set as FILE: --set ARG: path: message.
func (e FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	switch {
	case e.Set != "":
		fmt.Fprintf(&b, ": --set %s", e.Set)
	case e.Line > 0 && e.Column > 0:
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Path != "" {
		b.WriteString(": ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// SpecError is the error Load returns for an invalid spec: every problem
// found, each once, sorted by position.
type SpecError struct {
	Errs []FieldError
	// Omitted counts the problems found past the first thousand, which
	// are not kept.
	Omitted int
}

// MaxListed is how many problems SpecError.Error lists.
const MaxListed = 50

// Error lists the first MaxListed problems one per line, then how many
// more there are.
func (e *SpecError) Error() string {
	var b strings.Builder
	for i, fe := range e.Errs {
		if i == MaxListed {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(fe.Error())
	}
	if more := len(e.Errs) - MaxListed + e.Omitted; more > 0 {
		fmt.Fprintf(&b, "\n… and %d more %s", more, plural(more, "error"))
	}
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// Messages and paths are cut to these many characters: they quote what
// the spec holds, and a 5,000-character key must not make a
// 5,000-character line. Values are cut where they are quoted
// (param.Quote); this is the backstop.
const (
	maxMsg  = 2000
	maxPath = 300
)

// MaxResultError bounds the error text a failed trial records.
const MaxResultError = 4 * maxMsg

// ClipError returns err with its text cut to a readable length (a loader
// that quotes a 20 MB field); errors.As and errors.Is still see err.
func ClipError(err error) error {
	if err == nil || len(err.Error()) <= maxMsg {
		return err
	}
	return clipped{err}
}

type clipped struct{ err error }

func (c clipped) Error() string { return ClipText(c.err.Error(), maxMsg) }
func (c clipped) Unwrap() error { return c.err }

// maxRun is the longest run of characters without a space that a
// message shows whole: a longer one is a value quoted by code that did
// not cut it (a 20 MB field of a table).
const maxRun = 120

// ClipText cuts every run of more than maxRun characters without a space
// in s to its first characters and its length, then s to max characters,
// keeping its start and end.
func ClipText(s string, max int) string {
	s = clipRuns(s)
	if len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	keep := max - 40
	return string(r[:keep*3/4]) + fmt.Sprintf("…(%d characters cut)…", len(r)-keep) + string(r[len(r)-keep/4:])
}

// clipRuns cuts the runs of more than maxRun characters without a space
// in s: "99999…(20000000 characters cut)".
func clipRuns(s string) string {
	if len(s) <= maxRun {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], " \n")
		if j < 0 {
			j = len(s) - i
		}
		run := s[i : i+j]
		if n := utf8.RuneCountInString(run); n > maxRun {
			k := 0
			for p := range run {
				if k == maxRun/2 {
					run = run[:p] + fmt.Sprintf("…(%d characters cut)", n-k)
					break
				}
				k++
			}
		}
		b.WriteString(run)
		if i+j < len(s) {
			b.WriteByte(s[i+j])
		}
		i += j + 1
	}
	return b.String()
}

// sortErrs orders errors by position in the file; errors from --set values
// come after the file's, in argument order; ties keep the order found.
func sortErrs(errs []FieldError, setOrder map[string]int) {
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i], errs[j]
		if (a.Set != "") != (b.Set != "") {
			return a.Set == ""
		}
		if a.Set != b.Set {
			return setOrder[a.Set] < setOrder[b.Set]
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// JoinErrors returns errs as a *SpecError, each once and in file order,
// or nil.
func JoinErrors(errs []FieldError) error {
	if len(errs) == 0 {
		return nil
	}
	d := newDecoder("")
	for _, fe := range errs {
		d.add(fe)
	}
	return d.err()
}
