// Package metric scores a method's predictions on a test set, and holds the
// registry of metrics an experiment may name under `metrics:`. It also
// defines what the scoring needs, Prediction, Truth and Kind, so that every
// layer (methods, datasets, runner, reports) can import it without climbing.
//
// Accuracy and error are percentages (0–100), as the papers report them;
// regression errors are in the target's units (squared for mse).
package metric

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/repro-ml/repro/registry"
)

// Kind is a set of problem kinds a method or metric handles.
type Kind int

// The problem kinds.
const (
	Classification Kind = 1 << iota
	Regression
)

// String returns "classification", "regression" or both joined by "+".
func (k Kind) String() string {
	var s []string
	if k&Classification != 0 {
		s = append(s, "classification")
	}
	if k&Regression != 0 {
		s = append(s, "regression")
	}
	return strings.Join(s, "+")
}

// Prediction holds a model's outputs on n rows.
type Prediction struct {
	// Scores holds, for classification, n×K values row-major (K classes):
	// larger means more likely, the predicted class is the argmax.
	Scores []float64
	K      int
	// OneVsRest reports that the sign of Scores[i*K+c] is the binary
	// decision "row i is of class c" (one-vs-rest and multi-task models).
	OneVsRest bool
	// Values holds the n predicted targets of a regression model.
	Values []float64
}

// Rows returns the number of predicted rows.
func (p *Prediction) Rows() int {
	if p.Values != nil {
		return len(p.Values)
	}
	if p.K == 0 {
		return 0
	}
	return len(p.Scores) / p.K
}

// Label returns the predicted class of row i (the first largest score).
func (p *Prediction) Label(i int) int {
	row := p.Scores[i*p.K : (i+1)*p.K]
	best := 0
	for c, v := range row {
		if v > row[best] {
			best = c
		}
	}
	return best
}

// Score returns the score of class c for row i.
func (p *Prediction) Score(i, c int) float64 { return p.Scores[i*p.K+c] }

// Truth is what a prediction is scored against: the test rows' targets.
// For classification Y holds class indices into Classes; for regression
// Classes is nil and Y holds the targets.
type Truth struct {
	Y       []float64
	Classes []string
}

// Rows returns the number of test rows.
func (t Truth) Rows() int { return len(t.Y) }

// IsClassification reports whether the targets are classes.
func (t Truth) IsClassification() bool { return t.Classes != nil }

// Label returns the class index of row i.
func (t Truth) Label(i int) int { return int(t.Y[i]) }

// Metric is a registered metric.
type Metric struct {
	// Doc is a one-line description for `repro list metrics`.
	Doc string
	// Kinds are the problem kinds the metric applies to.
	Kinds Kind
	// HigherIsBetter orders methods in reports and expectations.
	HigherIsBetter bool
	// NeedsOneVsRest restricts the metric to one-vs-rest predictions.
	NeedsOneVsRest bool
	// Digits is the number of decimals reports show the metric with
	// (report.digits overrides it); if 0, 2 is used.
	Digits int
	// Min and Max bound the metric's values (nil: unbounded); plots
	// keep their axis within them (an AUC axis ends at 1).
	Min, Max *float64
	// Eval scores p against the targets of the test rows.
	Eval func(p *Prediction, test Truth) (float64, error)
	// Detail, if set, breaks the score down into named parts (for
	// binary_errors, the errors of each one-vs-rest task). The runner
	// stores them beside the metric as "name/part".
	Detail func(p *Prediction, test Truth) map[string]float64
	// ovrAUC marks auc (meanAUC) and auc_weighted (weightedAUC), whose
	// Scorer shares the one-vs-rest AUCs; 0 for the others.
	ovrAUC int
}

// Metrics is the registry of metrics.
var Metrics = registry.New[*Metric]("metric")

// Register makes a metric available under name; it panics on a duplicate
// or a metric without Eval.
func Register(name string, m *Metric) {
	if m == nil || m.Eval == nil {
		panic("metric: Register of a nil metric")
	}
	Metrics.Register(name, m)
}

// Lookup returns the metric called name, or a *registry.UnknownError.
func Lookup(name string) (*Metric, error) { return Metrics.Lookup(name) }

// Names returns the registered metric names, sorted.
func Names() []string { return Metrics.Names() }

// Evaluate scores p on test with the named metric.
func Evaluate(name string, p *Prediction, test Truth) (float64, error) {
	m, err := Lookup(name)
	if err != nil {
		return 0, err
	}
	if err := check(name, m, p, test); err != nil {
		return 0, err
	}
	return m.Eval(p, test)
}

func check(name string, m *Metric, p *Prediction, test Truth) error {
	if test.IsClassification() {
		if m.Kinds&Classification == 0 {
			return fmt.Errorf("metric %q does not apply to classification", name)
		}
		if p.K != len(test.Classes) && !p.OneVsRest {
			return fmt.Errorf("metric %q: prediction has %d classes, test set %d", name, p.K, len(test.Classes))
		}
		if len(p.Scores) != p.K*test.Rows() {
			return fmt.Errorf("metric %q: prediction has %d scores, want %d×%d", name, len(p.Scores), test.Rows(), p.K)
		}
	} else {
		if m.Kinds&Regression == 0 {
			return fmt.Errorf("metric %q does not apply to regression", name)
		}
		if len(p.Values) != test.Rows() {
			return fmt.Errorf("metric %q: prediction has %d values, want %d", name, len(p.Values), test.Rows())
		}
	}
	if m.NeedsOneVsRest && !p.OneVsRest {
		return fmt.Errorf("metric %q needs a one-vs-rest prediction (set tasks: one-vs-rest on the dataset)", name)
	}
	return nil
}

// DefaultDigits is the number of decimals of a metric that sets none.
const DefaultDigits = 2

// DigitsOf returns the decimals reports show m with.
func (m *Metric) DigitsOf() int {
	if m.Digits > 0 {
		return m.Digits
	}
	return DefaultDigits
}

func bound(v float64) *float64 { return &v }

func init() {
	// Percentages at 2 decimals, AUC and r2 (at most 1) at 3, counts of
	// errors (summed over tasks) at 1.
	Register("accuracy", &Metric{Doc: "percentage of test rows whose predicted class (largest score) is right",
		Kinds: Classification, HigherIsBetter: true, Eval: accuracy, Digits: 2, Min: bound(0), Max: bound(100)})
	Register("error", &Metric{Doc: "percentage of test rows misclassified (100 − accuracy)",
		Kinds: Classification, Digits: 2, Min: bound(0), Max: bound(100), Eval: func(p *Prediction, d Truth) (float64, error) {
			a, err := accuracy(p, d)
			return 100 - a, err
		}})
	Register("auc", &Metric{Doc: "area under the ROC curve; multi-class: the unweighted mean of the one-vs-rest AUCs of the classes present in the test set",
		Kinds: Classification, HigherIsBetter: true, Eval: auc, ovrAUC: meanAUC, Digits: 3, Min: bound(0), Max: bound(1)})
	Register("auc_weighted", &Metric{Doc: "area under the ROC curve; multi-class: the mean of the one-vs-rest AUCs weighted by each class's count in the test set " +
		"(Weka's weightedAreaUnderROC); equal to auc for two classes",
		Kinds: Classification, HigherIsBetter: true, Eval: aucWeighted, ovrAUC: weightedAUC, Digits: 3, Min: bound(0), Max: bound(1)})
	Register("binary_errors", &Metric{Doc: "one-vs-rest binary errors summed over all tasks (Jebara 2004's metric); per-task errors recorded as binary_errors/<class>",
		Kinds: Classification, NeedsOneVsRest: true, Eval: binaryErrors, Detail: taskErrors, Digits: 1, Min: bound(0)})
	Register("mse", &Metric{Min: bound(0), Doc: "mean squared error of the predicted target",
		Kinds: Regression, Eval: func(p *Prediction, d Truth) (float64, error) {
			return mse(p.Values, d.Y), nil
		}})
	Register("rmse", &Metric{Min: bound(0), Doc: "root mean squared error of the predicted target",
		Kinds: Regression, Eval: func(p *Prediction, d Truth) (float64, error) {
			return math.Sqrt(mse(p.Values, d.Y)), nil
		}})
	Register("mae", &Metric{Min: bound(0), Doc: "mean absolute error of the predicted target",
		Kinds: Regression, Eval: func(p *Prediction, d Truth) (float64, error) {
			s := 0.0
			for i, v := range p.Values {
				s += math.Abs(v - d.Y[i])
			}
			return s / float64(len(p.Values)), nil
		}})
	Register("r2", &Metric{Doc: "coefficient of determination on the test set",
		Kinds: Regression, HigherIsBetter: true, Digits: 3, Max: bound(1), Eval: func(p *Prediction, d Truth) (float64, error) {
			mean := 0.0
			for _, y := range d.Y {
				mean += y
			}
			mean /= float64(len(d.Y))
			ss := 0.0
			for _, y := range d.Y {
				ss += (y - mean) * (y - mean)
			}
			if ss == 0 {
				return math.NaN(), nil
			}
			return 1 - mse(p.Values, d.Y)*float64(len(d.Y))/ss, nil
		}})
}

func accuracy(p *Prediction, d Truth) (float64, error) {
	n := d.Rows()
	if n == 0 {
		return math.NaN(), nil
	}
	right := 0
	for i := 0; i < n; i++ {
		if p.Label(i) == d.Label(i) {
			right++
		}
	}
	return 100 * float64(right) / float64(n), nil
}

func binaryErrors(p *Prediction, d Truth) (float64, error) {
	errs := 0
	for i := 0; i < d.Rows(); i++ {
		y := d.Label(i)
		for c := 0; c < p.K; c++ {
			if (p.Score(i, c) > 0) != (c == y) {
				errs++
			}
		}
	}
	return float64(errs), nil
}

// taskErrors returns the binary errors of each one-vs-rest task, keyed by
// the task's class name.
func taskErrors(p *Prediction, d Truth) map[string]float64 {
	out := make(map[string]float64, p.K)
	for c := 0; c < p.K && c < len(d.Classes); c++ {
		errs := 0
		for i := 0; i < d.Rows(); i++ {
			if (p.Score(i, c) > 0) != (d.Label(i) == c) {
				errs++
			}
		}
		out[d.Classes[c]] = float64(errs)
	}
	return out
}

// Details returns the named parts of metric name's score of p on test, or
// nil when the metric has none.
func Details(name string, p *Prediction, test Truth) map[string]float64 {
	m, err := Lookup(name)
	if err != nil || m.Detail == nil {
		return nil
	}
	if check(name, m, p, test) != nil {
		return nil
	}
	return m.Detail(p, test)
}

func mse(pred, y []float64) float64 {
	s := 0.0
	for i, v := range pred {
		e := v - y[i]
		s += e * e
	}
	return s / float64(len(pred))
}

func auc(p *Prediction, d Truth) (float64, error) { return classAUCs(p, d).mean(false), nil }

func aucWeighted(p *Prediction, d Truth) (float64, error) { return classAUCs(p, d).mean(true), nil }

// ovrAUCs are the AUCs of a prediction's classes against the rest, with
// each class's count of test rows; binary (one AUC, of score 1 − score 0)
// when the prediction has two classes and is not one-vs-rest.
type ovrAUCs struct {
	auc, npos []float64
	binary    bool
}

// classAUCs returns the AUCs of p's classes on d.
func classAUCs(p *Prediction, d Truth) ovrAUCs {
	n := d.Rows()
	k := p.K
	score := make([]float64, n)
	pos := make([]bool, n)
	if k == 2 && !p.OneVsRest {
		for i := 0; i < n; i++ {
			score[i] = p.Score(i, 1) - p.Score(i, 0)
			pos[i] = d.Label(i) == 1
		}
		return ovrAUCs{auc: []float64{AUC(score, pos)}, binary: true}
	}
	out := ovrAUCs{auc: make([]float64, k), npos: make([]float64, k)}
	for c := 0; c < k; c++ {
		for i := 0; i < n; i++ {
			score[i] = p.Score(i, c)
			pos[i] = d.Label(i) == c
			if pos[i] {
				out.npos[c]++
			}
		}
		out.auc[c] = AUC(score, pos)
	}
	return out
}

// mean returns the AUC of the prediction: the binary one, or the mean of
// the one-vs-rest AUCs of the classes present in the test set, unweighted
// or weighted by their counts.
func (a ovrAUCs) mean(weighted bool) float64 {
	if a.binary {
		return a.auc[0]
	}
	sum, cnt := 0.0, 0.0
	for c, v := range a.auc {
		w := 1.0
		if weighted {
			w = a.npos[c]
		}
		if !math.IsNaN(v) {
			sum += w * v
			cnt += w
		}
	}
	if cnt == 0 {
		return math.NaN()
	}
	return sum / cnt
}

// Scorer scores one prediction with several metrics, computing what they
// share once: auc and auc_weighted average the same one-vs-rest AUCs,
// which take a sort of the test rows per class.
type Scorer struct {
	p    *Prediction
	test Truth
	aucs *ovrAUCs
}

// NewScorer returns a Scorer of p on test. p and test must not change
// while it is used.
func NewScorer(p *Prediction, test Truth) *Scorer { return &Scorer{p: p, test: test} }

// Evaluate returns what Evaluate(name, p, test) returns.
func (s *Scorer) Evaluate(name string) (float64, error) {
	m, err := Lookup(name)
	if err != nil {
		return 0, err
	}
	if err := check(name, m, s.p, s.test); err != nil {
		return 0, err
	}
	if m.ovrAUC == 0 {
		return m.Eval(s.p, s.test)
	}
	if s.aucs == nil {
		a := classAUCs(s.p, s.test)
		s.aucs = &a
	}
	return s.aucs.mean(m.ovrAUC == weightedAUC), nil
}

// The averages of one-vs-rest AUCs a Scorer computes from shared AUCs
// (Metric.ovrAUC).
const (
	meanAUC = 1 + iota
	weightedAUC
)

// AUC returns the area under the ROC curve of score for the positives pos,
// counting ties as one half (the Mann–Whitney statistic). It is NaN when
// either class is absent. A NaN score ranks below every number (and ties
// with the other NaNs).
//
// The positives' and negatives' scores are sorted apart and merged: U, the
// number of (positive, negative) pairs ordered right plus half the tied
// ones, is a whole or half number counted exactly, so the result is the
// same float64 as the rank-sum form (R₊ − n₊(n₊+1)/2)/(n₊n₋) whatever the
// order of the sort.
func AUC(score []float64, pos []bool) float64 {
	var ps, ns []float64
	for i, s := range score {
		if pos[i] {
			ps = append(ps, s)
		} else {
			ns = append(ns, s)
		}
	}
	if len(ps) == 0 || len(ns) == 0 {
		return math.NaN()
	}
	slices.Sort(ps) // NaNs first, as cmp.Compare orders them
	slices.Sort(ns)
	// twiceU counts 2 per negative below a positive and 1 per tie.
	twiceU := 0
	lo, hi := 0, 0 // ns[:lo] < p, ns[lo:hi] == p
	for _, p := range ps {
		for lo < len(ns) && cmp.Less(ns[lo], p) {
			lo++
		}
		hi = max(hi, lo)
		for hi < len(ns) && cmp.Compare(ns[hi], p) == 0 {
			hi++
		}
		twiceU += 2*lo + (hi - lo)
	}
	np, nn := float64(len(ps)), float64(len(ns))
	return float64(twiceU) / 2 / (np * nn)
}
