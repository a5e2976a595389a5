package active

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/repro-ml/repro/methods"
)

// handPred returns a softmax prediction whose probabilities are exactly
// the rows given (scores log p), with the candidates 0…n−1.
func handPred(rows ...[]float64) *methods.Prediction {
	p := &methods.Prediction{K: len(rows[0])}
	for _, r := range rows {
		for _, v := range r {
			p.Scores = append(p.Scores, math.Log(v))
		}
	}
	return p
}

// Four candidates on which the three measures disagree:
//
//	     P                          least confidence  margin  entropy
//	0  .97 .01 .01 .01             .03              .04     .17
//	1  .31 .29 .29 .11             .69              .98     1.32
//	2  .32 .23 .23 .22             .68              .91     1.37
//	3  .5  .495 .0025 .0025        .5               .995    .72
var fourCands = handPred(
	[]float64{.97, .01, .01, .01},
	[]float64{.31, .29, .29, .11},
	[]float64{.32, .23, .23, .22},
	[]float64{.5, .495, .0025, .0025},
)

func query(n int, pred *methods.Prediction, seed uint64) *Query {
	rows := 0
	if pred != nil {
		rows = pred.Rows()
	} else {
		rows = 4
	}
	cands := make([]int, rows)
	for i := range cands {
		cands[i] = 100 + i
	}
	return &Query{N: n, Candidates: cands, Pred: pred, Rand: rand.New(rand.NewPCG(seed, 1))}
}

func TestTopStrategies(t *testing.T) {
	for _, tc := range []struct {
		strategy string
		want     []int
	}{
		{"least-confidence", []int{1, 2}},
		{"margin", []int{3, 1}},
		{"entropy", []int{2, 1}},
	} {
		s, err := Strategies.Lookup(tc.strategy)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(5) {
			got, err := s.Query(query(2, fourCands, seed))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s (seed %d) picked %v; want %v", tc.strategy, seed, got, tc.want)
			}
		}
	}
}

// Sampled strategies pick each candidate with probability proportional
// to its uncertainty (first draw), and are deterministic in q.Rand.
func TestSampledStrategies(t *testing.T) {
	for _, tc := range []struct {
		strategy string
		u        []float64
	}{
		{"uncertainty", []float64{.03, .69, .68, .5}},
		{"least-confidence-sampled", []float64{.03, .69, .68, .5}},
		{"margin-sampled", []float64{.04, .98, .91, .995}},
		{"entropy-sampled", []float64{entropy([]float64{.97, .01, .01, .01}), entropy([]float64{.31, .29, .29, .11}),
			entropy([]float64{.32, .23, .23, .22}), entropy([]float64{.5, .495, .0025, .0025})}},
	} {
		s, err := Strategies.Lookup(tc.strategy)
		if err != nil {
			t.Fatal(err)
		}
		const draws = 20000
		counts := make([]float64, 4)
		q := query(1, fourCands, 9)
		for range draws {
			got, err := s.Query(q)
			if err != nil {
				t.Fatal(err)
			}
			counts[got[0]]++
		}
		total := 0.0
		for _, v := range tc.u {
			total += v
		}
		for i, c := range counts {
			if want := tc.u[i] / total; math.Abs(c/draws-want) > 0.015 {
				t.Errorf("%s: candidate %d drawn %.3f of the time; want %.3f", tc.strategy, i, c/draws, want)
			}
		}
		a, _ := s.Query(query(3, fourCands, 4))
		b, _ := s.Query(query(3, fourCands, 4))
		if !slices.Equal(a, b) || len(a) != 3 || len(slices.Compact(slices.Sorted(slices.Values(a)))) != 3 {
			t.Errorf("%s: picks %v and %v from one seed; want the same 3 distinct candidates", tc.strategy, a, b)
		}
	}
}

// A candidate of zero uncertainty is drawn only when the uncertain ones
// are exhausted, then uniformly.
func TestSampledZeroUncertainty(t *testing.T) {
	pred := &methods.Prediction{K: 2, Scores: []float64{0, -1000, 0, 0, 0, -1000}} // certain, 50/50, certain
	s, _ := Strategies.Lookup("uncertainty")
	seen := map[int]bool{}
	for seed := range uint64(40) {
		got, err := s.Query(query(2, pred, seed))
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != 1 {
			t.Fatalf("seed %d: first pick %d; want the only uncertain candidate 1", seed, got[0])
		}
		seen[got[1]] = true
	}
	if !seen[0] || !seen[2] {
		t.Errorf("second picks %v; want both certain candidates over 40 seeds", seen)
	}
}

func TestStrategiesWithoutScores(t *testing.T) {
	for _, name := range []string{"entropy", "margin-sampled"} {
		s, _ := Strategies.Lookup(name)
		got, err := s.Query(query(4, nil, 1))
		if err != nil || len(slices.Compact(slices.Sorted(slices.Values(got)))) != 4 {
			t.Errorf("%s without a prediction: %v, %v; want all 4 candidates", name, got, err)
		}
		reg := &methods.Prediction{Values: []float64{1, 2, 3, 4}}
		if _, err := s.Query(query(1, reg, 1)); err == nil {
			t.Errorf("%s on a regression prediction: no error", name)
		}
	}
}
