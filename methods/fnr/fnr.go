// Package fnr implements feature network regularization (Sandler, Talukdar,
// Ungar and Blitzer, "Regularized Learning with Networks of Features", NIPS
// 2008) and the two graph-Laplacian penalties it is compared with: logistic
// regression whose weights are penalized by a sparse quadratic form built
// from a feature graph, never formed densely.
//
// Registered methods:
//
//   - fnr: Σ_i loss_i + α Σ_j (w_j − Σ_k P_jk w_k)² + β‖w‖²
//     [+ γα Σ_j (w_j + Σ_k Q_jk w_k)²], P (and Q) the row-normalized graph
//     Dataset.Graphs[graph] (and Graphs[dissimilarity]);
//   - laplacian: Σ_i loss_i + α wᵀ(D−S)w + β‖w‖², S = (W+Wᵀ)/2;
//   - normalized-laplacian: the same with ½ Σ_ij S_ij (w_i/√D_ii − w_j/√D_jj)².
//
// Choices where the paper is silent, stated here once:
//
//   - Multi-class (20 Newsgroups): a multinomial (softmax) logistic
//     regression with one weight vector per class, each penalized by the same
//     quadratic form — the paper trains "logistic regression … using all
//     twenty classes" with one L-BFGS run per model. Two classes give the
//     ordinary binary model (one weight vector); Predict returns scores
//     (0, f(x)) for it.
//   - The intercepts are not penalized.
//   - A feature with no out-links (virtual features by construction; words
//     whose neighbours all fall below the similarity threshold) carries no
//     network term: (w_j − 0)² would shrink it by α, which contradicts §3.1
//     ("virtual features … are free to take on whatever values minimize the
//     network regularization cost"). The ridge term β applies to every weight,
//     virtual ones included, so at the optimum a virtual weight is
//     μ_c = α Σ_{j∈c} w_j / (α|c| + β), the class mean as β → 0.
//   - Dissimilarity (§3.2): the paper adds Σ_j (w_j + Σ_k Q_jk w_k)² "to the
//     network regularization criterion", i.e. with the same α; param gamma
//     scales it relative to α (default 1 = the paper). Its sum runs over the
//     features that have dissimilarity links only (otherwise every other
//     feature would get an extra α‖w_j‖²).
package fnr

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/logistic"
	"github.com/repro-ml/repro/methods/optim"
)

// commonParams are the parameters of fnr, laplacian and
// normalized-laplacian.
type commonParams struct {
	Alpha   float64 `param:"alpha" range:"[0, +inf)" default:"1" doc:"weight α of the graph penalty"`
	Beta    float64 `param:"beta" range:"[0, +inf)" default:"0.01" doc:"weight β of the ridge penalty ‖w‖²"`
	Graph   string  `param:"graph" default:"feature" doc:"name of the feature graph in the dataset's Graphs"`
	MaxIter int     `param:"max_iter" range:"[1, +inf)" default:"200" doc:"L-BFGS iteration cap (paper: 200)"`
	Tol     float64 `param:"tol" range:"(0, +inf)" default:"1e-06" doc:"L-BFGS relative gradient tolerance"`
	Memory  int     `param:"memory" range:"[1, +inf)" default:"10" doc:"L-BFGS correction pairs kept; each costs two passes over the (D+1)·C weights per iteration"`
	FTol    float64 `param:"ftol" range:"[0, +inf)" default:"0" doc:"L-BFGS also stops when the objective decreases by at most ftol·max(1, |f|) per iteration over 5 iterations; 0: off"`
}

// fnrParams are the parameters of fnr.
type fnrParams struct {
	commonParams
	Dissimilarity string  `param:"dissimilarity" default:"" doc:"name of the dissimilarity graph Q in Graphs; empty: none"`
	Gamma         float64 `param:"gamma" range:"[0, +inf)" default:"1" doc:"weight of the dissimilarity term relative to alpha (paper: 1)"`
}

func init() {
	methods.RegisterTyped("fnr", methods.Typed[fnrParams]{
		Doc:   "feature network regularized logistic regression (Sandler et al. 2008; L-BFGS)",
		Kinds: methods.Classification,
		Memory: func(s methods.Shape, p fnrParams) int64 {
			return memory(kindNetwork, s, p.commonParams, p.Dissimilarity)
		},
		Needs: func(p fnrParams) methods.Needs {
			n := methods.Needs{Graphs: []string{p.Graph}}
			if p.Dissimilarity != "" {
				n.Graphs = append(n.Graphs, p.Dissimilarity)
			}
			return n
		},
		New: func(p fnrParams) (methods.Method, error) {
			m := newMethod(kindNetwork, p.commonParams)
			m.Dissimilarity, m.Gamma = p.Dissimilarity, p.Gamma
			return m, nil
		},
	})
	for _, kind := range []penaltyKind{kindLaplacian, kindNormalized} {
		doc := "logistic regression with a feature-graph Laplacian penalty α wᵀ(D−W)w + β‖w‖² (L-BFGS)"
		if kind == kindNormalized {
			doc = "logistic regression with a normalized feature-graph Laplacian penalty (L-BFGS)"
		}
		methods.RegisterTyped(kind.String(), methods.Typed[commonParams]{
			Doc:    doc,
			Kinds:  methods.Classification,
			Memory: func(s methods.Shape, p commonParams) int64 { return memory(kind, s, p, "") },
			Needs:  func(p commonParams) methods.Needs { return methods.Needs{Graphs: []string{p.Graph}} },
			New:    func(p commonParams) (methods.Method, error) { return newMethod(kind, p), nil },
		})
	}
}

type penaltyKind int

const (
	kindNetwork penaltyKind = iota
	kindLaplacian
	kindNormalized
)

func (k penaltyKind) String() string {
	return [...]string{"fnr", "laplacian", "normalized-laplacian"}[k]
}

// Method is one grid point of fnr, laplacian or normalized-laplacian.
type Method struct {
	kind                 penaltyKind
	Alpha, Beta, Gamma   float64
	Graph, Dissimilarity string
	MaxIter, Memory      int
	Tol, FTol            float64
}

func newMethod(kind penaltyKind, p commonParams) *Method {
	return &Method{kind: kind, Alpha: p.Alpha, Beta: p.Beta, Graph: p.Graph,
		MaxIter: p.MaxIter, Memory: p.Memory, Tol: p.Tol, FTol: p.FTol}
}

// ErrNoGraph is wrapped by the error Fit returns when the training set lacks
// the graph the method names.
var ErrNoGraph = errors.New("no feature graph")

func graphOf(train *datasets.Dataset, name string) (*matrix.CSR, error) {
	g := train.Graphs[name]
	if g == nil {
		have := make([]string, 0, len(train.Graphs))
		for k := range train.Graphs {
			have = append(have, k)
		}
		sort.Strings(have)
		return nil, fmt.Errorf("%w %q in dataset %q (it has [%s]): add a graph transform to the dataset, "+
			"e.g. cooccurrence-graph, lexicon-classes or lexicon-correlation", ErrNoGraph, name, train.Name, strings.Join(have, " "))
	}
	if err := checkGraph(g); err != nil {
		return nil, fmt.Errorf("graph %q: %w", name, err)
	}
	if _, d := train.X.Dims(); g.C < d {
		return nil, fmt.Errorf("graph %q has %d nodes for %d features", name, g.C, d)
	}
	return g, nil
}

// cachedResidual returns the penalty matrix what ("network", "laplacian", …) of
// the training set's graph called graph, computed by fn once per training
// set through env's memo. The graph is named by its name: a memo serves one
// training set, whose graphs do not change.
func cachedResidual(env *methods.Env, what, graph string, fn func() *matrix.CSR) (*matrix.CSR, error) {
	key := methods.Key{Op: "fnr.residual", Args: what + "/graph=" + graph}
	return methods.Remember(env, key, func() (*matrix.CSR, error) { return fn(), nil })
}

// Penalty returns the penalty of m for the graphs of train, and the number
// D of weights per class.
func (m *Method) Penalty(train *datasets.Dataset, env *methods.Env) (logistic.Penalty, int, error) {
	g, err := graphOf(train, m.Graph)
	if err != nil {
		return logistic.Penalty{}, 0, err
	}
	pen := logistic.Penalty{Ridge: m.Beta}
	var B *matrix.CSR
	switch m.kind {
	case kindNetwork:
		B, err = cachedResidual(env, "network", m.Graph, func() *matrix.CSR { return NetworkResidual(g) })
	case kindLaplacian:
		B, err = cachedResidual(env, "laplacian", m.Graph, func() *matrix.CSR { return LaplacianResidual(g, false) })
	case kindNormalized:
		B, err = cachedResidual(env, "normalized", m.Graph, func() *matrix.CSR { return LaplacianResidual(g, true) })
	}
	if err != nil {
		return logistic.Penalty{}, 0, err
	}
	term := logistic.Term{B: B, Coef: m.Alpha}
	if m.kind != kindNetwork {
		// A Laplacian's edge-incidence B (two entries per edge) costs two
		// passes per evaluation; BᵀB, the Laplacian itself, one.
		term.Q, err = cachedResidual(env, m.kind.String()+" gram", m.Graph, func() *matrix.CSR { return logistic.Gram(B) })
		if err != nil {
			return logistic.Penalty{}, 0, err
		}
	}
	pen.Terms = append(pen.Terms, term)
	if m.kind == kindNetwork && m.Dissimilarity != "" {
		q, err := graphOf(train, m.Dissimilarity)
		if err != nil {
			return logistic.Penalty{}, 0, err
		}
		if q.C != g.C {
			return logistic.Penalty{}, 0, fmt.Errorf("dissimilarity graph %q has %d nodes, feature graph %q has %d", m.Dissimilarity, q.C, m.Graph, g.C)
		}
		Bq, err := cachedResidual(env, "dissimilarity", m.Dissimilarity, func() *matrix.CSR { return DissimilarityResidual(q) })
		if err != nil {
			return logistic.Penalty{}, 0, err
		}
		pen.Terms = append(pen.Terms, logistic.Term{B: Bq, Coef: m.Gamma * m.Alpha})
	}
	return pen, g.C, nil
}

// Fit trains the penalized logistic regression on train.
func (m *Method) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if !train.IsClassification() || len(train.Classes) < 2 {
		return nil, fmt.Errorf("%s: dataset %q: need a classification dataset with ≥ 2 classes", m.kind, train.Name)
	}
	pen, D, err := m.Penalty(train, env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.kind, err)
	}
	p := &logistic.Problem{X: matrix.ToCSR(train.X), Y: train.Labels(), K: len(train.Classes), D: D, Pen: pen, Precondition: m.kind != kindNetwork}
	// Grid points fitted one after the other on a fold start from the
	// previous point's weights (env.Warm): same optimum, fewer iterations.
	warmKey := fmt.Sprintf("fnr.weights %s graph=%s K=%d D=%d", m.kind, m.Graph, p.K, p.D)
	var warm *methods.State
	if env != nil {
		warm = env.Warm
	}
	x0, _ := methods.Load[[]float64](warm, warmKey)
	model, err := logistic.TrainFrom(ctx, p, x0, optim.Settings{MaxIter: m.MaxIter, GradTol: m.Tol, FTol: m.FTol, Memory: m.Memory})
	if err != nil {
		return nil, fmt.Errorf("%s: dataset %q: %w", m.kind, train.Name, err)
	}
	methods.Store(warm, warmKey, model.W)
	return model, nil
}
