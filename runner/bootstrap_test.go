package runner

import (
	"math"
	"slices"
	"testing"

	"github.com/repro-ml/repro/metric"
)

// binaryPrediction returns scores (−s, s) per row predicting class 1 where
// pred[i], and the truth y.
func binaryPrediction(pred []bool, y []float64) (*metric.Prediction, metric.Truth) {
	p := &metric.Prediction{K: 2, Scores: make([]float64, 2*len(pred))}
	for i, b := range pred {
		s := -1.0
		if b {
			s = 1
		}
		p.Scores[2*i], p.Scores[2*i+1] = -s, s
	}
	return p, metric.Truth{Y: y, Classes: []string{"a", "b"}}
}

func TestBootstrap(t *testing.T) {
	const n, b = 400, 300
	y := make([]float64, n)
	pred := make([]bool, n)
	for i := range y {
		y[i] = float64(i % 2)
		pred[i] = y[i] == 1
		if i%5 == 0 { // 20% wrong
			pred[i] = !pred[i]
		}
	}
	p, truth := binaryPrediction(pred, y)
	s, err := Bootstrap([]string{"accuracy", "error"}, p, truth, b, 7)
	if err != nil {
		t.Fatal(err)
	}
	acc, errs := s["accuracy"], s["error"]
	if len(acc) != b || len(errs) != b {
		t.Fatalf("%d and %d resamples; want %d", len(acc), len(errs), b)
	}
	var mean, ss float64
	for r := range acc {
		if math.Abs(acc[r]+errs[r]-100) > 1e-9 {
			t.Fatalf("resample %d: accuracy %v + error %v ≠ 100: metrics saw different rows", r, acc[r], errs[r])
		}
		mean += acc[r]
	}
	mean /= b
	for _, v := range acc {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / (b - 1))
	// The binomial standard error of an 80% accuracy on 400 rows is 2 points.
	if math.Abs(mean-80) > 0.5 {
		t.Errorf("mean of resampled accuracies %v; want 80 ± 0.5", mean)
	}
	if sd < 1.6 || sd > 2.4 {
		t.Errorf("sd of resampled accuracies %v; want the binomial 2.0 ± 0.4", sd)
	}
	again, _ := Bootstrap([]string{"accuracy"}, p, truth, b, 7)
	if !slices.Equal(again["accuracy"], acc) {
		t.Error("same seed, different resamples")
	}
	other, _ := Bootstrap([]string{"accuracy"}, p, truth, b, 8)
	if slices.Equal(other["accuracy"], acc) {
		t.Error("another seed, the same resamples")
	}

	// Paired: a second prediction right on one more row (row 0) differs on
	// each resample by 100/n times the number of draws of row 0.
	pred2 := slices.Clone(pred)
	pred2[0] = !pred2[0]
	p2, _ := binaryPrediction(pred2, y)
	s2, _ := Bootstrap([]string{"accuracy"}, p2, truth, b, 7)
	for r, v := range s2["accuracy"] {
		k := (v - acc[r]) / (100.0 / n)
		if k < -1e-9 || math.Abs(k-math.Round(k)) > 1e-6 {
			t.Fatalf("resample %d: difference %v is not a whole number of draws of row 0: resamples not paired", r, v-acc[r])
		}
	}

	// A perfect prediction is perfect on every resample.
	perfect, _ := binaryPrediction(slices.Collect(func(yield func(bool) bool) {
		for _, v := range y {
			if !yield(v == 1) {
				return
			}
		}
	}), y)
	sp, _ := Bootstrap([]string{"error"}, perfect, truth, 20, 1)
	for _, v := range sp["error"] {
		if v != 0 {
			t.Fatalf("perfect prediction: resampled error %v", v)
		}
	}

	if _, err := Bootstrap([]string{"accuracy"}, p, metric.Truth{Y: y[:10], Classes: truth.Classes}, 5, 1); err == nil {
		t.Error("prediction of 400 rows for 10 test rows: no error")
	}
}
