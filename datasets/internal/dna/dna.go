// Package dna one-hot encodes nucleotide sequences for repro's splice
// dataset loaders.
package dna

import (
	"fmt"
	"strings"
)

// Bases are the nucleotides in the order of their one-hot columns.
const Bases = "ACGT"

// codes maps an IUPAC nucleotide code to its weights on A, C, G, T: a
// definite base is a one-hot vector, an ambiguity code spreads unit mass
// evenly over the bases it stands for (N = ¼ each, D = A/G/T ⅓ each,
// R = A/G ½, S = C/G ½, …).
var codes = map[byte][4]float64{}

func init() {
	for code, bases := range map[byte]string{
		'A': "A", 'C': "C", 'G': "G", 'T': "T",
		'R': "AG", 'Y': "CT", 'S': "CG", 'W': "AT", 'K': "GT", 'M': "AC",
		'B': "CGT", 'D': "AGT", 'H': "ACT", 'V': "ACG", 'N': "ACGT",
	} {
		var w [4]float64
		for _, b := range bases {
			w[strings.IndexRune(Bases, b)] = 1 / float64(len(bases))
		}
		codes[code] = w
	}
}

// OneHot writes the 4·len(seq) encoding of seq into dst: for position p,
// dst[4p:4p+4] are the weights on A, C, G, T. Lower case is accepted. It
// returns an error naming the first letter that is not an IUPAC code.
func OneHot(dst []float64, seq string) error {
	if len(dst) != 4*len(seq) {
		panic(fmt.Sprintf("dna: OneHot: len(dst) = %d, want %d", len(dst), 4*len(seq)))
	}
	for p := 0; p < len(seq); p++ {
		c := seq[p]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		w, ok := codes[c]
		if !ok {
			return fmt.Errorf("position %d: %q is not a nucleotide code (want A, C, G, T or an IUPAC ambiguity code such as N, D, R, S)", p+1, seq[p])
		}
		copy(dst[4*p:], w[:])
	}
	return nil
}

// Ambiguous reports whether seq holds a letter other than A, C, G, T.
func Ambiguous(seq string) bool {
	return strings.IndexFunc(strings.ToUpper(seq), func(r rune) bool { return !strings.ContainsRune(Bases, r) }) >= 0
}

// FeatureNames returns the names of the one-hot columns of a sequence of
// length n: "p01=A", "p01=C", …, position numbers 1-based and zero-padded.
func FeatureNames(n int) []string {
	width := len(fmt.Sprint(n))
	out := make([]string, 0, 4*n)
	for p := 1; p <= n; p++ {
		for _, b := range Bases {
			out = append(out, fmt.Sprintf("p%0*d=%c", width, p, b))
		}
	}
	return out
}
