package compress

import (
	"context"
	"fmt"
	"math"
	"runtime"
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
	// workers is the number of goroutines indexing and counting features.
	workers int

	str    []int32 // per slot: its string's id, −1 for a dead slot
	strLen []uint8 // per string: its length in words
	// chars, if not nil, is per string its length in characters (the
	// bytes of its words, as the tokenizer kept them): the dictionary
	// cost of Characters; nil, the cost is strLen (Words).
	chars []float32
	first []int32 // per string: its first slot, to name it
	// Strings 0 … nMulti−1 have at least two pointers, at positions
	// grpPtr[s] … grpPtr[s+1]−1 of the string order (in slot order
	// within a string), which tr maps to slots; the others have one.
	nMulti int
	grpPtr []int32
	tr     *transfer
	live   int // number of live slots (candidate pointers)
}

// newProblem tokenizes docs with the tokenizer of the token kind tokens
// (text.TokenizerOf; "" is text.EachToken's lower-case runs of ASCII
// letters) and lists the candidate pointers of k-grams up to k, indexing
// them on workers goroutines (GOMAXPROCS if workers < 1).
func newProblem(ctx context.Context, docs []string, k, workers int, tokens string) (*problem, error) {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if k < 1 || k > MaxK {
		return nil, fmt.Errorf("k = %d, want 1 … %d", k, MaxK)
	}
	eachToken, err := text.TokenizerOf(tokens)
	if err != nil {
		return nil, err
	}
	p := &problem{k: k, start: make([]int, 1, len(docs)+1), workers: workers}
	ids := map[string]int32{}
	for i, d := range docs {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		eachToken(d, func(tok []byte) {
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
	return p, p.index(ctx, workers)
}

// index assigns every k-gram an id (the id of s·w is looked up from the
// pair (id(s), w), as in a trie), one length at a time, so that the tables
// hold the k-grams of one length only; then renumbers the strings in
// order of first occurrence, those with several pointers first, and lists
// their pointers.
//
// The pairs are split among the workers by a hash (shards): each scans
// every slot of the length in order and looks up the pairs of its shard
// in its own table, so it meets each of its strings first at its first
// slot; a string's provisional id is its id within the shard times the
// number of shards plus the shard. The renumbering depends on the first
// slots and the counts only, so the result does not depend on the number
// of workers.
func (p *problem) index(ctx context.Context, workers int) error {
	k := p.k
	p.str = make([]int32, k*len(p.words))
	type shard struct {
		trie   *idTable
		count  []int32
		strLen []uint8
		first  []int32
	}
	nsh := max(1, min(workers, 8))
	sh := make([]shard, nsh)
	for t := 1; t <= k; t++ {
		err := parallel(ctx, nsh, nsh, func(me, _ int) error {
			d := &sh[me]
			if d.trie == nil {
				n := 2 * len(p.words) / nsh
				d.trie = newIDTable(len(p.words) / nsh)
				d.count = make([]int32, 0, n)
				d.strLen = make([]uint8, 0, n)
				d.first = make([]int32, 0, n)
			} else {
				d.trie.reset()
			}
			for i := 0; i+1 < len(p.start); i++ {
				if i%256 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				lo, hi := p.start[i], p.start[i+1]
				for a := lo; a < hi; a++ {
					slot := k*a + t - 1
					if a+t > hi {
						if me == 0 {
							p.str[slot] = -1
						}
						continue
					}
					prev := int32(-1)
					if t > 1 {
						prev = p.str[slot-1]
					}
					key := uint64(uint32(prev+1))<<32 | uint64(uint32(p.words[a+t-1]))
					if nsh > 1 && int((key*0xff51afd7ed558ccd)>>40)%nsh != me {
						continue
					}
					id, added := d.trie.getOrPut(key, int32(len(d.count)))
					if added {
						d.count = append(d.count, 0)
						d.strLen = append(d.strLen, uint8(t))
						d.first = append(d.first, int32(slot))
					}
					d.count[id]++
					p.str[slot] = id*int32(nsh) + int32(me)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	// Renumber in order of first occurrence (the order of the first
	// slots): strings with several pointers first, then the others.
	most := 0
	p.nMulti = 0
	for me := range sh {
		sh[me].trie = nil
		most = max(most, len(sh[me].count))
		for _, c := range sh[me].count {
			if c >= 2 {
				p.nMulti++
			}
		}
	}
	count := func(s int32) int32 { return sh[int(s)%nsh].count[int(s)/nsh] }
	newID := make([]int32, nsh*most)
	nextMulti, nextOne := int32(0), int32(p.nMulti)
	for slot, s := range p.str {
		if s < 0 || int(sh[int(s)%nsh].first[int(s)/nsh]) != slot {
			continue
		}
		if count(s) >= 2 {
			newID[s] = nextMulti
			nextMulti++
		} else {
			newID[s] = nextOne
			nextOne++
		}
	}
	n := int(nextOne)
	p.strLen = make([]uint8, n)
	p.first = make([]int32, n)
	p.grpPtr = make([]int32, p.nMulti+1)
	for me, d := range sh {
		for id, c := range d.count {
			to := newID[id*nsh+me]
			p.strLen[to], p.first[to] = d.strLen[id], d.first[id]
			if c >= 2 {
				p.grpPtr[to+1] = c
			}
		}
	}
	sh = nil
	for s := 0; s < p.nMulti; s++ {
		p.grpPtr[s+1] += p.grpPtr[s]
	}
	// The new ids, a range of slots per task.
	const span = 1 << 16
	ranges := (len(p.str) + span - 1) / span
	live := make([]int, ranges)
	err := parallel(ctx, workers, ranges, func(r, _ int) error {
		for slot := r * span; slot < min(len(p.str), (r+1)*span); slot++ {
			if s := p.str[slot]; s >= 0 {
				p.str[slot] = newID[s]
				live[r]++
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, n := range live {
		p.live += n
	}
	p.tr = newTransfer(p.str, p.nMulti, p.grpPtr, minShift)
	return nil
}

// docs returns the number of documents.
func (p *problem) docs() int { return len(p.start) - 1 }

// strings returns the number of distinct k-grams.
func (p *problem) strings() int { return len(p.strLen) }

// dictCost returns the dictionary cost c(s) of string s: its length in
// characters if p counts them (countChars), else in words.
func (p *problem) dictCost(s int32) float64 {
	if p.chars != nil {
		return float64(p.chars[s])
	}
	return float64(p.strLen[s])
}

// countChars makes the dictionary cost of each string its length in
// characters: the bytes of its words, without separators (Paskov et al.'s
// Fig. 1 counts the characters of the dictionary).
func (p *problem) countChars() {
	p.chars = make([]float32, p.strings())
	for s := range p.chars {
		a := int(p.first[s]) / p.k
		n := 0
		for i := range int(p.strLen[s]) {
			n += len(p.vocab[p.words[a+i]])
		}
		p.chars[s] = float32(n)
	}
}

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
// anywhere, columns sorted by name; the column names; and each column's
// string length in words. Documents are
// done in chunks on p.workers goroutines (each must be safe to call
// concurrently for different documents); the result does not depend on
// their number.
func (p *problem) features(ctx context.Context, each func(i int, emit func(s int32))) (*matrix.CSR, []string, []int, error) {
	const chunk = 64
	docs := p.docs()
	chunks := (docs + chunk - 1) / chunk
	// Per chunk, its documents' distinct strings s with their counts c,
	// s<<32 | c, sorted by s within a document.
	rows := make([][]uint64, chunks)
	m := &matrix.CSR{R: docs, Ptr: make([]int, docs+1)}
	err := parallel(ctx, p.workers, chunks, func(c, _ int) error {
		var strs []int32
		var out []uint64
		for i := c * chunk; i < min(docs, (c+1)*chunk); i++ {
			strs = strs[:0]
			each(i, func(s int32) { strs = append(strs, s) })
			slices.Sort(strs)
			for a := 0; a < len(strs); {
				b := a
				for b < len(strs) && strs[b] == strs[a] {
					b++
				}
				out = append(out, uint64(strs[a])<<32|uint64(b-a))
				a = b
			}
			m.Ptr[i+1] = len(out)
		}
		rows[c] = out
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	used := make([]bool, p.strings())
	for c, out := range rows {
		for _, e := range out {
			used[e>>32] = true
		}
		// Row lengths to row ends.
		base := m.Ptr[c*chunk]
		for i := c*chunk + 1; i <= min(docs, (c+1)*chunk); i++ {
			m.Ptr[i] += base
		}
	}
	var cols []int32
	for s, u := range used {
		if u {
			cols = append(cols, int32(s))
		}
	}
	used = nil
	names := make([]string, len(cols))
	err = parallel(ctx, p.workers, (len(cols)+1023)/1024, func(c, _ int) error {
		for i := c * 1024; i < min(len(cols), (c+1)*1024); i++ {
			names[i] = p.name(cols[i])
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	order := make([]int, len(cols))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	colOf := make([]int32, p.strings())
	sorted := make([]string, len(cols))
	lengths := make([]int, len(cols))
	for c, i := range order {
		colOf[cols[i]] = int32(c)
		sorted[c] = names[i]
		lengths[c] = int(p.strLen[cols[i]])
	}
	m.C = len(cols)
	m.Ind = make([]int32, m.Ptr[docs])
	m.Val = make([]float64, m.Ptr[docs])
	err = parallel(ctx, p.workers, chunks, func(c, _ int) error {
		out := rows[c]
		rows[c] = nil
		for e, v := range out {
			out[e] = uint64(colOf[v>>32])<<32 | v&(1<<32-1)
		}
		for i := c * chunk; i < min(docs, (c+1)*chunk); i++ {
			row := out[m.Ptr[i]-m.Ptr[c*chunk] : m.Ptr[i+1]-m.Ptr[c*chunk]]
			slices.Sort(row)
			for e, v := range row {
				m.Ind[m.Ptr[i]+e] = int32(v >> 32)
				m.Val[m.Ptr[i]+e] = float64(v & (1<<32 - 1))
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return m, sorted, lengths, nil
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
