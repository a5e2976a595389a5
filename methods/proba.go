package methods

import "math"

// Probabilities returns class probabilities from the scores of the
// classification prediction p, n×K row-major, by one conversion for every
// model:
//
//   - a OneVsRest prediction's scores are decision values f_c: the
//     probability of class c is σ(f_c) normalized over the classes, as
//     liblinear estimates them for one-vs-rest logistic regression; a
//     binary model's scores (−f, f) give σ(f);
//   - other scores are logits (a multinomial model): their softmax.
//
// Scores of models that are not logistic (margins of an SVM) become
// probabilities by the same formulas, which preserve their order.
func Probabilities(p *Prediction) []float64 {
	out := make([]float64, len(p.Scores))
	for i := 0; i+p.K <= len(p.Scores); i += p.K {
		row, dst := p.Scores[i:i+p.K], out[i:i+p.K]
		sum := 0.0
		if p.OneVsRest {
			for c, f := range row {
				dst[c] = 1 / (1 + math.Exp(-f))
				sum += dst[c]
			}
		} else {
			hi := math.Inf(-1)
			for _, s := range row {
				hi = math.Max(hi, s)
			}
			for c, s := range row {
				dst[c] = math.Exp(s - hi)
				sum += dst[c]
			}
		}
		for c := range dst {
			dst[c] /= sum
		}
	}
	return out
}
