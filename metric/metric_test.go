package metric_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
)

func classes(labels []int, names ...string) *datasets.Dataset {
	y := make([]float64, len(labels))
	for i, l := range labels {
		y[i] = float64(l)
	}
	return &datasets.Dataset{Name: "t", X: matrix.NewDense(len(y), 1, nil), Y: y, Classes: names}
}

func regression(y ...float64) *datasets.Dataset {
	return &datasets.Dataset{Name: "t", X: matrix.NewDense(len(y), 1, nil), Y: y}
}

func TestMetrics(t *testing.T) {
	bin := classes([]int{0, 1, 1, 0}, "a", "b")
	// Scores: rows 0..3 predict b, b, a, a → one right (row 1) and row 3 right: 2/4.
	binPred := &methods.Prediction{K: 2, Scores: []float64{0, 1, 0, 2, 1, 0, 3, 0}}
	three := classes([]int{0, 1, 2}, "a", "b", "c")
	ovr := &methods.Prediction{K: 3, OneVsRest: true, Scores: []float64{
		1, -1, -1, // right on all three tasks
		1, 1, -1, // task a wrong
		-1, -1, -1, // task c wrong
	}}
	reg := regression(1, 2, 3, 4)
	regPred := &methods.Prediction{Values: []float64{1, 2, 3, 6}}
	tests := []struct {
		metric string
		p      *methods.Prediction
		d      *datasets.Dataset
		want   float64
	}{
		{"accuracy", binPred, bin, 50},
		{"error", binPred, bin, 50},
		// b-score minus a-score: 1, 2, -1, -3; positives rows 1, 2 (scores 2, -1),
		// negatives rows 0, 3 (1, -3): pairs won: (2>1),(2>-3),(-1>-3) = 3 of 4.
		{"auc", binPred, bin, 0.75},
		{"binary_errors", ovr, three, 2},
		{"accuracy", ovr, three, 100.0 / 3},
		{"mse", regPred, reg, 1},
		{"rmse", regPred, reg, 1},
		{"mae", regPred, reg, 0.5},
		// ss_tot = 5, ss_res = 4 → r² = 0.2
		{"r2", regPred, reg, 0.2},
	}
	for _, tc := range tests {
		got, err := metric.Evaluate(tc.metric, tc.p, tc.d.Truth())
		if err != nil {
			t.Errorf("%s: %v", tc.metric, err)
			continue
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tc.metric, got, tc.want)
		}
	}
}

func TestTaskErrors(t *testing.T) {
	three := classes([]int{0, 1, 2}, "a", "b", "c")
	ovr := &methods.Prediction{K: 3, OneVsRest: true, Scores: []float64{1, -1, -1, 1, 1, -1, -1, -1, -1}}
	got := metric.Details("binary_errors", ovr, three.Truth())
	want := map[string]float64{"a": 1, "b": 0, "c": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Details = %v, want %v", got, want)
	}
	if d := metric.Details("accuracy", ovr, three.Truth()); d != nil {
		t.Errorf("accuracy has no details, got %v", d)
	}
}

func TestAUCTies(t *testing.T) {
	// All scores tied: AUC 0.5. One class absent: NaN.
	if a := metric.AUC([]float64{1, 1, 1, 1}, []bool{true, false, true, false}); a != 0.5 {
		t.Errorf("tied AUC = %v, want 0.5", a)
	}
	if a := metric.AUC([]float64{1, 2}, []bool{true, true}); !math.IsNaN(a) {
		t.Errorf("one-class AUC = %v, want NaN", a)
	}
}

// rankSumAUC is the rank-sum form of the AUC, (R₊ − n₊(n₊+1)/2)/(n₊n₋),
// with tied scores given their average rank: the reference AUC must equal
// exactly.
func rankSumAUC(score []float64, pos []bool) float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return score[idx[a]] < score[idx[b]] })
	var np, nn, rankSum float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && score[idx[j]] == score[idx[i]] {
			j++
		}
		for _, t := range idx[i:j] {
			if pos[t] {
				rankSum += float64(i+j+1) / 2
				np++
			} else {
				nn++
			}
		}
		i = j
	}
	return (rankSum - np*(np+1)/2) / (np * nn)
}

// TestAUCRankSum checks AUC against the rank-sum form, bit for bit, on
// random scores with many ties, few ties and one positive or negative, and
// against a count of pairs on a small case.
func TestAUCRankSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n := 2 + rng.IntN(400)
		levels := []int{2, 5, 50, 1 << 30}[trial%4] // distinct score values
		score, pos := make([]float64, n), make([]bool, n)
		for i := range score {
			score[i] = float64(rng.IntN(levels))/7 - 3
			pos[i] = rng.Float64() < []float64{0.5, 0.1, 0.9}[trial%3]
		}
		if trial%5 == 0 { // a single positive
			for i := range pos {
				pos[i] = i == n/2
			}
		}
		want := rankSumAUC(score, pos)
		if got := metric.AUC(score, pos); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("trial %d (n %d): AUC = %v, rank-sum form %v", trial, n, got, want)
		}
	}
	// Pairs (pos, neg): (3,1) (3,2) right, (3,3) tie, (2,1) right, (2,2)
	// tie, (2,3) wrong: (3 + 2·½)/6.
	if got, want := metric.AUC([]float64{3, 2, 1, 2, 3}, []bool{true, true, false, false, false}), 4.0/6; got != want {
		t.Errorf("AUC = %v, want %v", got, want)
	}
}

func TestMetricErrors(t *testing.T) {
	bin := classes([]int{0, 1}, "a", "b")
	reg := regression(1, 2)
	tests := []struct {
		metric string
		p      *methods.Prediction
		d      *datasets.Dataset
		want   string
	}{
		{"mse", &methods.Prediction{K: 2, Scores: make([]float64, 4)}, bin, "does not apply to classification"},
		{"accuracy", &methods.Prediction{Values: []float64{1, 2}}, reg, "does not apply to regression"},
		{"binary_errors", &methods.Prediction{K: 2, Scores: make([]float64, 4)}, bin, "needs a one-vs-rest prediction"},
		{"accuracy", &methods.Prediction{K: 2, Scores: make([]float64, 2)}, bin, "has 2 scores, want 2×2"},
		{"acuracy", &methods.Prediction{K: 2, Scores: make([]float64, 4)}, bin, `did you mean "accuracy"`},
	}
	for _, tc := range tests {
		_, err := metric.Evaluate(tc.metric, tc.p, tc.d.Truth())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.metric, err, tc.want)
		}
	}
}

func ExampleEvaluate() {
	test := classes([]int{0, 1, 1}, "no", "yes")
	p := &methods.Prediction{K: 2, Scores: []float64{
		0.9, 0.1, // no  (right)
		0.2, 0.8, // yes (right)
		0.6, 0.4, // no  (wrong)
	}}
	acc, _ := metric.Evaluate("accuracy", p, test.Truth())
	fmt.Printf("accuracy %.1f%%\n", acc)
	// Output: accuracy 66.7%
}

// TestAUCWeighted checks the multi-class averages against AUCs counted by
// hand: class 0 (2 rows) 4/8, class 1 (1 row) 5/5, class 2 (3 rows) 7/9;
// auc is their plain mean, auc_weighted (Weka's weightedAreaUnderROC)
// weights them 2:1:3. With two classes both are the one AUC.
func TestAUCWeighted(t *testing.T) {
	three := classes([]int{0, 0, 1, 2, 2, 2}, "a", "b", "c")
	cols := [][]float64{
		{0.9, 0.1, 0.5, 0.2, 0.3, 0.4},
		{0, 0, 1, 0, 0, 0},
		{0.8, 0, 0, 0.9, 0.1, 0.2},
	}
	p := &methods.Prediction{K: 3, OneVsRest: true, Scores: make([]float64, 18)}
	for c, col := range cols {
		for i, v := range col {
			p.Scores[i*3+c] = v
		}
	}
	bin := classes([]int{0, 1, 1, 0}, "a", "b")
	pb := &methods.Prediction{K: 2, OneVsRest: true, Scores: []float64{-0.2, 0.2, -0.7, 0.7, 0.1, -0.1, -0.9, 0.9}}
	for _, tc := range []struct {
		metric string
		p      *methods.Prediction
		d      *datasets.Dataset
		want   float64
	}{
		{"auc", p, three, (0.5 + 1 + 7.0/9) / 3},
		{"auc_weighted", p, three, (2*0.5 + 1 + 3*7.0/9) / 6},
		{"auc", pb, bin, 0.25}, // class b: 0.7 beats 0.2 only: 1 of 4 pairs
		{"auc_weighted", pb, bin, 0.25},
	} {
		got, err := metric.Evaluate(tc.metric, tc.p, tc.d.Truth())
		if err != nil || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s on %d classes = %v, %v; want %v", tc.metric, len(tc.d.Classes), got, err, tc.want)
		}
	}
}

// TestScorer: a Scorer gives every metric's value, bit for bit, and its
// errors, as Evaluate: auc and auc_weighted from their shared AUCs, on
// one-vs-rest, softmax and binary predictions with ties and an absent
// class.
func TestScorer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		k   int
		ovr bool
	}{{7, true}, {3, false}, {2, false}, {2, true}} {
		n := 200
		labels := make([]int, n)
		for i := range labels {
			labels[i] = rng.IntN(tc.k)
			if tc.k > 2 && labels[i] == 1 {
				labels[i] = 0 // class 1 absent: its AUC is NaN
			}
		}
		names := make([]string, tc.k)
		for c := range names {
			names[c] = fmt.Sprint("c", c)
		}
		test := classes(labels, names...).Truth()
		p := &methods.Prediction{K: tc.k, OneVsRest: tc.ovr, Scores: make([]float64, n*tc.k)}
		for i := range p.Scores {
			p.Scores[i] = float64(rng.IntN(20)) / 4 // ties
		}
		sc := metric.NewScorer(p, test)
		for _, name := range append(metric.Names(), "no-such-metric") {
			want, werr := metric.Evaluate(name, p, test)
			got, gerr := sc.Evaluate(name)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("K %d ovr %t, %s: error %v, Evaluate's %v", tc.k, tc.ovr, name, gerr, werr)
			}
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("K %d ovr %t, %s: %v, Evaluate gives %v", tc.k, tc.ovr, name, got, want)
			}
		}
		if a, _ := sc.Evaluate("auc"); math.IsNaN(a) || a == 0 {
			t.Errorf("K %d: auc %v", tc.k, a)
		}
	}
}
