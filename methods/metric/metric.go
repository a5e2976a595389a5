// Package metric scores a method's predictions on a test set, and holds the
// registry of metrics an experiment may name under `metrics:`.
//
// Accuracy and error are percentages (0–100), as the papers report them;
// regression errors are in the target's units (squared for mse).
package metric

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/runner/param"
)

// Metric is a registered metric.
type Metric struct {
	// Doc is a one-line description for `repro list metrics`.
	Doc string
	// Kinds are the problem kinds the metric applies to.
	Kinds methods.Kind
	// HigherIsBetter orders methods in reports and expectations.
	HigherIsBetter bool
	// NeedsOneVsRest restricts the metric to one-vs-rest predictions.
	NeedsOneVsRest bool
	// Eval scores p against the targets of test.
	Eval func(p *methods.Prediction, test *datasets.Dataset) (float64, error)
	// Detail, if set, breaks the score down into named parts (for
	// binary_errors, the errors of each one-vs-rest task). The runner
	// stores them beside the metric as "name/part".
	Detail func(p *methods.Prediction, test *datasets.Dataset) map[string]float64
}

var (
	mu       sync.RWMutex
	registry = map[string]*Metric{}
)

// Register makes a metric available under name; it panics on a duplicate.
func Register(name string, m *Metric) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || m == nil || m.Eval == nil {
		panic("metric: Register of an empty name or nil metric")
	}
	if _, dup := registry[name]; dup {
		panic("metric: Register called twice for " + name)
	}
	registry[name] = m
}

// Lookup returns the metric called name.
func Lookup(name string) (*Metric, error) {
	mu.RLock()
	defer mu.RUnlock()
	if m, ok := registry[name]; ok {
		return m, nil
	}
	known := names()
	return nil, &datasets.UnknownError{Kind: "metric", Name: name, Known: known, Suggest: param.Closest(name, known)}
}

// Names returns the registered metric names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return names()
}

func names() []string {
	out := make([]string, 0, len(registry))
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Evaluate scores p on test with the named metric.
func Evaluate(name string, p *methods.Prediction, test *datasets.Dataset) (float64, error) {
	m, err := Lookup(name)
	if err != nil {
		return 0, err
	}
	if err := check(name, m, p, test); err != nil {
		return 0, err
	}
	return m.Eval(p, test)
}

func check(name string, m *Metric, p *methods.Prediction, test *datasets.Dataset) error {
	if test.IsClassification() {
		if m.Kinds&methods.Classification == 0 {
			return fmt.Errorf("metric %q does not apply to classification", name)
		}
		if p.K != len(test.Classes) && !p.OneVsRest {
			return fmt.Errorf("metric %q: prediction has %d classes, test set %d", name, p.K, len(test.Classes))
		}
		if len(p.Scores) != p.K*test.Rows() {
			return fmt.Errorf("metric %q: prediction has %d scores, want %d×%d", name, len(p.Scores), test.Rows(), p.K)
		}
	} else {
		if m.Kinds&methods.Regression == 0 {
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

func init() {
	Register("accuracy", &Metric{Doc: "percentage of test rows whose predicted class (largest score) is right",
		Kinds: methods.Classification, HigherIsBetter: true, Eval: accuracy})
	Register("error", &Metric{Doc: "percentage of test rows misclassified (100 − accuracy)",
		Kinds: methods.Classification, Eval: func(p *methods.Prediction, d *datasets.Dataset) (float64, error) {
			a, err := accuracy(p, d)
			return 100 - a, err
		}})
	Register("auc", &Metric{Doc: "area under the ROC curve; multi-class: mean of one-vs-rest AUCs",
		Kinds: methods.Classification, HigherIsBetter: true, Eval: auc})
	Register("binary_errors", &Metric{Doc: "one-vs-rest binary errors summed over all tasks (Jebara 2004's metric); per-task errors recorded as binary_errors/<class>",
		Kinds: methods.Classification, NeedsOneVsRest: true, Eval: binaryErrors, Detail: taskErrors})
	Register("mse", &Metric{Doc: "mean squared error of the predicted target",
		Kinds: methods.Regression, Eval: func(p *methods.Prediction, d *datasets.Dataset) (float64, error) {
			return mse(p.Values, d.Y), nil
		}})
	Register("rmse", &Metric{Doc: "root mean squared error of the predicted target",
		Kinds: methods.Regression, Eval: func(p *methods.Prediction, d *datasets.Dataset) (float64, error) {
			return math.Sqrt(mse(p.Values, d.Y)), nil
		}})
	Register("mae", &Metric{Doc: "mean absolute error of the predicted target",
		Kinds: methods.Regression, Eval: func(p *methods.Prediction, d *datasets.Dataset) (float64, error) {
			s := 0.0
			for i, v := range p.Values {
				s += math.Abs(v - d.Y[i])
			}
			return s / float64(len(p.Values)), nil
		}})
	Register("r2", &Metric{Doc: "coefficient of determination on the test set",
		Kinds: methods.Regression, HigherIsBetter: true, Eval: func(p *methods.Prediction, d *datasets.Dataset) (float64, error) {
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

func accuracy(p *methods.Prediction, d *datasets.Dataset) (float64, error) {
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

func binaryErrors(p *methods.Prediction, d *datasets.Dataset) (float64, error) {
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
func taskErrors(p *methods.Prediction, d *datasets.Dataset) map[string]float64 {
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
func Details(name string, p *methods.Prediction, test *datasets.Dataset) map[string]float64 {
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

func auc(p *methods.Prediction, d *datasets.Dataset) (float64, error) {
	n := d.Rows()
	k := p.K
	score := make([]float64, n)
	pos := make([]bool, n)
	if k == 2 && !p.OneVsRest {
		for i := 0; i < n; i++ {
			score[i] = p.Score(i, 1) - p.Score(i, 0)
			pos[i] = d.Label(i) == 1
		}
		return AUC(score, pos), nil
	}
	sum, cnt := 0.0, 0
	for c := 0; c < k; c++ {
		for i := 0; i < n; i++ {
			score[i] = p.Score(i, c)
			pos[i] = d.Label(i) == c
		}
		if a := AUC(score, pos); !math.IsNaN(a) {
			sum += a
			cnt++
		}
	}
	if cnt == 0 {
		return math.NaN(), nil
	}
	return sum / float64(cnt), nil
}

// AUC returns the area under the ROC curve of score for the positives pos,
// counting ties as one half (the Mann–Whitney statistic). It is NaN when
// either class is absent.
func AUC(score []float64, pos []bool) float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return score[idx[a]] < score[idx[b]] })
	var np, nn float64
	rankSum := 0.0
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && score[idx[j]] == score[idx[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // average 1-based rank of the tie block
		for _, t := range idx[i:j] {
			if pos[t] {
				rankSum += mid
				np++
			} else {
				nn++
			}
		}
		i = j
	}
	if np == 0 || nn == 0 {
		return math.NaN()
	}
	return (rankSum - np*(np+1)/2) / (np * nn)
}
