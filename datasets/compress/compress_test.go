package compress

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// prose is a few sentences of real text, with repeats as text has.
const prose = `The binary constraint makes the problem non-convex. We solve it
approximately via a series of related convex problems that converge to a good
optimum. Each problem relaxes the binary constraint and solves a weighted
optimization problem. The binary constraint makes the problem hard; the relaxed
problem is a linear program, and the linear program is solved by ADMM.`

// checkReconstructs fails t unless the selected pointers cover every word
// of every document, and the features count them.
func checkReconstructs(t *testing.T, res *Result, p *problem, sel []bool) {
	t.Helper()
	k := p.k
	for i := 0; i < p.docs(); i++ {
		lo, hi := p.start[i], p.start[i+1]
		cov := make([]int, hi-lo)
		n := 0
		for j := k * lo; j < k*hi; j++ {
			if !sel[j] {
				continue
			}
			if p.str[j] < 0 {
				t.Fatalf("doc %d: dead slot %d selected", i, j)
			}
			n++
			a, tl := j/k-lo, j%k+1
			for b := a; b < a+tl; b++ {
				cov[b]++
			}
		}
		for b, c := range cov {
			if c == 0 {
				t.Errorf("doc %d: word %d (%q) not reconstructed", i, b, p.vocab[p.words[lo+b]])
			}
		}
		sum := 0.0
		res.X.Row(i, func(_ int, v float64) { sum += v })
		if int(sum) != n {
			t.Errorf("doc %d: features count %v pointers, the solution has %d", i, sum, n)
		}
	}
}

// TestReconstructs compresses random corpora (with empty and one-word
// documents) and real text at several λ and k: the binary solution covers
// every word, and costs at least the relaxation's optimum.
func TestReconstructs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	corpora := map[string][]string{
		"empty":      {""},
		"one word":   {"word"},
		"edge docs":  {"", "a", "a b", "", "a b a b a b a", "b"},
		"prose":      strings.Split(prose, "."),
		"prose+docs": append(strings.Split(prose, "\n"), "", "optimum"),
	}
	for i := range 6 {
		corpora["random"+string(rune('0'+i))] = randomDocs(rng, 1+rng.IntN(8), 30, 2+rng.IntN(6))
	}
	for name, docs := range corpora {
		for _, k := range []int{1, 3, 5} {
			for _, lambda := range []float64{0, 0.03, 1, 10} {
				res, p, sel, err := compress(context.Background(), docs, Options{K: k, Lambda: lambda, Tol: 1e-4})
				if err != nil {
					t.Fatalf("%s k=%d λ=%v: %v", name, k, lambda, err)
				}
				checkReconstructs(t, res, p, sel)
				// The relaxation bounds (1) from below, up to ADMM's tolerance.
				if res.Words > 0 && res.Binary < res.LowerBound*(1-1e-2) {
					t.Errorf("%s k=%d λ=%v: binary cost %v below the relaxation's %v", name, k, lambda, res.Binary, res.LowerBound)
				}
			}
		}
	}
}

// TestLambdaExtremes checks the two ends of the regularization path: with
// free pointers (λ = 0) the cheapest dictionary costs one per distinct
// word, as the unigrams do, and with nearly free pointers on words that
// occur in several contexts it is the unigrams; with very expensive
// pointers the fewest pointers are the longest k-grams.
func TestLambdaExtremes(t *testing.T) {
	docs := strings.Split(prose, ".")
	res, err := Compress(context.Background(), docs, Options{K: 5, Lambda: 0, Tol: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := newProblem(context.Background(), docs, 5, 0)
	if res.Binary != float64(len(p.vocab)) {
		t.Errorf("λ = 0: storage cost %v; want %d, the unigrams' (one per distinct word)", res.Binary, len(p.vocab))
	}
	perms := []string{"a b c", "a c b", "b a c", "b c a", "c a b", "c b a", "a b c a"}
	res, err = Compress(context.Background(), perms, Options{K: 3, Lambda: 1e-3, Tol: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(res.Dictionary, want) {
		t.Errorf("λ = 0.001: dictionary %q; want the unigrams %q", res.Dictionary, want)
	}
	// Two copies of a 20-word sentence: 4 pointers of 5 words each cover
	// a copy.
	sentence := "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
	res, err = Compress(context.Background(), []string{sentence, sentence}, Options{K: 5, Lambda: 1000, Tol: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pointers != 8 {
		t.Errorf("λ = 1000: %d pointers; want 8 (20 words each in 5-grams)", res.Pointers)
	}
	for _, s := range res.Dictionary {
		if n := strings.Count(s, "_") + 1; n != 5 {
			t.Errorf("λ = 1000: dictionary holds %q, %d words; want 5-grams only", s, n)
		}
	}
}

// TestDeterministic compresses with 1, 3 and 4 workers: the results agree
// exactly (the larger corpus has several chunks of documents in the count
// matrix too).
func TestDeterministic(t *testing.T) {
	for _, n := range []int{40, 300} {
		docs := randomDocs(rand.New(rand.NewPCG(9, 9)), n, 60, 5)
		var results []*Result
		for _, w := range []int{1, 3, 4} {
			res, err := Compress(context.Background(), docs, Options{Lambda: 0.5, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			res.Seconds = 0
			results = append(results, res)
		}
		for i, w := range []int{3, 4} {
			if !reflect.DeepEqual(results[0], results[i+1]) {
				t.Errorf("%d documents: 1 and %d workers differ:\n%+v\n%+v", n, w, results[0], results[i+1])
			}
		}
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Compress(ctx, []string{prose}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v; want context.Canceled", err)
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, o := range []Options{{K: -1}, {K: MaxK + 1}, {Lambda: -1}, {Epsilon: -1}, {Rounds: -2}, {Tol: -1}, {MaxIter: -5}} {
		if _, err := Compress(context.Background(), []string{"a b"}, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestKGrams checks the bag of k-grams against counting by hand.
func TestKGrams(t *testing.T) {
	x, names, err := KGrams(context.Background(), []string{"a b a", "", "b"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "a_b", "b", "b_a"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names %q; want %q", names, want)
	}
	want := [][]float64{{2, 1, 1, 1}, {0, 0, 0, 0}, {0, 0, 1, 0}}
	for i, row := range want {
		for j, v := range row {
			if got := x.At(i, j); got != v {
				t.Errorf("x[%d][%d] = %v; want %v", i, j, got, v)
			}
		}
	}
}
