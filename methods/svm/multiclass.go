package svm

import (
	"context"
	"fmt"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// scheme returns the reduction of K > 2 classes the fit uses: Multi, or
// for "auto" liblinear's one-vs-rest on the linear solver and libsvm's
// one-vs-one on the kernel solver.
func (s *SVM) scheme() string {
	switch s.Multi {
	case "ovo", "ovr":
		return s.Multi
	}
	if s.linear() {
		return "ovr"
	}
	return "ovo"
}

// firstSeen returns the classes of train in the order of their first row,
// the order libsvm and liblinear give their labels (svm_group_classes):
// it fixes which class of a pair is +1 and breaks ties of votes.
func firstSeen(train *datasets.Dataset) []int {
	seen := make([]bool, len(train.Classes))
	var order []int
	for i := 0; i < train.Rows(); i++ {
		if c := train.Label(i); !seen[c] {
			seen[c] = true
			order = append(order, c)
		}
	}
	return order
}

// fitMulti fits the binary SVMs of a K-class training set on its rows X
// (train's, or their present columns) under the reduction s.scheme().
func (s *SVM) fitMulti(ctx context.Context, X matrix.Matrix, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if train.Rows() == 0 {
		return nil, fmt.Errorf("svm: dataset %q: empty training set", train.Name)
	}
	order := firstSeen(train)
	k := len(train.Classes)
	if s.scheme() == "ovr" {
		m := &multiModel{k: k, ovr: true, order: order}
		Y := methods.OneVsRest(train)
		for _, c := range order {
			b, err := s.FitBinary(ctx, X, Y[c], env)
			if err != nil {
				return nil, fmt.Errorf("class %q vs rest: %w", train.Classes[c], err)
			}
			m.models = append(m.models, b)
			m.pos = append(m.pos, [2]int{c, -1})
		}
		return m, nil
	}
	// One-vs-one: the rows of the pair's first class (+1), then its
	// second's (−1), each in training order, as libsvm groups them.
	rows := make([][]int, k)
	for i := 0; i < train.Rows(); i++ {
		c := train.Label(i)
		rows[c] = append(rows[c], i)
	}
	var g []float64 // the training Gram matrix, when it fits the cache
	n := train.Rows()
	if !s.linear() && gramFits(n, s.cacheBytes()) {
		var err error
		if g, err = s.gram(X, env); err != nil {
			return nil, fmt.Errorf("svm: %w", err)
		}
	}
	m := &multiModel{k: k, order: order}
	for a := 0; a < len(order); a++ {
		for b := a + 1; b < len(order); b++ {
			ra, rb := rows[order[a]], rows[order[b]]
			idx := append(append(make([]int, 0, len(ra)+len(rb)), ra...), rb...)
			y := make([]float64, len(idx))
			for p := range y {
				y[p] = -1
				if p < len(ra) {
					y[p] = 1
				}
			}
			sub := X.RowsOf(idx)
			var bm *Model
			var err error
			switch {
			case s.linear():
				bm, err = s.fitLinear(ctx, sub, y, env)
			case g != nil:
				bm, err = s.fitKernel(ctx, sub, y, subGram(g, n, idx))
			default:
				bm, err = s.fitKernel(ctx, sub, y, s.columns(sub))
			}
			if err != nil {
				return nil, fmt.Errorf("classes %q vs %q: %w", train.Classes[order[a]], train.Classes[order[b]], err)
			}
			m.models = append(m.models, bm)
			m.pos = append(m.pos, [2]int{a, b})
		}
	}
	return m, nil
}

// subGram returns the Gram matrix of the rows idx of an n×n Gram matrix g.
func subGram(g []float64, n int, idx []int) *gram {
	m := len(idx)
	k := make([]float64, m*m)
	for p, i := range idx {
		row := g[i*n : (i+1)*n]
		out := k[p*m : (p+1)*m]
		for q, j := range idx {
			out[q] = row[j]
		}
	}
	return &gram{n: m, k: k}
}

// multiModel is the binary SVMs of a K-class fit.
//
// One-vs-one (libsvm's svm_predict_values): the SVM of classes a < b (in
// the order of their first training row) votes for a when its decision
// value is > 0, else for b; the class of most votes wins, the earliest of
// the tied classes in that order on a tie. Class c's score is its votes,
// plus 0.5·(K−pos_c)/(K+1) for its position pos_c in that order (so the
// argmax is libsvm's, ties included), plus 0.2/(K+1)·s/(1+|s|) for s the
// sum of the decision values of c's SVMs oriented towards c (as
// scikit-learn's decision_function refines votes): a score ranks rows
// by votes first, then by confidence, which metrics over the scores
// (auc) use.
//
// One-vs-rest (liblinear): class c's score is the decision value of its
// SVM against the rest; the largest wins (Prediction.OneVsRest).
type multiModel struct {
	k      int
	ovr    bool
	order  []int    // the classes in the order of their first training row
	models []*Model // one per pair (ovo) or per class (ovr)
	// pos holds, per model, the positions in order of its classes a < b
	// (ovo), or its class and −1 (ovr).
	pos [][2]int
}

func (m *multiModel) Predict(X matrix.Matrix) *methods.Prediction {
	n, _ := X.Dims()
	sc := make([]float64, n*m.k)
	if m.ovr {
		for t, b := range m.models {
			c := m.pos[t][0]
			for i, v := range b.Decision(X) {
				sc[i*m.k+c] = v
			}
		}
		return &methods.Prediction{Scores: sc, K: m.k, OneVsRest: true}
	}
	conf := make([]float64, n*m.k)
	for t, b := range m.models {
		ca, cb := m.order[m.pos[t][0]], m.order[m.pos[t][1]]
		for i, v := range b.Decision(X) {
			if v > 0 {
				sc[i*m.k+ca]++
			} else {
				sc[i*m.k+cb]++
			}
			conf[i*m.k+ca] += v
			conf[i*m.k+cb] -= v
		}
	}
	k := float64(m.k)
	for p, c := range m.order {
		tie := 0.5 * (k - float64(p)) / (k + 1)
		for i := 0; i < n; i++ {
			s := conf[i*m.k+c]
			sc[i*m.k+c] += tie + 0.2/(k+1)*s/(1+math.Abs(s))
		}
	}
	// A class without training rows gets no votes and ranks last.
	for c := 0; c < m.k; c++ {
		if !m.trained(c) {
			for i := 0; i < n; i++ {
				sc[i*m.k+c] = -1
			}
		}
	}
	return &methods.Prediction{Scores: sc, K: m.k}
}

// trained reports whether class c had training rows.
func (m *multiModel) trained(c int) bool {
	for _, o := range m.order {
		if o == c {
			return true
		}
	}
	return false
}

// Info sums the iterations of the binary SVMs; converged when all did.
func (m *multiModel) Info() methods.Info {
	info := methods.Info{Converged: true}
	for _, b := range m.models {
		info.Iterations += b.info.Iterations
		info.Converged = info.Converged && b.info.Converged
		info.Objective += b.info.Objective
	}
	return info
}
