// Package text turns documents into a document-term matrix and provides the
// text dataset plugins "20news" (the 20 Newsgroups by-date collection) and
// "processed-acl" (Blitzer et al.'s multi-domain sentiment reviews in their
// processed_acl format).
//
// The pipeline, shared by both loaders and exported for reuse as a
// Vectorizer: lower-case alphabetic tokens ([a-z]+ after ASCII case folding;
// every other byte separates tokens), stop-word removal, word n-grams up to
// n joined by "_" (formed after stop words are removed), a vocabulary of the
// terms in at least MinDF documents (counted over every document given, so
// over the whole corpus including any test split, as Sandler et al. 2008
// did), optionally restricted to a lexicon, and counts weighted as
// log(1+count), 0/1 presence, or raw counts. Columns are the vocabulary in
// sorted order, so the output is deterministic.
package text

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/repro-ml/repro/matrix"
)

// Weighting is how a term count becomes a feature value.
type Weighting string

// The weightings of the pipeline.
const (
	Log    Weighting = "log"    // log(1 + count)
	Binary Weighting = "binary" // 1 if the term occurs
	Count  Weighting = "count"  // the raw count
)

// Weight returns the value of a term that occurs count times.
func (w Weighting) Weight(count float64) float64 {
	switch w {
	case Binary:
		return 1
	case Count:
		return count
	default:
		return math.Log1p(count)
	}
}

// Options configure a Vectorizer. The zero value keeps every unigram with
// log weighting.
type Options struct {
	// StopWords are dropped before n-grams are formed (nil: none).
	StopWords map[string]bool
	// NGrams is the largest n of the word n-grams extracted (0 or 1: words).
	NGrams int
	// MinDF keeps the terms occurring in at least this many documents.
	MinDF int
	// MinCount keeps the terms occurring at least this many times in all.
	MinCount float64
	// Keep, if not nil, restricts the vocabulary to the terms it accepts
	// (e.g. the words of a lexicon).
	Keep func(term string) bool
	// MaxFeatures, if positive, keeps only that many terms: those in the
	// most documents, ties broken alphabetically.
	MaxFeatures int
	// Weighting of the counts; "" means Log.
	Weighting Weighting
}

type termCount struct {
	id    int32
	count float64
}

// Vectorizer accumulates documents and builds their document-term matrix.
// Add documents with AddText, AddTokens or AddCounts, then call Build once.
type Vectorizer struct {
	opt   Options
	ids   map[string]int32
	terms []string
	df    []int
	total []float64
	docs  [][]termCount
	extra []bool // documents counted in the vocabulary but not output

	tokens []string
	buf    []byte
	scr    []int32
}

// NewVectorizer returns a Vectorizer with the given options.
func NewVectorizer(o Options) *Vectorizer {
	if o.NGrams < 1 {
		o.NGrams = 1
	}
	if o.Weighting == "" {
		o.Weighting = Log
	}
	return &Vectorizer{opt: o, ids: map[string]int32{}}
}

// Docs returns the number of documents added that Build will output.
func (v *Vectorizer) Docs() int {
	n := 0
	for _, e := range v.extra {
		if !e {
			n++
		}
	}
	return n
}

// Tokenize returns the lower-case alphabetic tokens of s: maximal runs of
// ASCII letters, case-folded. Digits, punctuation, white space and non-ASCII
// bytes separate tokens.
func Tokenize(s string) []string {
	var out []string
	EachToken(s, func(tok []byte) { out = append(out, string(tok)) })
	return out
}

// EachToken calls fn with each token of s (as Tokenize splits it) in a
// buffer that is reused: fn must copy the bytes it keeps.
func EachToken(s string, fn func(tok []byte)) { eachTokenOf(Letters, s, fn) }

func (v *Vectorizer) id(term []byte) int32 {
	if id, ok := v.ids[string(term)]; ok {
		return id
	}
	s := string(term)
	id := int32(len(v.terms))
	v.ids[s] = id
	v.terms = append(v.terms, s)
	v.df = append(v.df, 0)
	v.total = append(v.total, 0)
	return id
}

// AddText tokenizes a document and adds it.
func (v *Vectorizer) AddText(s string) {
	v.tokens = v.tokens[:0]
	EachToken(s, func(tok []byte) {
		if v.opt.StopWords != nil && v.opt.StopWords[string(tok)] {
			return
		}
		v.tokens = append(v.tokens, string(tok))
	})
	v.addTokens(v.tokens, false)
}

// AddTokens adds a document given as its sequence of tokens (stop words are
// removed and n-grams formed as for AddText).
func (v *Vectorizer) AddTokens(tokens []string) {
	kept := make([]string, 0, len(tokens))
	for _, t := range tokens {
		if v.opt.StopWords == nil || !v.opt.StopWords[t] {
			kept = append(kept, t)
		}
	}
	v.addTokens(kept, false)
}

func (v *Vectorizer) addTokens(tokens []string, extra bool) {
	ids := v.scr[:0]
	for n := 1; n <= v.opt.NGrams; n++ {
		for i := 0; i+n <= len(tokens); i++ {
			b := append(v.buf[:0], tokens[i]...)
			for _, t := range tokens[i+1 : i+n] {
				b = append(b, '_')
				b = append(b, t...)
			}
			v.buf = b
			ids = append(ids, v.id(b))
		}
	}
	v.scr = ids
	slices.Sort(ids)
	doc := make([]termCount, 0, len(ids))
	for i := 0; i < len(ids); {
		j := i
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		doc = append(doc, termCount{ids[i], float64(j - i)})
		i = j
	}
	v.push(doc, extra)
}

// AddCounts adds a document given as terms with their counts (e.g. an
// already processed bag of n-grams). Repeated terms are summed. Stop words
// and n-gram length are not applied: filter the terms before.
func (v *Vectorizer) AddCounts(terms []string, counts []float64) {
	v.addCounts(terms, counts, false)
}

// AddReference adds a document that counts towards the document
// frequencies and MinCount (the vocabulary) but is not a row of the output,
// e.g. an unlabelled review.
func (v *Vectorizer) AddReference(terms []string, counts []float64) {
	v.addCounts(terms, counts, true)
}

func (v *Vectorizer) addCounts(terms []string, counts []float64, extra bool) {
	if len(terms) != len(counts) {
		panic(fmt.Sprintf("text: AddCounts: %d terms, %d counts", len(terms), len(counts)))
	}
	doc := make([]termCount, 0, len(terms))
	for i, t := range terms {
		if counts[i] == 0 {
			continue
		}
		doc = append(doc, termCount{v.id([]byte(t)), counts[i]})
	}
	sort.Slice(doc, func(a, b int) bool { return doc[a].id < doc[b].id })
	out := doc[:0]
	for _, tc := range doc {
		if n := len(out); n > 0 && out[n-1].id == tc.id {
			out[n-1].count += tc.count
			continue
		}
		out = append(out, tc)
	}
	v.push(out, extra)
}

func (v *Vectorizer) push(doc []termCount, extra bool) {
	for _, tc := range doc {
		v.df[tc.id]++
		v.total[tc.id] += tc.count
	}
	v.docs = append(v.docs, doc)
	v.extra = append(v.extra, extra)
}

// Build returns the document-term matrix of the documents added (rows in
// the order added, reference documents left out) and the vocabulary, sorted,
// which names its columns.
func (v *Vectorizer) Build() (*matrix.CSR, []string, error) {
	var keep []int32
	for id, t := range v.terms {
		if v.df[id] < v.opt.MinDF || v.total[id] < v.opt.MinCount {
			continue
		}
		if v.opt.Keep != nil && !v.opt.Keep(t) {
			continue
		}
		keep = append(keep, int32(id))
	}
	if v.opt.MaxFeatures > 0 && len(keep) > v.opt.MaxFeatures {
		sort.Slice(keep, func(a, b int) bool {
			ia, ib := keep[a], keep[b]
			if v.df[ia] != v.df[ib] {
				return v.df[ia] > v.df[ib]
			}
			return v.terms[ia] < v.terms[ib]
		})
		keep = keep[:v.opt.MaxFeatures]
	}
	sort.Slice(keep, func(a, b int) bool { return v.terms[keep[a]] < v.terms[keep[b]] })
	if len(keep) == 0 {
		return nil, nil, fmt.Errorf("text: empty vocabulary (%d documents, %d distinct terms, min_df %d)", len(v.docs), len(v.terms), v.opt.MinDF)
	}
	col := make([]int32, len(v.terms))
	for i := range col {
		col[i] = -1
	}
	vocab := make([]string, len(keep))
	for j, id := range keep {
		col[id] = int32(j)
		vocab[j] = v.terms[id]
	}
	m := &matrix.CSR{C: len(keep), Ptr: []int{0}}
	type cv struct {
		c int
		v float64
	}
	var row []cv
	for d, doc := range v.docs {
		if v.extra[d] {
			continue
		}
		row = row[:0]
		for _, tc := range doc {
			if c := col[tc.id]; c >= 0 {
				row = append(row, cv{int(c), v.opt.Weighting.Weight(tc.count)})
			}
		}
		slices.SortFunc(row, func(a, b cv) int { return a.c - b.c })
		for _, e := range row {
			m.Ind = append(m.Ind, int32(e.c))
			m.Val = append(m.Val, e.v)
		}
		m.R++
		m.Ptr = append(m.Ptr, len(m.Ind))
	}
	return m, vocab, nil
}

// splitNGram returns the number of words of a term whose words are joined
// by "_".
func splitNGram(term string) int { return strings.Count(term, "_") + 1 }
