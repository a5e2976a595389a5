package runner

import (
	"fmt"
	"sort"
	"strings"
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
// found, sorted by position.
type SpecError struct {
	Errs []FieldError
}

// Error joins the problems one per line.
func (e *SpecError) Error() string {
	lines := make([]string, len(e.Errs))
	for i, fe := range e.Errs {
		lines[i] = fe.Error()
	}
	return strings.Join(lines, "\n")
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
