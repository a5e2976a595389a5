package compress

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/repro-ml/repro/datasets/text"
	"github.com/repro-ml/repro/matrix"
)

// MaxK is the largest k-gram length accepted.
const MaxK = 16

// problem is the compression problem (1) of a tokenized corpus: every
// k-gram of up to k words at every position of every document is a
// candidate pointer, none spans two documents.
//
// Pointers live in slots with a fixed stride: the pointer of length t at
// word position a (global, documents concatenated) is slot k·a + t − 1 and
// covers words a … a+t−1. Slots that would run past the end of their
// document are dead (str −1), which wastes k(k−1)/2 slots per document and
// makes every index computable.
type problem struct {
	k     int
	words []int32 // word ids, documents concatenated
	start []int   // document i is words[start[i]:start[i+1]]
	vocab []string

	str    []int32 // per slot: its string's id, −1 for a dead slot
	strLen []uint8 // per string: its length in words
	first  []int32 // per string: its first slot, to name it
	// Strings 0 … nMulti−1 have at least two pointers, at positions
	// grpPtr[s] … grpPtr[s+1]−1 of the string order (in slot order
	// within a string), which tr maps to slots; the others have one.
	nMulti int
	grpPtr []int32
	tr     *transfer
	live   int // number of live slots (candidate pointers)
}

// newProblem tokenizes docs with text.EachToken (lower-case runs of ASCII
// letters) and lists the candidate pointers of k-grams up to k.
func newProblem(ctx context.Context, docs []string, k int) (*problem, error) {
	if k < 1 || k > MaxK {
		return nil, fmt.Errorf("k = %d, want 1 … %d", k, MaxK)
	}
	p := &problem{k: k, start: make([]int, 1, len(docs)+1)}
	ids := map[string]int32{}
	for i, d := range docs {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		text.EachToken(d, func(tok []byte) {
			id, ok := ids[string(tok)]
			if !ok {
				id = int32(len(p.vocab))
				s := string(tok)
				ids[s] = id
				p.vocab = append(p.vocab, s)
			}
			p.words = append(p.words, id)
		})
		p.start = append(p.start, len(p.words))
	}
	// The solver indexes its variables, three per candidate pointer, by
	// int32.
	if 3*uint64(len(p.words))*uint64(k) >= math.MaxInt32 {
		return nil, fmt.Errorf("%d words × k = %d: more than 2³¹/3 candidate pointers", len(p.words), k)
	}
	return p, p.index(ctx)
}

// index assigns every k-gram an id (the id of s·w is looked up from the
// pair (id(s), w), as in a trie), one length at a time, so that the table
// holds the k-grams of one length only; then renumbers the strings in
// order of first occurrence, those with several pointers first, and lists
// their pointers.
func (p *problem) index(ctx context.Context) error {
	k := p.k
	p.str = make([]int32, k*len(p.words))
	trie := newIDTable(len(p.words))
	count := make([]int32, 0, 2*len(p.words))
	strLen := make([]uint8, 0, 2*len(p.words))
	first := make([]int32, 0, 2*len(p.words))
	for t := 1; t <= k; t++ {
		if t > 1 {
			trie.reset()
		}
		for i := 0; i+1 < len(p.start); i++ {
			if i%256 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			lo, hi := p.start[i], p.start[i+1]
			for a := lo; a < hi; a++ {
				slot := k*a + t - 1
				if a+t > hi {
					p.str[slot] = -1
					continue
				}
				prev := int32(-1)
				if t > 1 {
					prev = p.str[slot-1]
				}
				key := uint64(uint32(prev+1))<<32 | uint64(uint32(p.words[a+t-1]))
				id, added := trie.getOrPut(key, int32(len(count)))
				if added {
					count = append(count, 0)
					strLen = append(strLen, uint8(t))
					first = append(first, int32(slot))
				}
				count[id]++
				p.str[slot] = id
			}
		}
	}
	trie = nil
	// Renumber in order of first occurrence (the order of the first
	// slots): strings with several pointers first, then the others.
	n := len(count)
	p.nMulti = 0
	for _, c := range count {
		if c >= 2 {
			p.nMulti++
		}
	}
	newID := make([]int32, n)
	nextMulti, nextOne := int32(0), int32(p.nMulti)
	for slot, s := range p.str {
		if s < 0 || int(first[s]) != slot {
			continue
		}
		if count[s] >= 2 {
			newID[s] = nextMulti
			nextMulti++
		} else {
			newID[s] = nextOne
			nextOne++
		}
	}
	p.strLen = make([]uint8, n)
	p.first = make([]int32, n)
	for s := range count {
		p.strLen[newID[s]], p.first[newID[s]] = strLen[s], first[s]
	}
	p.grpPtr = make([]int32, p.nMulti+1)
	for s, c := range count {
		if c >= 2 {
			p.grpPtr[newID[s]+1] = c
		}
	}
	for s := 0; s < p.nMulti; s++ {
		p.grpPtr[s+1] += p.grpPtr[s]
	}
	for slot, s := range p.str {
		if s >= 0 {
			p.str[slot] = newID[s]
			p.live++
		}
	}
	p.tr = newTransfer(p.str, p.nMulti, p.grpPtr, minShift)
	return nil
}

// docs returns the number of documents.
func (p *problem) docs() int { return len(p.start) - 1 }

// strings returns the number of distinct k-grams.
func (p *problem) strings() int { return len(p.strLen) }

// name returns string s, its words joined by "_" as the text pipeline's
// n-grams are.
func (p *problem) name(s int32) string {
	a := int(p.first[s]) / p.k
	var b strings.Builder
	for i := range int(p.strLen[s]) {
		if i > 0 {
			b.WriteByte('_')
		}
		b.WriteString(p.vocab[p.words[a+i]])
	}
	return b.String()
}

// features returns the count features of the strings that each(i, emit)
// emits for document i: row i counts them, one column per string emitted
// anywhere, columns sorted by name; and the column names.
func (p *problem) features(each func(i int, emit func(s int32))) (*matrix.CSR, []string) {
	used := make([]bool, p.strings())
	for i := 0; i < p.docs(); i++ {
		each(i, func(s int32) { used[s] = true })
	}
	var cols []int32
	for s, u := range used {
		if u {
			cols = append(cols, int32(s))
		}
	}
	names := make([]string, len(cols))
	for i, s := range cols {
		names[i] = p.name(s)
	}
	order := make([]int, len(cols))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	colOf := make([]int32, p.strings())
	sorted := make([]string, len(cols))
	for c, i := range order {
		colOf[cols[i]] = int32(c)
		sorted[c] = names[i]
	}
	return p.countRows(each, colOf, len(cols)), sorted
}

// pointers calls emit with the string of every selected live slot of
// document i.
func (p *problem) pointers(i int, selected func(slot int) bool, emit func(s int32)) {
	for slot := p.k * p.start[i]; slot < p.k*p.start[i+1]; slot++ {
		if s := p.str[slot]; s >= 0 && selected(slot) {
			emit(s)
		}
	}
}

// countRows builds the matrix of counts whose row i counts the strings
// that each(i, emit) emits, string s in column colOf[s].
func (p *problem) countRows(each func(i int, emit func(s int32)), colOf []int32, cols int) *matrix.CSR {
	m := &matrix.CSR{R: p.docs(), C: cols, Ptr: make([]int, 1, p.docs()+1)}
	var row []int32
	for i := 0; i < p.docs(); i++ {
		row = row[:0]
		each(i, func(s int32) { row = append(row, colOf[s]) })
		slices.Sort(row)
		for a := 0; a < len(row); {
			b := a
			for b < len(row) && row[b] == row[a] {
				b++
			}
			m.Ind = append(m.Ind, int(row[a]))
			m.Val = append(m.Val, float64(b-a))
			a = b
		}
		m.Ptr = append(m.Ptr, len(m.Ind))
	}
	return m
}
