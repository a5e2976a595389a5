package text

import "fmt"

// The token kinds of TokenizerOf: what a token is made of besides ASCII
// letters, each alone against the pipeline's default (Letters).
const (
	// Letters: maximal runs of ASCII letters, case-folded ([a-z]+), as
	// EachToken cuts them; everything else separates tokens.
	Letters = "letters"
	// Digits: maximal runs of ASCII letters and digits ([a-z0-9]+).
	Digits = "digits"
	// Apostrophes: runs of letters with an apostrophe kept between two
	// letters (don't, o'brien); other apostrophes separate tokens.
	Apostrophes = "apostrophes"
	// Punctuation: runs of letters, and every other printable ASCII
	// character that is not a letter, digit or space a token of its own
	// ("!" , "?", "$").
	Punctuation = "punctuation"
)

// TokenKinds returns the token kinds TokenizerOf accepts, Letters first.
func TokenKinds() []string { return []string{Letters, Digits, Apostrophes, Punctuation} }

// TokenizerOf returns the tokenizer of a token kind: a function that calls
// fn with each token of s in a buffer that is reused (fn must copy the
// bytes it keeps), as EachToken does. Letters, and "", give EachToken
// itself. Tokens are case-folded; non-ASCII bytes separate tokens.
func TokenizerOf(kind string) (func(s string, fn func(tok []byte)), error) {
	switch kind {
	case "", Letters:
		return EachToken, nil
	case Digits, Apostrophes, Punctuation:
		return func(s string, fn func([]byte)) { eachTokenOf(kind, s, fn) }, nil
	}
	return nil, fmt.Errorf("token kind %q; want one of %v", kind, TokenKinds())
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// eachTokenOf calls fn with each token of s of the token kind (Letters
// for EachToken).
func eachTokenOf(kind string, s string, fn func(tok []byte)) {
	var buf [64]byte
	tok := buf[:0]
	flush := func() {
		if len(tok) > 0 {
			fn(tok)
			tok = tok[:0]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z':
			tok = append(tok, c)
		case 'A' <= c && c <= 'Z':
			tok = append(tok, c+('a'-'A'))
		case kind == Digits && isDigit(c):
			tok = append(tok, c)
		case kind == Apostrophes && c == '\'' && len(tok) > 0 && i+1 < len(s) && isLetter(s[i+1]):
			tok = append(tok, c)
		case kind == Punctuation && '!' <= c && c <= '~' && !isDigit(c):
			flush()
			fn([]byte{c})
		default:
			flush()
		}
	}
	flush()
}
