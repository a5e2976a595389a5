package text

import (
	"reflect"
	"testing"
)

// TestTokenizerOf: each token kind against hand-cut tokens of the same
// text; letters is EachToken's cut.
func TestTokenizerOf(t *testing.T) {
	const s = "Don't pay $20 for 'Alien 3'!? O'Brien's rock-n-roll, 1980s... x'"
	tests := []struct {
		kind string
		want []string
	}{
		{Letters, []string{"don", "t", "pay", "for", "alien", "o", "brien", "s", "rock", "n", "roll", "s", "x"}},
		{"", []string{"don", "t", "pay", "for", "alien", "o", "brien", "s", "rock", "n", "roll", "s", "x"}},
		{Digits, []string{"don", "t", "pay", "20", "for", "alien", "3", "o", "brien", "s", "rock", "n", "roll", "1980s", "x"}},
		{Apostrophes, []string{"don't", "pay", "for", "alien", "o'brien's", "rock", "n", "roll", "s", "x"}},
		{Punctuation, []string{"don", "'", "t", "pay", "$", "for", "'", "alien", "'", "!", "?", "o", "'", "brien", "'", "s", "rock", "-", "n", "-", "roll", ",", "s", ".", ".", ".", "x", "'"}},
	}
	for _, tt := range tests {
		each, err := TokenizerOf(tt.kind)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		each(s, func(tok []byte) { got = append(got, string(tok)) })
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q:\n got %q\nwant %q", tt.kind, got, tt.want)
		}
	}
	if _, err := TokenizerOf("bytes"); err == nil {
		t.Error("kind bytes: no error")
	}
	if got := TokenKinds(); got[0] != Letters || len(got) != 4 {
		t.Errorf("TokenKinds() = %v", got)
	}
}
