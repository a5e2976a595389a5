package text

import "testing"

// TestCleaner: each part alone and all three on one message, against the
// message cut by hand as scikit-learn's fetch_20newsgroups(remove=…)
// cuts it.
func TestCleaner(t *testing.T) {
	const msg = "From: a@b.c\nSubject: Re: space\n\nIn article <1@x.y> c@d.e writes:\n> the moon is cheese\n|and blue\nNo, it is rock.\nI said: rock\n\n-- \nJohn, NASA\n"
	tests := []struct {
		parts []string
		want  string
	}{
		{nil, msg},
		{[]string{Headers}, "In article <1@x.y> c@d.e writes:\n> the moon is cheese\n|and blue\nNo, it is rock.\nI said: rock\n\n-- \nJohn, NASA\n"},
		{[]string{Footers}, "From: a@b.c\nSubject: Re: space\n\nIn article <1@x.y> c@d.e writes:\n> the moon is cheese\n|and blue\nNo, it is rock.\nI said: rock\n"},
		{[]string{Quotes}, "From: a@b.c\nSubject: Re: space\n\nNo, it is rock.\n\n-- \nJohn, NASA\n"},
		{[]string{Headers, Footers, Quotes}, "No, it is rock.\n"},
		{[]string{Quotes, Footers, Headers}, "No, it is rock.\n"},
	}
	for _, tt := range tests {
		clean, err := Cleaner(tt.parts)
		if err != nil {
			t.Fatal(err)
		}
		if got := clean(msg); got != tt.want {
			t.Errorf("%v:\n got %q\nwant %q", tt.parts, got, tt.want)
		}
	}
	if _, err := Cleaner([]string{"signatures"}); err == nil {
		t.Error("signatures: no error")
	}
	// A footer heuristic that would leave nothing keeps the message.
	if got := StripFooter("one line\n"); got != "one line\n" {
		t.Errorf("StripFooter(one line) = %q", got)
	}
}
