// Package clip cuts the text of error messages to a readable length: they
// quote what a spec or a data file holds, and a 20 MB field must not make
// a 20 MB line.
package clip

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Msg is the most characters a message shows (Error).
const Msg = 2000

// Error returns err with its text cut to Msg characters, a readable
// length (a loader that quotes a 20 MB field); errors.As and errors.Is
// still see err.
func Error(err error) error {
	if err == nil || len(err.Error()) <= Msg {
		return err
	}
	return clipped{err}
}

type clipped struct{ err error }

func (c clipped) Error() string { return Text(c.err.Error(), Msg) }
func (c clipped) Unwrap() error { return c.err }

// maxRun is the longest run of characters without a space that a
// message shows whole: a longer one is a value quoted by code that did
// not cut it (a 20 MB field of a table).
const maxRun = 120

// Text cuts every run of more than maxRun characters without a space
// in s to its first characters and its length, then s to max characters,
// keeping its start and end.
func Text(s string, max int) string {
	s = runs(s)
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

// runs cuts the runs of more than maxRun characters without a space
// in s: "99999…(20000000 characters cut)".
func runs(s string) string {
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
