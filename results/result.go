package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Result is one line of results.jsonl: the outcome of one trial.
type Result struct {
	// Key identifies the trial: a hash of its dataset (plugin, params,
	// transforms, split), method (plugin, label, grid, select rule),
	// size, trial index, experiment seed and sampling.
	Key     string `json:"key"`
	Dataset string `json:"dataset"` // dataset ID
	Method  string `json:"method"`  // method label
	Plugin  string `json:"plugin"`  // method plugin name
	// Variant holds the values of the varying params of a fixed-rule
	// grid point (nil for cv/test rules and single points).
	Variant map[string]any `json:"variant,omitempty"`
	Size    int            `json:"size"`
	Trial   int            `json:"trial"`
	// Chosen holds the grid point a cv or test rule selected.
	Chosen map[string]any `json:"chosen,omitempty"`
	// Oracle marks a selection made on the test set.
	Oracle bool `json:"oracle,omitempty"`
	// SelectScore is the chosen point's score under the select metric:
	// its mean over the validation folds (cv) or its value on the test
	// set (test); nil when no rule scored (one grid point, fixed rule).
	// It compares runs that differ in what the rule cannot choose (a
	// corpus-level transform's params, say) by the same criterion.
	SelectScore *float64 `json:"select_score,omitempty"`
	Metrics     Metrics  `json:"metrics,omitempty"`
	// Extras holds named values the trial recorded besides its metrics
	// (a transform's dictionary size, a method's chosen dimension).
	Extras Metrics `json:"extras,omitempty"`
	// Bootstrap holds each metric on the report.bootstrap resamples of
	// the test set (nil when the spec asks for none).
	Bootstrap Samples `json:"bootstrap,omitempty"`
	// Observations holds the points of a protocol that yields several per
	// trial (active: one per batch). A trial with one observation stores
	// it in Size, Metrics and Extras instead.
	Observations []Observation `json:"observations,omitempty"`
	TrainRows    int           `json:"train_rows"`
	TestRows     int           `json:"test_rows"`
	FitSeconds   float64       `json:"fit_seconds"`
	// SelectSeconds is the time spent choosing hyperparameters (cv or
	// test rule), excluded from FitSeconds.
	SelectSeconds float64 `json:"select_seconds,omitempty"`
	Iterations    int     `json:"iterations,omitempty"`
	// NotConverged marks a trial whose final fit stopped at its
	// iteration cap (methods.Info.Converged false) rather than at its
	// tolerance; a model that reports no Info is taken as converged.
	NotConverged bool  `json:"not_converged,omitempty"`
	Seeds        Seeds `json:"seeds"`
	// Artifacts lists the artifact files of this trial, relative to the
	// output directory.
	Artifacts []string `json:"artifacts,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// Points returns the trial's observations: Observations when the
// protocol yields several, else one at x = Size. A failed trial has none.
func (r *Result) Points() []Observation {
	if r.Failed() {
		return nil
	}
	if len(r.Observations) > 0 {
		return r.Observations
	}
	return []Observation{{X: float64(r.Size), Metrics: r.Metrics, Extras: r.Extras, Bootstrap: r.Bootstrap}}
}

// Seeds records the seeds a trial used.
type Seeds struct {
	Sample uint64 `json:"sample"` // training subsample, split and CV folds
	Method uint64 `json:"method"` // the method's own randomness
}

// Failed reports whether the trial ended in an error.
func (r *Result) Failed() bool { return r.Error != "" }

// Finished reports whether r is a complete result of a trial scoring
// metrics: no error, and every metric at every observation. A line
// without them (damaged, or edited by hand) is not finished: its trial
// runs again.
func (r *Result) Finished(metrics []string) bool {
	if r.Failed() {
		return false
	}
	for _, o := range r.Points() {
		for _, m := range metrics {
			if _, ok := o.Metrics[m]; !ok {
				return false
			}
		}
	}
	return true
}

// Metrics maps metric names to values. Its JSON form writes the values
// JSON has no number for as strings — "NaN", "+Inf", "-Inf" — so that a
// NaN metric (the AUC of a test set with one class, r2 of a constant
// target) is stored like any other.
type Metrics map[string]float64

// MarshalJSON writes m with its keys sorted and non-finite values as
// strings.
func (m Metrics) MarshalJSON() ([]byte, error) { return marshalSorted(m, writeValue) }

// marshalSorted writes m as a JSON object with its keys sorted, each value
// by write; a nil map is null.
func marshalSorted[V any](m map[string]V, write func(*bytes.Buffer, V) error) ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		if err := write(&b, m[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeValue writes v as a JSON number, or a non-finite v as the string
// "NaN", "+Inf" or "-Inf".
func writeValue(b *bytes.Buffer, v float64) error {
	switch {
	case math.IsNaN(v):
		b.WriteString(`"NaN"`)
	case math.IsInf(v, 1):
		b.WriteString(`"+Inf"`)
	case math.IsInf(v, -1):
		b.WriteString(`"-Inf"`)
	default:
		vb, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(vb)
	}
	return nil
}

// UnmarshalJSON reads numbers and the strings "NaN", "+Inf", "Inf" and
// "-Inf"; a null value reads as NaN (docs/spec.md: what another tool
// writes for an undefined value).
func (m *Metrics) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*m = nil
		return nil
	}
	out := make(Metrics, len(raw))
	for k, r := range raw {
		v, err := metricValue(r)
		if err != nil {
			return fmt.Errorf("metric %q: %w", k, err)
		}
		out[k] = v
	}
	*m = out
	return nil
}

func metricValue(r json.RawMessage) (float64, error) {
	r = bytes.TrimSpace(r)
	if string(r) == "null" {
		// repro writes an undefined value as "NaN"; a null (what most
		// JSON writers make of NaN) reads as the same undefined value.
		return math.NaN(), nil
	}
	if len(r) > 0 && r[0] == '"' {
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			return 0, err
		}
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "+Inf", "Inf":
			return math.Inf(1), nil
		case "-Inf":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("got %s; want a number, \"NaN\", \"+Inf\" or \"-Inf\"", strconv.Quote(s))
	}
	if len(r) > 0 && (r[0] == '-' || r[0] >= '0' && r[0] <= '9') {
		// A JSON number (the line was decoded as JSON): parsed as
		// json.Unmarshal parses it, without its machinery per value.
		if v, err := strconv.ParseFloat(string(r), 64); err == nil {
			return v, nil
		}
	}
	var v float64
	if err := json.Unmarshal(r, &v); err != nil {
		return 0, err
	}
	return v, nil
}

// Observation is one point a trial contributes to a curve: an x value (a
// training size, a label budget), the metrics there, and any named extras
// a protocol or method records (components chosen, dictionary size).
type Observation struct {
	X       float64 `json:"x"`
	Metrics Metrics `json:"metrics"`
	Extras  Metrics `json:"extras,omitempty"`
	// Bootstrap holds the metrics on resamples of the test set
	// (report.bootstrap), or nil.
	Bootstrap Samples `json:"bootstrap,omitempty"`
}

// Samples holds, per metric, its values on the bootstrap resamples of a
// trial's test set (Result.Bootstrap). Its JSON form writes non-finite
// values as strings, as Metrics does.
type Samples map[string][]float64

// MarshalJSON writes s with its keys sorted and non-finite values as
// strings ("NaN", "+Inf", "-Inf").
func (s Samples) MarshalJSON() ([]byte, error) {
	return marshalSorted(s, func(b *bytes.Buffer, vs []float64) error {
		b.WriteByte('[')
		for j, v := range vs {
			if j > 0 {
				b.WriteByte(',')
			}
			if err := writeValue(b, v); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Samples) UnmarshalJSON(data []byte) error {
	var raw map[string][]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*s = nil
		return nil
	}
	out := make(Samples, len(raw))
	for k, rs := range raw {
		vs := make([]float64, len(rs))
		for i, r := range rs {
			v, err := metricValue(r)
			if err != nil {
				return fmt.Errorf("bootstrap %q, resample %d: %w", k, i, err)
			}
			vs[i] = v
		}
		out[k] = vs
	}
	*s = out
	return nil
}

// FullPrefix prefixes the extras of the active protocol's fit on the
// whole pool (param full): full_auc is the AUC of the learner trained on
// every pool row.
const FullPrefix = "full_"
