package compress

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/repro-ml/repro/matrix"
)

// The units of a string's dictionary cost (Options.Cost).
const (
	Words      = "words"      // its length in words (the paper's text: "word length")
	Characters = "characters" // the bytes of its words (the paper's Fig. 1 counts characters)
)

// Options configure Compress. The zero value of a field other than Lambda
// selects the default given in its comment.
type Options struct {
	// K is the longest k-gram, in words (default 5, at most MaxK).
	K int
	// Lambda is the cost of a pointer, uniform (λ ≥ 0; 0 is allowed).
	Lambda float64
	// Cost is the unit of a string's dictionary cost: Words (its length
	// in words; the default, "") or Characters (the bytes of its words).
	Cost string
	// Tokens is the token kind the documents are cut into
	// (text.TokenizerOf; "" is text.Letters, lower-case runs of ASCII
	// letters).
	Tokens string
	// Epsilon is the reweighting's ε: D_jj = max{1, (w_j + ε)⁻¹}
	// (default 0.1).
	Epsilon float64
	// Rounds is the number of relaxed problems solved: the first with
	// D = I, each next one reweighted from the last (default 3).
	Rounds int
	// Tol is ADMM's relative (and absolute, per √m) tolerance on the
	// primal and dual residuals (default 1e-3).
	Tol float64
	// MaxIter caps the ADMM iterations of a round (default 1000).
	MaxIter int
	// Workers is the number of goroutines solving documents' z-steps and
	// strings' w-steps in parallel (default GOMAXPROCS).
	Workers int
}

func (o Options) withDefaults() Options {
	if o.K == 0 {
		o.K = 5
	}
	if o.Epsilon == 0 {
		o.Epsilon = 0.1
	}
	if o.Rounds == 0 {
		o.Rounds = 3
	}
	if o.Tol == 0 {
		o.Tol = 1e-3
	}
	if o.MaxIter == 0 {
		o.MaxIter = 1000
	}
	if o.Cost == "" {
		o.Cost = Words
	}
	return o
}

// Result is a compressed corpus.
type Result struct {
	// X counts, per document (row), the pointers of the binary solution
	// that use each dictionary string (column).
	X *matrix.CSR
	// Dictionary names X's columns: each string's words joined by "_",
	// sorted.
	Dictionary []string
	// Lengths are the dictionary strings' lengths in words (1 … K).
	Lengths []int
	// Words and Candidates are the corpus's number of words and of
	// candidate pointers; Pointers is the number the binary solution uses.
	Words, Candidates, Pointers int
	// LowerBound is the storage cost at the first relaxation's solution
	// (D = I): the LP optimum, a lower bound on problem (1), up to ADMM's
	// tolerance (the solution satisfies Xw ≥ 1 only to that tolerance, so
	// either cost may fall a little below its exact value). Relaxed is the
	// storage cost (1) of the last round's relaxed solution, Binary that
	// of the binary solution.
	LowerBound, Relaxed, Binary float64
	// Iterations are the ADMM iterations of each round.
	Iterations []int
	// Factorizations counts the banded Cholesky factorizations of all
	// z-steps (most are partial: from the first row whose free
	// variable changed).
	Factorizations int
	// Seconds is the wall-clock time of Compress.
	Seconds float64
}

// Compress compresses the documents jointly by problem (1) of Paskov et
// al.: the candidate pointers are every k-gram of up to K words at every
// position of every document (none spans two documents), a pointer costs
// Lambda and a dictionary string its length in words (or characters:
// Cost). It solves Rounds
// reweighted relaxations (2) by ADMM, rounds the last to a binary solution
// that reconstructs every word, and counts each document's pointers per
// string.
//
// Documents are tokenized as text.Tokenize does (lower-case runs of ASCII
// letters), or by the tokenizer of o.Tokens; an empty document gives an
// empty row. The result is
// deterministic whatever Workers.
func Compress(ctx context.Context, docs []string, o Options) (*Result, error) {
	res, _, _, err := compress(ctx, docs, o)
	return res, err
}

// compress is Compress, returning also the problem and the binary
// solution for the tests.
func compress(ctx context.Context, docs []string, o Options) (*Result, *problem, []bool, error) {
	start := time.Now()
	o = o.withDefaults()
	if err := o.check(); err != nil {
		return nil, nil, nil, err
	}
	p, err := newProblem(ctx, docs, o.K, o.Workers, o.Tokens)
	if err != nil {
		return nil, nil, nil, err
	}
	if o.Cost == Characters {
		p.countChars()
	}
	s := newSolver(p, o.Lambda, o.Workers)
	res := &Result{Words: len(p.words), Candidates: p.live}
	for round := 0; round < o.Rounds; round++ {
		if round > 0 {
			s.reweight(o.Epsilon)
		}
		it, err := s.admm(ctx, o.Tol, o.MaxIter)
		res.Iterations = append(res.Iterations, it)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("round %d: %w", round+1, err)
		}
		if round == 0 {
			res.LowerBound = s.objective(false)
		}
	}
	res.Relaxed = s.objective(false)
	res.Factorizations = int(s.factors.Load())
	s.release()
	sel, err := s.round(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("rounding: %w", err)
	}
	for _, b := range sel {
		if b {
			res.Pointers++
		}
	}
	res.Binary = binaryCost(p, sel, o.Lambda)
	res.X, res.Dictionary, res.Lengths, err = p.features(ctx, func(i int, emit func(int32)) {
		p.pointers(i, func(j int) bool { return sel[j] }, emit)
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("count matrix: %w", err)
	}
	res.Seconds = time.Since(start).Seconds()
	return res, p, sel, nil
}

func (o Options) check() error {
	switch {
	case o.K < 1 || o.K > MaxK:
		return fmt.Errorf("k = %d; want 1 … %d", o.K, MaxK)
	case !(o.Lambda >= 0) || o.Lambda > 1e12:
		return fmt.Errorf("lambda = %v; want a finite value ≥ 0", o.Lambda)
	case !(o.Epsilon > 0):
		return fmt.Errorf("epsilon = %v; want > 0", o.Epsilon)
	case o.Rounds < 1:
		return fmt.Errorf("rounds = %d; want ≥ 1", o.Rounds)
	case !(o.Tol > 0):
		return fmt.Errorf("tol = %v; want > 0", o.Tol)
	case o.MaxIter < 1:
		return fmt.Errorf("max_iter = %d; want ≥ 1", o.MaxIter)
	case o.Cost != Words && o.Cost != Characters:
		return fmt.Errorf("cost = %q; want %s or %s", o.Cost, Words, Characters)
	}
	return nil
}

// KGrams counts every k-gram of up to k words of each document: the
// features of Compress when every pointer is kept (w = 1), the ordinary
// bag of k-grams. Columns are the k-grams (words joined by "_"), sorted.
//
// Documents are tokenized by the tokenizer of the token kind tokens
// (text.TokenizerOf; "" is text.Letters).
func KGrams(ctx context.Context, docs []string, k int, tokens string) (*matrix.CSR, []string, error) {
	p, err := newProblem(ctx, docs, k, 0, tokens)
	if err != nil {
		return nil, nil, err
	}
	x, names, _, err := p.features(ctx, func(i int, emit func(int32)) {
		p.pointers(i, func(int) bool { return true }, emit)
	})
	return x, names, err
}

// binaryCost returns the storage cost (1) of the selected pointers: λ per
// pointer plus the length of every string used.
func binaryCost(p *problem, sel []bool, lambda float64) float64 {
	used := make([]bool, p.strings())
	cost := 0.0
	for j, b := range sel {
		if b {
			cost += lambda
			used[p.str[j]] = true
		}
	}
	for s, u := range used {
		if u {
			cost += p.dictCost(int32(s))
		}
	}
	return cost
}

// round returns a binary solution from the relaxed w: the pointers with
// w ≥ ½; then, in each document from left to right, every word left
// uncovered gets the pointer covering it with the least added cost (λ,
// plus the string's length if no pointer uses it yet; ties: larger w,
// then the first slot); then pointers whose words are all covered by
// others are dropped, smallest w first. Every word is reconstructed.
//
// The first step runs on the solver's workers, documents in chunks; the
// others go through the documents in order, as each choice depends on
// the strings the documents before use.
func (s *solver) round(ctx context.Context) ([]bool, error) {
	p := s.p
	k := p.k
	sel := make([]bool, len(p.str))
	ats := make([][]int32, s.workers)
	chunks := (p.docs() + s.docChunk - 1) / s.docChunk
	err := s.run(ctx, chunks, func(c, worker int) error {
		if ats[worker] == nil {
			ats[worker] = make([]int32, k*s.maxDoc)
		}
		at := ats[worker]
		for i := c * s.docChunk; i < min(p.docs(), (c+1)*s.docChunk); i++ {
			s.locate(i, at)
			lo := k * p.start[i]
			for j, str := range p.str[lo : k*p.start[i+1]] {
				if str >= 0 && s.vals[at[j]] >= 0.5 {
					sel[lo+j] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	uses := make([]int32, p.strings())
	for j, b := range sel {
		if b {
			uses[p.str[j]]++
		}
	}
	at := ats[0]
	if at == nil {
		at = make([]int32, k*s.maxDoc)
	}
	ats = nil
	cov := make([]int32, s.maxDoc)
	var mine []int
	for i := 0; i < p.docs(); i++ {
		lo, hi := p.start[i], p.start[i+1]
		n := hi - lo
		s.locate(i, at)
		w := func(j int) float64 { return s.vals[at[j-k*lo]] }
		cov := cov[:n]
		clear(cov)
		for a := 0; a < n; a++ {
			for t := 1; t <= min(k, n-a); t++ {
				if sel[k*(lo+a)+t-1] {
					for b := a; b < a+t; b++ {
						cov[b]++
					}
				}
			}
		}
		for b := 0; b < n; b++ {
			if cov[b] > 0 {
				continue
			}
			best, bestCost := -1, 0.0
			for a := max(0, b-k+1); a <= b; a++ {
				for t := b - a + 1; t <= min(k, n-a); t++ {
					j := k*(lo+a) + t - 1
					c := s.lambda
					if uses[p.str[j]] == 0 {
						c += p.dictCost(p.str[j])
					}
					if best < 0 || c < bestCost || c == bestCost && w(j) > w(best) {
						best, bestCost = j, c
					}
				}
			}
			sel[best] = true
			uses[p.str[best]]++
			a, t := best/k-lo, best%k+1
			for c := a; c < a+t; c++ {
				cov[c]++
			}
		}
		mine = mine[:0]
		for j := k * lo; j < k*hi; j++ {
			if sel[j] {
				mine = append(mine, j)
			}
		}
		slices.SortStableFunc(mine, func(a, b int) int {
			switch {
			case w(a) < w(b):
				return -1
			case w(a) > w(b):
				return 1
			}
			return 0
		})
		for _, j := range mine {
			a, t := j/k-lo, j%k+1
			redundant := true
			for c := a; c < a+t; c++ {
				if cov[c] < 2 {
					redundant = false
					break
				}
			}
			if redundant {
				sel[j] = false
				uses[p.str[j]]--
				for c := a; c < a+t; c++ {
					cov[c]--
				}
			}
		}
	}
	return sel, nil
}
