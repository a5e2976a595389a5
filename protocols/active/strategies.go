package active

import (
	"errors"
	"math"
	"slices"

	"github.com/repro-ml/repro/methods"
)

// The uncertainty query strategies of the active protocol: the standard
// ones of modAL, libact, small-text and ALiPy, each choosing either the n
// most uncertain candidates (top) or n candidates drawn without replacement
// with probability proportional to their uncertainty (sampled, as Bilgic
// after Saar-Tsechansky and Provost). Top and sampled are separate names
// rather than a param, so that `strategy: margin-sampled` is all an
// experiment says.
//
// A strategy reads the class probabilities methods.Probabilities derives
// from the model's scores on the candidates (σ of one-vs-rest decision
// values, normalized; softmax of logits), never the candidates' labels.
// Ties in top selection fall in an order drawn from the query's random
// source, so a model that is equally unsure everywhere queries at random,
// not by row index.
func init() {
	for _, u := range []struct {
		name, doc string
		measure   func(p []float64) float64
	}{
		{"least-confidence", "1 − max_y P(y|x)", leastConfidence},
		{"margin", "1 − (P(y₁|x) − P(y₂|x)) for the two most probable classes", margin},
		{"entropy", "the entropy −Σ_y P(y|x) log P(y|x)", entropy},
	} {
		Strategies.Register(u.name, &Strategy{
			Doc:   "the n candidates of largest uncertainty " + u.doc + " (ties in random order)",
			Query: uncertaintyQuery(u.measure, false),
		})
		Strategies.Register(u.name+"-sampled", &Strategy{
			Doc:   "n candidates drawn without replacement with probability proportional to the uncertainty " + u.doc,
			Query: uncertaintyQuery(u.measure, true),
		})
	}
	Strategies.Register("uncertainty", &Strategy{
		Doc: "Bilgic's uncertainty sampling: n candidates drawn without replacement with probability proportional to 1 − max_y P(y|x) " +
			"(the same as least-confidence-sampled)",
		Query: uncertaintyQuery(leastConfidence, true),
	})
}

// uncertaintyQuery returns the Query of a strategy that measures each
// candidate's uncertainty from its class probabilities and takes the top
// q.N, or samples q.N in proportion to it.
func uncertaintyQuery(measure func(p []float64) float64, sampled bool) func(q *Query) ([]int, error) {
	return func(q *Query) ([]int, error) {
		u, err := uncertainties(q, measure)
		if err != nil {
			return nil, err
		}
		if sampled {
			return sampleProportional(u, q), nil
		}
		return topN(u, q), nil
	}
}

// uncertainties returns the uncertainty of every candidate of q; all 1
// when there is no prediction yet.
func uncertainties(q *Query, measure func(p []float64) float64) ([]float64, error) {
	u := make([]float64, len(q.Candidates))
	if q.Pred == nil {
		for i := range u {
			u[i] = 1
		}
		return u, nil
	}
	if q.Pred.K < 2 || q.Pred.Rows() != len(q.Candidates) {
		return nil, errors.New("needs class scores for every candidate (a classification model)")
	}
	probs := methods.Probabilities(q.Pred)
	k := q.Pred.K
	for i := range u {
		u[i] = measure(probs[i*k : (i+1)*k])
	}
	return u, nil
}

func leastConfidence(p []float64) float64 { return 1 - slices.Max(p) }

func margin(p []float64) float64 {
	first, second := math.Inf(-1), math.Inf(-1)
	for _, v := range p {
		if v > first {
			first, second = v, first
		} else if v > second {
			second = v
		}
	}
	return 1 - (first - second)
}

func entropy(p []float64) float64 {
	h := 0.0
	for _, v := range p {
		if v > 0 {
			h -= v * math.Log(v)
		}
	}
	return h
}

// topN returns the q.N candidates of largest uncertainty u, ties in an
// order drawn from q.Rand.
func topN(u []float64, q *Query) []int {
	order := q.Rand.Perm(len(u))
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case u[a] > u[b]:
			return -1
		case u[a] < u[b]:
			return 1
		}
		return 0
	})
	return order[:q.N]
}

// sampleProportional draws q.N candidates without replacement, each draw
// with probability proportional to the remaining candidates' uncertainty
// u; uniformly when every remaining candidate has uncertainty 0.
func sampleProportional(u []float64, q *Query) []int {
	w := make([]float64, len(u))
	for i, v := range u {
		w[i] = math.Max(v, 0)
	}
	out := make([]int, 0, q.N)
	taken := make([]bool, len(u))
	for len(out) < q.N {
		total := 0.0
		for i, v := range w {
			if !taken[i] {
				total += v
			}
		}
		pick := -1
		if total > 0 {
			r := q.Rand.Float64() * total
			for i, v := range w {
				if taken[i] || v == 0 {
					continue
				}
				pick = i // the last positive weight absorbs rounding
				if r < v {
					break
				}
				r -= v
			}
		} else {
			k := q.Rand.IntN(len(u) - len(out))
			for i := range taken {
				if taken[i] {
					continue
				}
				if k == 0 {
					pick = i
					break
				}
				k--
			}
		}
		taken[pick] = true
		out = append(out, pick)
	}
	return out
}
