package compress

import (
	"context"
	"errors"
	"math"
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
	p, _ := newProblem(context.Background(), docs, 5, 0, "")
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
	x, names, err := KGrams(context.Background(), []string{"a b a", "", "b"}, 2, "")
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

// TestCharacterCost: with the dictionary cost in characters, free
// pointers (λ = 0) store each distinct word once, so the storage cost is
// the letters of the vocabulary, every word reconstructed; and on words
// of equal length the units differ by a scale of the pointer cost.
func TestCharacterCost(t *testing.T) {
	docs := strings.Split(prose, ".")
	res, p, sel, err := compress(context.Background(), docs, Options{K: 5, Lambda: 0, Cost: Characters, Tol: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	checkReconstructs(t, res, p, sel)
	letters := 0
	for _, w := range p.vocab {
		letters += len(w)
	}
	if res.Binary != float64(letters) {
		t.Errorf("λ = 0, characters: storage cost %v; want %d, the letters of the distinct words", res.Binary, letters)
	}
	// One-letter words (the paper's Fig. 1, "manamana"): the two units
	// are the same problem, solved the same way. Words of three letters:
	// the cost in characters at 3λ is three times the cost in words at λ,
	// the same problem scaled, so its LP optimum is three times as large.
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range 4 {
		docs := randomDocs(rng, 3+rng.IntN(6), 40, 3+rng.IntN(4))
		three := make([]string, len(docs))
		for i, d := range docs {
			var b strings.Builder
			for _, r := range d {
				b.WriteString(strings.Repeat(string(r), 1+2*bool2int(r != ' ')))
			}
			three[i] = b.String()
		}
		for _, tt := range []struct {
			docs   []string
			factor float64
		}{{docs, 1}, {three, 3}} {
			w, err := Compress(context.Background(), tt.docs, Options{K: 3, Lambda: 0.3, Tol: 1e-6})
			if err != nil {
				t.Fatal(err)
			}
			ch, err := Compress(context.Background(), tt.docs, Options{K: 3, Lambda: 0.3 * tt.factor, Cost: Characters, Tol: 1e-6})
			if err != nil {
				t.Fatal(err)
			}
			if tt.factor == 1 && (!reflect.DeepEqual(w.Dictionary, ch.Dictionary) || ch.Binary != w.Binary) {
				t.Errorf("corpus %d, one-letter words: characters keep %d strings at cost %v; words %d at %v",
					c, len(ch.Dictionary), ch.Binary, len(w.Dictionary), w.Binary)
			}
			// The LP optimum (the first relaxation) scales exactly; the
			// rounded solutions may part, as ADMM's path does.
			if math.Abs(ch.LowerBound-tt.factor*w.LowerBound) > 1e-3*ch.LowerBound {
				t.Errorf("corpus %d, words of %v letters: the relaxation costs %v in characters at %vλ, %v in words at λ (× %v)",
					c, tt.factor, ch.LowerBound, tt.factor, w.LowerBound, tt.factor)
			}
		}
	}
	rep := []string{"ab cd"}
	if _, err := Compress(context.Background(), rep, Options{Cost: "bytes"}); err == nil {
		t.Error("cost bytes: no error")
	}
}

func bool2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTokens: the token kind reaches the compression's and the k-grams'
// words (digits kept as words of their own only with digits).
func TestTokens(t *testing.T) {
	docs := []string{"route 66 and route 66", "route 66"}
	for _, tt := range []struct {
		tokens string
		want   []string
	}{
		{"", []string{"and", "route"}},
		{"digits", []string{"66", "and", "route"}},
	} {
		_, names, err := KGrams(context.Background(), docs, 1, tt.tokens)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(names, tt.want) {
			t.Errorf("KGrams, tokens %q: %v; want %v", tt.tokens, names, tt.want)
		}
		res, err := Compress(context.Background(), docs, Options{K: 1, Lambda: 0.03, Tokens: tt.tokens})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Dictionary, tt.want) {
			t.Errorf("Compress, tokens %q: %v; want %v", tt.tokens, res.Dictionary, tt.want)
		}
	}
	if _, err := Compress(context.Background(), docs, Options{Tokens: "bytes"}); err == nil {
		t.Error("tokens bytes: no error")
	}
}
