package conformance_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/protocols/active"
)

// The active protocol's params of TestStrategies's runs: four batches of 7
// and one cut to 6 by the budget.
const (
	strategyInitial = 10
	strategyBatch   = 7
	strategyBudget  = 38
)

// queryCandidates are the suite's unlabelled candidates: 40 dataset rows
// that are not 0…39, so that a strategy returning row numbers rather than
// indices into Candidates is caught.
func queryCandidates() []int {
	out := make([]int, 40)
	for i := range out {
		out[i] = 1000 + 3*i
	}
	return out
}

// queryPreds returns predictions on n candidates a strategy may be given:
// none (before the first model), three-class softmax scores, binary scores
// with ties (the same scores on every fourth row), and one-vs-rest decision
// values.
func queryPreds(n int) map[string]*metric.Prediction {
	r := rand.New(rand.NewPCG(34, 4))
	scores := func(k int) []float64 {
		s := make([]float64, n*k)
		for i := range s {
			s[i] = r.NormFloat64()
		}
		return s
	}
	binary := scores(2)
	for i := 0; i < n; i += 4 {
		binary[2*i], binary[2*i+1] = 0.5, -0.5
	}
	return map[string]*metric.Prediction{
		"none":        nil,
		"three-class": {K: 3, Scores: scores(3)},
		"binary-ties": {K: 2, Scores: binary},
		"one-vs-rest": {K: 3, Scores: scores(3), OneVsRest: true},
	}
}

// TestStrategies checks every registered query strategy, first on its own:
// for each prediction of queryPreds and batch sizes 1, 7 and every
// candidate, Query returns exactly N distinct indices into the candidates
// (only unlabelled rows, the batch size respected), the same ones for the
// same random source (deterministic per seed), and leaves the candidates
// and the prediction unchanged; a Blind strategy chooses the same without
// the prediction as with it. Then in the active protocol on iris: every
// trial succeeds (the protocol refuses a pick outside the unlabelled
// candidates), its labelled counts grow by the batch to the budget, and a
// second run, at another -j, gives the same results.
func TestStrategies(t *testing.T) {
	for _, name := range active.Strategies.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st, err := active.Strategies.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			if st.Doc == "" || st.Query == nil {
				t.Fatalf("Doc and Query must be set (Doc %q)", st.Doc)
			}
			cands := queryCandidates()
			preds := queryPreds(len(cands))
			for _, pn := range slices.Sorted(maps.Keys(preds)) {
				pred := preds[pn]
				for _, n := range []int{1, 7, len(cands)} {
					t.Run(fmt.Sprintf("%s/n=%d", pn, n), func(t *testing.T) {
						checkQuery(t, st, cands, pred, preds["three-class"], n)
					})
				}
			}
			sp := parseSpec(t, fmt.Sprintf(`name: conform-strategy
seed: 13
datasets: [{name: iris, split: {kind: holdout, test: 50, stratify: true}}]
methods:
  - {name: logreg-l2, label: probe}
protocol: {name: active, initial: %d, batch: %d, budget: %d, strategy: %s}
curve: {trials: 2}
metrics: [accuracy]
`, strategyInitial, strategyBatch, strategyBudget, name))
			one := runSpec(t, sp, t.TempDir(), 1)
			var want []float64
			for x := strategyInitial; ; x += strategyBatch {
				want = append(want, float64(min(x, strategyBudget)))
				if x >= strategyBudget {
					break
				}
			}
			for _, r := range one.Results {
				var got []float64
				for _, o := range r.Points() {
					got = append(got, o.X)
				}
				if !slices.Equal(got, want) {
					t.Errorf("trial %d: labelled rows %v at the observations, want %v", r.Trial, got, want)
				}
			}
			two := runSpec(t, sp, t.TempDir(), 2)
			sameResults(t, one.Results, two.Results)
		})
	}
}

// checkQuery checks one query of strategy st for n of the candidates cands
// under prediction pred; other is a prediction a Blind strategy must ignore.
func checkQuery(t *testing.T, st *active.Strategy, cands []int, pred, other *metric.Prediction, n int) {
	t.Helper()
	query := func(pred *metric.Prediction, seed uint64) []int {
		t.Helper()
		c := slices.Clone(cands)
		var keep *metric.Prediction
		if pred != nil {
			cp := *pred
			cp.Scores = slices.Clone(pred.Scores)
			keep = &cp
		}
		q := &active.Query{N: n, Candidates: c, Pred: pred, Rand: rand.New(rand.NewPCG(seed, 9))}
		picked, err := st.Query(q)
		if err != nil {
			t.Fatalf("Query(N=%d): %v", n, err)
		}
		if !slices.Equal(c, cands) {
			t.Error("Query changed the candidates")
		}
		if pred != nil && !reflect.DeepEqual(*pred, *keep) {
			t.Error("Query changed the prediction")
		}
		return picked
	}
	picked := query(pred, 1)
	if len(picked) != n {
		t.Fatalf("Query(N=%d) returned %d candidates, want %d", n, len(picked), n)
	}
	seen := map[int]bool{}
	for _, i := range picked {
		if i < 0 || i >= len(cands) {
			t.Fatalf("returned %d: not an index into the %d candidates", i, len(cands))
		}
		if seen[i] {
			t.Fatalf("returned candidate %d twice: %v", i, picked)
		}
		seen[i] = true
	}
	if again := query(pred, 1); !slices.Equal(again, picked) {
		t.Errorf("the same random source gave %v, then %v", picked, again)
	}
	if st.Blind && pred == nil {
		if with := query(other, 1); !slices.Equal(with, picked) {
			t.Errorf("a Blind strategy chose %v without a prediction and %v with one", picked, with)
		}
	}
}
