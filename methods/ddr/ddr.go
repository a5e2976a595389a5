// Package ddr provides Bilgic's learners with a dynamic number of principal
// components for active learning: ddr (dynamic dimensionality reduction),
// ee (expected error) and incr (incremental).
//
// Each trains L2-regularized logistic regression (the logreg-l2 plugin,
// one-vs-rest as liblinear) on the first s columns of its training set,
// which a pca transform fitted on the pool (fit: pool) has made the
// principal components sorted by decreasing variance. They differ in how s
// is chosen at each fit of an active-learning trial:
//
//   - ddr grows s in steps of k from the size the previous fit chose (k at
//     the first; params start, restart) while the L1 objective of the L2 weights,
//     C·Σᵢ log(1 + e^(−yᵢ(wᵀxᵢ+b))) + ‖w‖₁, decreases, and keeps the last
//     size that decreased it. With several classes the objective is the
//     sum of the one-vs-rest tasks' objectives, each with its own
//     weights, as liblinear trains multi-class logistic regression (C is
//     the fit's unless rule_C; with lookahead the search tries that many
//     sizes past one that does not decrease the objective before it
//     stops, and keeps the best);
//   - ee runs the same search on the expected error on the unlabelled
//     pool, (1/|U|) Σ_{x∈U} (1 − max_y P(y|x)), U from methods.Env
//     (the training rows themselves when the fit has no unlabelled rows:
//     outside the active protocol and in a select rule's fits);
//   - incr takes s = i·k at the i-th fit of the trial.
//
// The base learner's fit at each size starts from its solution at the same
// size in the previous fit of the trial (methods.Env.Warm, see warmAt).
//
// The size carried from one fit to the next lives in methods.State (a nil
// State starts afresh: s = k), keyed by the training set's classes, so
// that the binary tasks of tasks: one-vs-rest keep a size each. Every
// model records the size as the extra "components".
//
// The weights of logreg-l2 are not exported yet: ddr reads them from the
// model's decision values on the unit vectors, and checks that they
// reproduce the decision values on the training rows.
package ddr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// base is the plugin that trains at each size.
const base = "logreg-l2"

// params are the parameters of ddr, ee and incr.
type params struct {
	K         int     `param:"k" range:"[1, +inf)" default:"10" doc:"step: the number of components grows k at a time"`
	C         float64 `param:"C" range:"(0, +inf)" default:"1" doc:"C of the L2 logistic regression (liblinear's default 1), and of ddr's L1 objective"`
	Intercept bool    `param:"intercept" default:"true" doc:"fit an unpenalized intercept (as logreg-l2)"`
	// The search's variants (issue 44): left out of trial keys at their
	// defaults, the search described in the package doc.
	RuleC     float64 `param:"rule_C,omitdefault" range:"[0, +inf)" default:"0" doc:"ddr: the loss's weight in the L1 objective that judges a size, C·Σ loss + ‖w‖₁, apart from the fit's C; 0 takes C"`
	Start     int     `param:"start,omitdefault" range:"[0, +inf)" default:"0" doc:"ddr, ee: the size the search starts at in a trial's first fit (and in every fit with restart); 0 takes k"`
	Restart   bool    `param:"restart,omitdefault" default:"false" doc:"ddr, ee: start every fit's search at start, not at the size the previous fit chose"`
	Lookahead int     `param:"lookahead,omitdefault" range:"[0, +inf)" default:"0" doc:"ddr, ee: how many sizes past one that does not improve the criterion the search still tries before it stops, keeping the best size seen; 0 stops at the first"`
}

func init() {
	for _, r := range []struct {
		name, doc string
		rule      rule
	}{
		{"ddr", "Bilgic's DDR: L2 logistic regression on the first s components, s grown by k from the previous fit's while the L1 objective of the L2 weights decreases", l1Objective},
		{"ee", "Bilgic's EE: L2 logistic regression on the first s components, s grown by k from the previous fit's while the expected error on the unlabelled pool decreases", expectedError},
		{"incr", "Bilgic's INCR: L2 logistic regression on the first i·k components at the i-th fit of a trial", incremental},
	} {
		methods.RegisterTyped(r.name, methods.Typed[params]{
			Doc:    r.doc,
			Kinds:  methods.Classification,
			Memory: memory(r.rule),
			New: func(p params) (methods.Method, error) {
				return newMethod(r.name, r.rule, p)
			},
		})
	}
}

// rule is how a method chooses the number of components.
type rule int

const (
	l1Objective rule = iota
	expectedError
	incremental
)

// method is one of ddr, ee and incr at a grid point.
type method struct {
	name string
	rule rule
	k    int
	C    float64
	// ruleC is the loss's weight in the L1 objective (C unless rule_C).
	ruleC float64
	// start is the first fit's size (k unless start), restart whether
	// every fit starts there, lookahead the sizes tried past a miss.
	start, lookahead int
	restart          bool
	base             methods.Method
}

func newMethod(name string, r rule, p params) (methods.Method, error) {
	pl, err := methods.Lookup(base)
	if err != nil {
		return nil, fmt.Errorf("%s: the base learner: %w", name, err)
	}
	b, err := pl.New(baseParams(pl, p))
	if err != nil {
		return nil, fmt.Errorf("%s: the base learner: %w", name, err)
	}
	m := &method{name: name, rule: r, k: p.K, C: p.C, ruleC: p.C, start: p.K, lookahead: p.Lookahead, restart: p.Restart, base: b}
	if p.RuleC > 0 {
		m.ruleC = p.RuleC
	}
	if p.Start > 0 {
		m.start = p.Start
	}
	return m, nil
}

// baseParams returns the base learner's parameters for the method's p:
// its defaults with C and intercept from p, one-vs-rest.
func baseParams(pl *methods.Plugin, p params) param.Values {
	bp := param.Defaults(pl.Params)
	bp["C"], bp["intercept"], bp["multiclass"] = p.C, p.Intercept, "ovr"
	return bp
}

// Fit chooses the number of leading columns by the method's rule and
// returns the base learner fitted on them.
func (m *method) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if !train.IsClassification() {
		return nil, fmt.Errorf("%s: needs a classification dataset", m.name)
	}
	var state *methods.State
	if env != nil {
		state = env.State
	}
	key := m.name + "/" + strings.Join(train.Classes, "\x1f")
	d := train.Cols()
	if d == 0 {
		return nil, fmt.Errorf("%s: no columns", m.name)
	}
	var info methods.Info
	info.Converged = true
	if m.rule == incremental {
		i, _ := methods.Load[int](state, key)
		i++
		methods.Store(state, key, i)
		f, err := m.fitAt(ctx, train, min(i*m.k, d), &info, warmAt(env, key, min(i*m.k, d)))
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	size, ok := methods.Load[int](state, key)
	if !ok || m.restart {
		size = m.start
	}
	size = min(size, d)
	best, err := m.fitAt(ctx, train, size, &info, warmAt(env, key, size))
	if err != nil {
		return nil, err
	}
	bestScore, err := m.score(best, train, env)
	if err != nil {
		return nil, err
	}
	for misses := 0; size < d; {
		size = min(size+m.k, d)
		f, err := m.fitAt(ctx, train, size, &info, warmAt(env, key, size))
		if err != nil {
			return nil, err
		}
		s, err := m.score(f, train, env)
		if err != nil {
			return nil, err
		}
		if !(s < bestScore) {
			if misses++; misses > m.lookahead {
				break
			}
			continue
		}
		best, bestScore, misses = f, s, 0
	}
	methods.Store(state, key, best.size)
	best.info = info
	best.info.Objective = bestScore
	return best, nil
}

// fitAt fits the base learner on the first size columns of train in env
// (nil, or warmAt's), adding its iterations to info.
func (m *method) fitAt(ctx context.Context, train *datasets.Dataset, size int, info *methods.Info, env *methods.Env) (*model, error) {
	sub := *train
	sub.X = leading(train.X, size)
	sub.Features, sub.Groups, sub.Graphs = nil, nil, nil
	inner, err := m.base.Fit(ctx, &sub, env)
	if err != nil {
		return nil, fmt.Errorf("%s: at %d components: %w", m.name, size, err)
	}
	if in, ok := inner.(methods.Informer); ok {
		i := in.Info()
		info.Iterations += i.Iterations
		info.Converged = info.Converged && i.Converged
	}
	return &model{inner: inner, size: size, info: *info}, nil
}

// warmAt returns the environment of the base learner's fit at size
// columns: a Warm of its own per size, kept in the trial's env.Warm under
// the method's key, so that the fit at a size starts from the solution at
// the same size in the previous fit of the trial (the previous batch of
// an active-learning trial, whose search started at the size this one
// starts at and tried the next: both are warm). Nil, a cold start, when
// env has no Warm. The warm start changes how fast the base learner
// converges, not to what (within its tolerance).
func warmAt(env *methods.Env, key string, size int) *methods.Env {
	if env == nil || env.Warm == nil {
		return nil
	}
	k := fmt.Sprintf("ddr.warm %s/%d", key, size)
	st, ok := methods.Load[*methods.State](env.Warm, k)
	if !ok {
		st = &methods.State{}
		methods.Store(env.Warm, k, st)
	}
	return &methods.Env{Warm: st}
}

// score returns the criterion a search minimizes for the fit f.
func (m *method) score(f *model, train *datasets.Dataset, env *methods.Env) (float64, error) {
	if m.rule == l1Objective {
		v, err := L1Objective(f.inner, leading(train.X, f.size), train.Labels(), len(train.Classes), m.ruleC)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", m.name, err)
		}
		return v, nil
	}
	U := train.X
	if env != nil && env.Unlabelled != nil {
		if r, _ := env.Unlabelled.Dims(); r > 0 {
			U = env.Unlabelled
		}
	}
	return ExpectedError(f.Predict(U)), nil
}

// leading returns the first size columns of X (X itself if it has no
// more).
func leading(X matrix.Matrix, size int) matrix.Matrix {
	if _, d := X.Dims(); d == size {
		return X
	}
	cols := make([]int, size)
	for j := range cols {
		cols[j] = j
	}
	return X.ColsOf(cols)
}

// model is the base learner's model on the leading size columns.
type model struct {
	inner methods.Model
	size  int
	info  methods.Info
}

// Predict predicts from the leading columns of X.
func (m *model) Predict(X matrix.Matrix) *methods.Prediction {
	return m.inner.Predict(leading(X, m.size))
}

// Extras records the number of components used.
func (m *model) Extras() map[string]float64 {
	return map[string]float64{"components": float64(m.size)}
}

// Info reports the iterations of every fit of the search, and the chosen
// size's criterion as the objective.
func (m *model) Info() methods.Info { return m.info }

// ExpectedError returns EE's criterion on the rows p predicts:
// (1/n) Σᵢ (1 − maxᵧ P(y|xᵢ)), with the probabilities of
// methods.Probabilities.
func ExpectedError(p *methods.Prediction) float64 {
	n := p.Rows()
	if n == 0 {
		return 0
	}
	probs := methods.Probabilities(p)
	sum := 0.0
	for i := 0; i < n; i++ {
		hi := 0.0
		for _, v := range probs[i*p.K : (i+1)*p.K] {
			hi = math.Max(hi, v)
		}
		sum += 1 - hi
	}
	return sum / float64(n)
}

// L1Objective returns DDR's criterion for the linear model fitted on the
// rows X with class labels y among K classes: Σ over the one-vs-rest tasks
// (one task, class 1 against 0, when K = 2) of
// C·Σᵢ log(1 + e^(−yᵢ(wᵀxᵢ+b))) + ‖w‖₁, yᵢ = ±1. The model must give
// one-vs-rest decision values wᵀx + b (logreg-l2 with multiclass: ovr);
// w and b are read from its decision values at 0 and at the unit vectors.
func L1Objective(model methods.Model, X matrix.Matrix, y []int, K int, C float64) (float64, error) {
	n, d := X.Dims()
	pred := model.Predict(X)
	if !pred.OneVsRest || pred.K != K {
		return 0, errors.New("the L1 objective needs one-vs-rest decision values")
	}
	// Row 0 of the probe is 0, row j+1 the unit vector eⱼ.
	ptr, ind, val := make([]int, d+2), make([]int32, d), make([]float64, d)
	for j := 0; j < d; j++ {
		ptr[j+2] = j + 1
		ind[j], val[j] = int32(j), 1
	}
	probe := model.Predict(matrix.NewCSR(d+1, d, ptr, ind, val))
	tasks := []int{1}
	if K > 2 {
		tasks = make([]int, K)
		for c := range tasks {
			tasks[c] = c
		}
	}
	w, z := make([]float64, d), make([]float64, n)
	total := 0.0
	for _, c := range tasks {
		b := probe.Score(0, c)
		l1 := 0.0
		for j := range w {
			w[j] = probe.Score(j+1, c) - b
			l1 += math.Abs(w[j])
		}
		X.MulVec(z, w)
		loss := 0.0
		for i := 0; i < n; i++ {
			f := pred.Score(i, c)
			if math.Abs(z[i]+b-f) > 1e-6*(1+math.Abs(f)) {
				return 0, fmt.Errorf("decision value %g of row %d is not linear (wᵀx + b = %g): the model's weights cannot be read", f, i, z[i]+b)
			}
			m := -f
			if y[i] == c {
				m = f
			}
			loss += softplus(-m)
		}
		total += C*loss + l1
	}
	return total, nil
}

// softplus returns log(1 + eˣ) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}
