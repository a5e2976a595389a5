package compress

import (
	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/text"
)

// The memory kgrams and compress hold at most grows with the words of the
// corpus, W, and with k: kgrams holds k slots per word, a table of
// strings and the count matrix with its feature names, whose lengths grow
// with k too; compress the same slots, ADMM's three values per candidate
// pointer and the compressed matrix. Measured on slices of 20 Newsgroups
// (1,178 and 4,712 documents, 0.38 and 1.44 million words; live heap at
// the most, the output kept), in bytes per word:
//
//	k         1    3    5    8
//	kgrams   62  155  340  686  (307 at 1.44 M words, k = 5)
//	compress 68  176  275  425  (277)
//
// The estimates below are 1.3 to 1.9 times these, with a fixed part for
// the tables a small corpus allocates at their least size (TestMemory,
// TestMemoryNewsgroups).
const (
	fixedMemory = 1 << 20
	perDoc      = 256 // the slots of a document's end, its row
)

// kgramsPerWord and compressPerWord return the bytes per word of the
// estimates at k.
func kgramsPerWord(k int) int64   { return int64(64 + 16*k + 12*k*k) }
func compressPerWord(k int) int64 { return int64(64 + 64*k) }

// words returns the number of words of d's documents, as Compress and
// KGrams tokenize them with the token kind tokens.
func words(d *datasets.Dataset, tokens string) int64 {
	each, err := text.TokenizerOf(tokens)
	if err != nil {
		each = text.EachToken // the transform refuses the kind itself
	}
	n := int64(0)
	for _, s := range d.Text {
		each(s, func([]byte) { n++ })
	}
	return n
}

// kgramsMemory estimates the most memory KGrams holds on d's documents.
func kgramsMemory(d *datasets.Dataset, p kgramsParams) int64 {
	return fixedMemory + perDoc*int64(len(d.Text)) + kgramsPerWord(p.K)*words(d, p.Tokens)
}

// compressMemory estimates the most memory Compress holds on d's
// documents.
func compressMemory(d *datasets.Dataset, p compressParams) int64 {
	per := compressPerWord(p.K)
	if p.Cost == Characters {
		per += 4 * int64(p.K) // a float32 per string, at most k strings per word
	}
	return fixedMemory + perDoc*int64(len(d.Text)) + per*words(d, p.Tokens)
}
