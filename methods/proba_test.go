package methods

import (
	"math"
	"testing"
)

func TestProbabilities(t *testing.T) {
	sig := func(f float64) float64 { return 1 / (1 + math.Exp(-f)) }
	for _, tc := range []struct {
		name string
		p    *Prediction
		want []float64
	}{
		{"binary", &Prediction{K: 2, OneVsRest: true, Scores: []float64{-2, 2, 0, 0}},
			[]float64{sig(-2), sig(2), 0.5, 0.5}},
		{"one-vs-rest", &Prediction{K: 3, OneVsRest: true, Scores: []float64{1, -1, -1}},
			[]float64{sig(1) / (sig(1) + 2*sig(-1)), sig(-1) / (sig(1) + 2*sig(-1)), sig(-1) / (sig(1) + 2*sig(-1))}},
		{"softmax", &Prediction{K: 3, Scores: []float64{0, math.Log(2), math.Log(5)}},
			[]float64{0.125, 0.25, 0.625}},
		{"softmax large logits", &Prediction{K: 2, Scores: []float64{1000, 1000}},
			[]float64{0.5, 0.5}},
	} {
		got := Probabilities(tc.p)
		for i := range tc.want {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s: got %v; want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}
