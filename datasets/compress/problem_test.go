package compress

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIndex indexes random corpora one k-gram length at a time and checks
// the numbering the solver relies on: equal k-grams (and only they) share
// an id, ids follow the first occurrences with the strings of several
// pointers first, first names each string's first slot and grpPtr counts
// its pointers; and 2 or 3 workers (shards of the index) give the same
// problem as one.
func TestIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 20 {
		k := 1 + trial%5
		docs := randomDocs(rng, 1+rng.IntN(6), 30, 2+rng.IntN(4))
		p, err := newProblem(context.Background(), docs, k, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 3} {
			q, err := newProblem(context.Background(), docs, k, workers, "")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(q.str, p.str) || !slices.Equal(q.strLen, p.strLen) || !slices.Equal(q.first, p.first) ||
				!slices.Equal(q.grpPtr, p.grpPtr) || q.nMulti != p.nMulti || q.live != p.live || !slices.Equal(q.tr.pos, p.tr.pos) {
				t.Fatalf("trial %d: %d workers index differently from one", trial, workers)
			}
		}
		ids := map[string]int32{}
		count := make([]int32, p.strings())
		lastMulti, lastOne := int32(-1), int32(p.nMulti-1)
		for slot, s := range p.str {
			if s < 0 {
				continue
			}
			a, n := slot/k, slot%k+1
			key := ""
			for _, w := range p.words[a : a+n] {
				key += p.vocab[w] + " "
			}
			if id, ok := ids[key]; ok && id != s {
				t.Fatalf("trial %d: slot %d (%q) has id %d, the k-gram has %d", trial, slot, key, s, id)
			}
			if _, ok := ids[key]; !ok {
				ids[key] = s
				last := &lastOne
				if int(s) < p.nMulti {
					last = &lastMulti
				}
				if s != *last+1 || int(p.first[s]) != slot || int(p.strLen[s]) != n {
					t.Fatalf("trial %d: slot %d first has string %d (after %d), first %d, length %d", trial, slot, s, *last, p.first[s], p.strLen[s])
				}
				*last = s
			}
			count[s]++
		}
		if len(ids) != p.strings() {
			t.Fatalf("trial %d: %d distinct k-grams, %d strings", trial, len(ids), p.strings())
		}
		for s, c := range count {
			if multi := s < p.nMulti; multi != (c >= 2) || multi && p.grpPtr[s+1]-p.grpPtr[s] != c {
				t.Fatalf("trial %d: string %d has %d pointers (nMulti %d)", trial, s, c, p.nMulti)
			}
		}
	}
}
