package clip

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	long := strings.Repeat("9", 20000)
	tests := []struct {
		name, in string
		max      int
		want     string // the whole result, or "" to check only the length and the marks
	}{
		{"short", "a short message", 100, "a short message"},
		{"long run", "value " + long + " is bad", 1000, "value " + strings.Repeat("9", maxRun/2) + "…(19940 characters cut) is bad"},
		{"many words", strings.Repeat("word ", 1000), 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(tc.in, tc.max)
			if tc.want != "" && got != tc.want {
				t.Errorf("Text = %q, want %q", got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > tc.max {
				t.Errorf("%d characters, want at most %d", n, tc.max)
			}
			if tc.want == "" && (!strings.HasPrefix(got, "word word") || !strings.Contains(got, "characters cut)…") || !strings.HasSuffix(got, "word ")) {
				t.Errorf("Text = %q: want its start, a count of what was cut, and its end", got)
			}
		})
	}
}

func TestError(t *testing.T) {
	if Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
	short := errors.New("short")
	if Error(short) != short {
		t.Error("a short error is not returned as is")
	}
	err := Error(&fs.PathError{Op: "open", Path: strings.Repeat("x ", 5000), Err: fs.ErrNotExist})
	if n := utf8.RuneCountInString(err.Error()); n > Msg {
		t.Errorf("%d characters, want at most %d", n, Msg)
	}
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		t.Error("the clipped error hides what it wraps")
	}
}
