package spec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/repro-ml/repro/internal/clip"
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
	maxMsg  = clip.Msg
	maxPath = 300
)

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
