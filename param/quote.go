package param

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Values echoed in messages are cut to a readable length: a 20 MB CSV
// field or a 5,000-character name shows its first characters and its
// length.
const (
	// clipAt is the longest text echoed whole, in characters.
	clipAt = 64
	// clipKeep is how much of a longer text is shown.
	clipKeep = 40
)

// Clip returns s, or when it is longer than 64 characters its first 40
// followed by "…" and its length: "99999…(5000 characters)".
func Clip(s string) string {
	if len(s) <= clipAt {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= clipAt {
		return s
	}
	return prefix(s, clipKeep) + fmt.Sprintf("…(%d characters)", n)
}

// Quote returns s double-quoted as strconv.Quote does, cut as Clip cuts
// it: "aaaa…" (5000 characters).
func Quote(s string) string {
	if len(s) <= clipAt {
		return strconv.Quote(s)
	}
	n := utf8.RuneCountInString(s)
	if n <= clipAt {
		return strconv.Quote(s)
	}
	return strconv.Quote(prefix(s, clipKeep)+"…") + fmt.Sprintf(" (%d characters)", n)
}

// prefix returns the first n characters of s.
func prefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
