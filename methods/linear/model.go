package linear

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// scoreKind says how a classifier's decision functions become scores.
type scoreKind int

const (
	// binaryScores: one decision function f for class 1; scores (−f, f).
	binaryScores scoreKind = iota
	// ovrScores: one decision function per class, one-vs-rest.
	ovrScores
	// softmaxScores: one linear logit per class; classes absent from the
	// training set score below every present class.
	softmaxScores
)

// classifier is a fitted linear classifier: decision functions
// fₖ(x) = W[k]ᵀx + B[k].
type classifier struct {
	d       int
	K       int // number of classes
	kind    scoreKind
	W       [][]float64
	B       []float64
	present []bool // softmaxScores: classes seen in training
	info    methods.Info
}

// Info reports the fit's total iterations, whether every sub-problem
// converged, and the sum of the sub-problems' objective values.
func (m *classifier) Info() methods.Info { return m.info }

// Predict returns n×K scores: decision values (OneVsRest) for the binary
// and one-vs-rest models, linear logits for the multinomial one.
func (m *classifier) Predict(X matrix.Matrix) *methods.Prediction {
	n, d := X.Dims()
	if d != m.d {
		panic(fmt.Sprintf("linear: Predict: %d columns, model has %d", d, m.d))
	}
	p := &methods.Prediction{K: m.K, Scores: make([]float64, n*m.K), OneVsRest: m.kind != softmaxScores}
	z := make([]float64, n)
	prod := &product{X: X}
	switch m.kind {
	case binaryScores:
		prod.mulVec(z, m.W[0])
		for i, v := range z {
			f := v + m.B[0]
			p.Scores[2*i], p.Scores[2*i+1] = -f, f
		}
	default:
		// Classes whose weights are mostly zero (an L1 fit's) take
		// their own product over their non-zero columns; the others go
		// together.
		var ks []int
		for k := range m.W {
			if m.W[k] != nil && !prod.sparse(m.W[k]) {
				ks = append(ks, k)
			}
		}
		// On dense rows (and the runner's views of them) the K products
		// read X once (matrix.MultiVec), with the same values as K
		// MulVecs.
		zs := make([][]float64, len(ks))
		if mv, ok := X.(matrix.MultiVec); ok && len(ks) > 1 {
			ws := make([][]float64, len(ks))
			for c, k := range ks {
				zs[c], ws[c] = make([]float64, n), m.W[k]
			}
			mv.MulVecs(zs, ws)
		}
		for c, k := range ks {
			if zs[c] == nil {
				zs[c] = z
				X.MulVec(z, m.W[k])
			}
			for i, v := range zs[c] {
				p.Scores[i*m.K+k] = v + m.B[k]
			}
		}
		for k, w := range m.W {
			if w == nil || slices.Contains(ks, k) {
				continue
			}
			prod.mulVec(z, w)
			for i, v := range z {
				p.Scores[i*m.K+k] = v + m.B[k]
			}
		}
		if m.kind == softmaxScores {
			for i := 0; i < n; i++ {
				row := p.Scores[i*m.K : (i+1)*m.K]
				lo := math.Inf(1)
				for k, v := range row {
					if m.present[k] {
						lo = math.Min(lo, v)
					}
				}
				for k := range row {
					if !m.present[k] {
						row[k] = lo - 1
					}
				}
			}
		}
	}
	return p
}

// product multiplies X by weight vectors, an L1 model's over their
// non-zero columns alone when that is cheaper: X stores its rows densely
// and at most a quarter of w is non-zero, as in an L1 fit on all
// principal components. On sparse rows X·w already costs nnz(X).
type product struct {
	X     matrix.Matrix
	dense int // 1: X stores its rows densely, −1: not, 0: not yet known
}

// sparse reports whether X·w is taken over w's non-zero columns.
func (p *product) sparse(w []float64) bool {
	n, d := p.X.Dims()
	if d < 16 {
		return false
	}
	nz := 0
	for _, v := range w {
		if v != 0 {
			nz++
		}
	}
	if 4*nz > d {
		return false
	}
	if p.dense == 0 {
		p.dense = -1
		if p.X.NNZ() >= n*d/2 {
			p.dense = 1
		}
	}
	return p.dense > 0
}

// mulVec sets dst = X·w.
func (p *product) mulVec(dst, w []float64) {
	if !p.sparse(w) {
		p.X.MulVec(dst, w)
		return
	}
	var cols []int
	var vals []float64
	for j, v := range w {
		if v != 0 {
			cols, vals = append(cols, j), append(vals, v)
		}
	}
	if len(cols) == 0 {
		clear(dst)
		return
	}
	p.X.ColsOf(cols).MulVec(dst, vals)
}

// signs returns the ±1 targets of the one-vs-rest task for class c, in
// out if it has room.
func signs(out, y []float64, c int) []float64 {
	if len(out) != len(y) {
		out = make([]float64, len(y))
	}
	for i, v := range y {
		out[i] = -1
		if int(v) == c {
			out[i] = 1
		}
	}
	return out
}

// oneSided reports whether all targets are +1 (or all −1), returning the
// constant decision value a model should then output.
func oneSided(y []float64) (bool, float64) {
	pos, neg := 0, 0
	for _, v := range y {
		if v > 0 {
			pos++
		} else {
			neg++
		}
	}
	switch {
	case neg == 0:
		return true, 1
	case pos == 0:
		return true, -1
	}
	return false, 0
}

// binaryFit fits one binary problem with ±1 targets, returning w, b and how
// the fit went. start, if not nil, is a starting point (w, b) of length
// d+1.
type binaryFit func(X matrix.Matrix, y []float64, start []float64) (w []float64, b float64, info methods.Info, err error)

// fitOVR fits a binary model (K = 2) or K one-vs-rest models with fit. A
// task whose targets are all of one sign (a class absent from the training
// sample, or the only class present) gets the constant model w = 0, b = ±1.
// With warm (a model of the same kind, columns and classes, see
// warmModel) each task starts from warm's solution of the same task.
func fitOVR(X matrix.Matrix, y []float64, K int, fit binaryFit, warm *classifier) (*classifier, error) {
	_, d := X.Dims()
	m := &classifier{d: d, K: K, kind: ovrScores, info: methods.Info{Converged: true}}
	tasks := K
	if K == 2 {
		m.kind, tasks = binaryScores, 1
	}
	var yt []float64 // the task's targets: fit keeps none of them
	for t := 0; t < tasks; t++ {
		c := t
		if K == 2 {
			c = 1
		}
		yt = signs(yt, y, c)
		if one, b := oneSided(yt); one {
			m.W = append(m.W, make([]float64, d))
			m.B = append(m.B, b)
			continue
		}
		var start []float64
		if warm != nil {
			start = append(slices.Clone(warm.W[t]), warm.B[t])
		}
		w, b, info, err := fit(X, yt, start)
		if err != nil {
			if K == 2 {
				return nil, err
			}
			return nil, fmt.Errorf("class %d vs rest: %w", c, err)
		}
		m.W = append(m.W, w)
		m.B = append(m.B, b)
		m.info.Iterations += info.Iterations
		m.info.Converged = m.info.Converged && info.Converged
		m.info.Objective += info.Objective
	}
	return m, nil
}

// warmModel returns the model stored in env.Warm under key if it is a
// starting point for a fit of kind on d columns and K classes (one with
// the same columns and classes; a softmax model also with the same classes
// present), or nil: a fit then starts from zero.
func warmModel(env *methods.Env, key string, kind scoreKind, d, K int, present []bool) *classifier {
	if env == nil {
		return nil
	}
	m, ok := methods.Load[*classifier](env.Warm, key)
	if !ok || m.kind != kind || m.d != d || m.K != K || len(m.W) != len(m.B) {
		return nil
	}
	if kind == softmaxScores && !slices.Equal(m.present, present) {
		return nil
	}
	for _, w := range m.W {
		if w != nil && len(w) != d {
			return nil
		}
	}
	return m
}

// storeWarm stores m in env.Warm under key, the starting point of the next
// fit (see methods.Env.Warm).
func storeWarm(env *methods.Env, key string, m *classifier) {
	if env != nil {
		methods.Store(env.Warm, key, m)
	}
}

// colsKey returns what a fit on the columns cols alone
// (methods.CompactColumns) adds to its warm key: their number and a hash
// of them, so that a fit starts only from a model over the same columns;
// "" for every column.
func colsKey(cols []int) string {
	if cols == nil {
		return ""
	}
	h := fnv.New64a()
	var b [8]byte
	for _, j := range cols {
		binary.LittleEndian.PutUint64(b[:], uint64(j))
		h.Write(b[:])
	}
	return fmt.Sprintf(" cols=%d/%x", len(cols), h.Sum64())
}

// warmKey names a plugin's starting point in methods.Env.Warm: its name and
// the options that change the problem's shape (the columns and classes
// are checked against the stored model).
func warmKey(plugin string, intercept, softmax bool) string {
	return fmt.Sprintf("linear.%s intercept=%t softmax=%t", plugin, intercept, softmax)
}
