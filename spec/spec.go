package spec

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/param"
)

// Spec is a parsed and validated experiment. See docs/spec.md for the YAML.
type Spec struct {
	File        string `yaml:"-"` // the file it was read from
	Name        string `yaml:"name"`
	Description string `yaml:"description,omitempty"`
	Seed        uint64 `yaml:"seed"`

	Datasets []DatasetSpec `yaml:"datasets"`
	Methods  []MethodSpec  `yaml:"methods"`
	// Protocol is the trial protocol; curve (the default) reads its
	// sizes from Curve.
	Protocol ProtocolSpec  `yaml:"protocol,omitempty"`
	Curve    Curve         `yaml:"curve"`
	Metrics  []string      `yaml:"metrics"`
	Baseline string        `yaml:"baseline,omitempty"`
	Report   ReportSpec    `yaml:"report,omitempty"`
	Expect   []Expectation `yaml:"expect,omitempty"`
	// Smoke holds the --set assignments `repro run --smoke` applies
	// before it runs the first trial of each series: the reductions
	// (budget, corpus) that keep an experiment's smoke run short.
	Smoke []string `yaml:"smoke,omitempty"`

	// places holds the position of each decoded value by field path
	// ("curve.sizes[2]", "datasets[0].split.test"), for the problems
	// found once the data is loaded (ErrorAt).
	places map[string]FieldError
	// sizesSet reports that curve.sizes may be a reduction: from a --set
	// argument or a smoke: assignment, or in a resolved spec (Marshal)
	// written with one. The expectations' sizes, written for the file's
	// curve, are then not held to it.
	sizesSet bool
}

// SizesSet reports that curve.sizes may be a reduction (from --set or a
// smoke: assignment): the expectations' sizes, written for the file's
// curve, are then not held to it.
func (s *Spec) SizesSet() bool { return s.sizesSet }

// ErrorAt returns a FieldError about the field at path, located at its
// value, or when that has no recorded position at the nearest enclosing
// field that has one (a default value is at its section).
func (s *Spec) ErrorAt(path, format string, args ...any) FieldError {
	fe := FieldError{File: s.File}
	for p := path; p != ""; p = parentPath(p) {
		if at, ok := s.places[p]; ok {
			fe = at
			break
		}
	}
	fe.Path, fe.Msg = path, fmt.Sprintf(format, args...)
	return fe
}

// parentPath strips the last key or index of a field path:
// "a.b[2]" → "a.b" → "a" → "".
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// Pos is a position in a spec file.
type Pos struct {
	Line, Column int
}

// DatasetSpec is one entry of `datasets:`.
type DatasetSpec struct {
	// Name is the registered dataset plugin.
	Name string `yaml:"name"`
	// ID names the dataset in reports and keys; it defaults to Name and
	// must be unique within the spec.
	ID         string          `yaml:"id,omitempty"`
	Params     param.Values    `yaml:"params,omitempty"` // resolved, defaults filled
	Transforms []TransformSpec `yaml:"transforms,omitempty"`
	Split      Split           `yaml:"split,omitempty"`
	// Tasks is "" (the dataset's own classes) or "one-vs-rest": a K-class
	// dataset becomes K binary tasks, fitted jointly by methods.MultiTask
	// methods and independently by the others.
	Tasks string `yaml:"tasks,omitempty"`
	// SamplesOf is the id of another entry whose splits, training samples
	// and cross-validation folds this entry shares ("" draws its own): two
	// feature sets of the same documents then compare on the same rows in
	// every trial, a true pairing. The two must have the same rows, labels
	// and split.
	SamplesOf string `yaml:"samples_of,omitempty"`
	Pos       Pos    `yaml:"-"`
}

// SampleID names the dataset in its sample and split seeds: SamplesOf if
// set, else ID.
func (ds *DatasetSpec) SampleID() string {
	if ds.SamplesOf != "" {
		return ds.SamplesOf
	}
	return ds.ID
}

// TransformSpec is one entry of a dataset's `transforms:`.
type TransformSpec struct {
	Name   string       `yaml:"name"`
	Params param.Values `yaml:"params,omitempty"`
	// Fit says what the transform is fitted on: "" (the whole dataset,
	// once, when it loads: feature graphs, corpus compression), "pool"
	// (in each trial, every non-test row, labels hidden: PCA of the pool)
	// or "train" (in each trial, the training rows). A transform sees
	// labels only if its plugin declares itself supervised.
	Fit string `yaml:"fit,omitempty"`
	Pos Pos    `yaml:"-"`
}

// The values of TransformSpec.Fit besides "" (fitted once, when the
// dataset loads).
const (
	FitPool  = "pool"  // in each trial, on the pool's rows
	FitTrain = "train" // in each trial, on the training rows
)

// Split says how a dataset is divided, in each trial, into a training pool
// and a test part: Kind names a splitter (see Splitters: given, holdout,
// rest, train, kfold) and Params holds the splitter's own params, defaults
// filled (holdout's test and stratify, kfold's folds and repeats).
type Split struct {
	Kind   string       `yaml:"kind"`
	Params param.Values `yaml:",inline"`
}

// MethodSpec is one entry of `methods:`.
type MethodSpec struct {
	// Name is the registered method plugin.
	Name string `yaml:"name"`
	// Label names the method in reports; defaults to Name; unique.
	Label string `yaml:"label,omitempty"`
	// Grid holds the resolved parameter values at every grid point: the
	// cartesian product of the list-valued params, in the order the params
	// are declared by the plugin, last varying fastest. A spec without
	// lists has one grid point.
	Grid []param.Values `yaml:"-"`
	// Varying lists the names of the params that take more than one value.
	Varying []string `yaml:"-"`
	// Params echoes the params as written (each a value or a list of
	// values), for spec.yaml.
	Params map[string]any `yaml:"params,omitempty"`
	Select Select         `yaml:"select,omitempty"`
	// Protocol holds the protocol params the method's series sets for
	// itself, over the experiment's (only those the protocol lists in
	// PerMethod: the active protocol's strategy, initial, batch, budget,
	// budgets); nil when it sets none. See Spec.ProtocolParams.
	Protocol param.Values `yaml:"protocol,omitempty"`
	// Datasets, if set, are the ids of the only datasets the method runs
	// on; nil means every dataset. See RunsOn.
	Datasets []string `yaml:"datasets,omitempty"`
	Pos      Pos      `yaml:"-"`
}

// Select is a method's rule for choosing among its grid points.
type Select struct {
	// Rule is one of:
	//   fixed — no selection: every grid point is its own variant, reported
	//           as "label (p=v …)";
	//   cv    — k-fold cross-validation on each training set by Metric, then
	//           a refit on the whole training set at the best point;
	//   test  — the best point on the test set itself: the oracle choice some
	//           papers use, flagged as such in reports.
	Rule   string `yaml:"rule"`
	Folds  int    `yaml:"folds,omitempty"`
	Metric string `yaml:"metric,omitempty"`
	// Over limits a cv or test rule to these varying params; the other
	// varying params make variants, as under the fixed rule, and the rule
	// chooses within each (c by cross-validation at every ρ of a sweep).
	// Empty means every varying param.
	Over []string `yaml:"over,omitempty" json:"Over,omitempty"`
}

// ProtocolSpec names the trial protocol (see Protocols) and holds its
// params, defaults filled.
type ProtocolSpec struct {
	Name   string       `yaml:"name"`
	Params param.Values `yaml:",inline"`
}

// ProtocolName returns the protocol, "curve" when none is set.
func (p ProtocolSpec) ProtocolName() string {
	if p.Name == "" {
		return defaultProtocol
	}
	return p.Name
}

// Curve is the training-size curve.
type Curve struct {
	// Sizes are training-set sizes: counts (whole numbers > 1) or
	// fractions in (0, 1] of the training pool (1 is the whole pool).
	Sizes  []float64 `yaml:"sizes"`
	Trials int       `yaml:"trials"`
	// Sampling is random, stratified (class proportions kept) or balanced
	// (equal count per class).
	Sampling string `yaml:"sampling"`
}

// ReportSpec holds report options.
type ReportSpec struct {
	// LogX draws the size (or X param) axis on a log scale.
	LogX bool `yaml:"logx,omitempty"`
	// X is "size" (default), the name of a varying method parameter to put
	// on the x axis of the plots (sweeps over c or ρ; series are then the
	// method variants with the other parameters fixed), or the x a
	// protocol records (budget).
	X string `yaml:"x,omitempty"`
	// XTransform applies to X param values before plotting: "" or "neglog"
	// (−ln v, for ρ).
	XTransform string `yaml:"x_transform,omitempty"`
	// Y names the values to table and plot against X besides the
	// metrics: extras a protocol or method records with its observations
	// (components chosen per iteration, dictionary size).
	Y []string `yaml:"y,omitempty"`
	// Digits, if set, is the number of decimals of every metric in tables
	// and checks; unset, each metric has its own (metric.Metric.Digits).
	Digits *int `yaml:"digits,omitempty"`
	// MetricDigits sets the decimals of single metrics or extras, over
	// Digits: "auc" → "3" (as written; DigitsFor reads it).
	MetricDigits map[string]string `yaml:"metric_digits,omitempty"`
	// Artifacts says which method artifacts report.md shows: "" or
	// "all", "plots", "tables" or "none".
	Artifacts string `yaml:"artifacts,omitempty"`
	// Bootstrap, if positive, is the number of resamples of each trial's
	// test set its metrics are also computed on (stored in
	// Result.Bootstrap), for the report's bootstrap intervals.
	Bootstrap int `yaml:"bootstrap,omitempty"`
	// Test is the paired test of the Win/Tie/Loss tables and the
	// expectations, one of PairedTests; "" means the default at each size
	// (reports.DefaultTest: corrected-t where trials' training samples
	// share at least half their rows, else t).
	Test string `yaml:"test,omitempty"`
	// Choose makes datasets of the report out of the spec's: see
	// DatasetChoice. Not part of trial keys.
	Choose []DatasetChoice `yaml:"choose,omitempty"`
}

// DatasetChoice is one entry of report.choose: a dataset of the report,
// named ID, made of the dataset entries Among (the same rows under
// different corpus-level transforms: one compression per pointer cost).
// For each method series, size and trial index it holds the result of the
// entry whose select score (Result.SelectScore: the cross-validation
// score at the point the method's rule chose) is best, ties going to the
// first in Among — a choice among what a method's grid cannot vary, by
// the same criterion that chose the method's hyperparameters. Each
// member's cv rule draws its own folds (the sample seed involves the
// dataset id), so the scores compared include that fold noise. It runs
// nothing: expectations and tables name ID as a dataset.
type DatasetChoice struct {
	ID    string   `yaml:"id"`
	Among []string `yaml:"among"`
	Pos   Pos      `yaml:"-"`
}

// DigitsFor returns the decimals report.metric_digits or report.digits
// set for the metric or extra name, and whether one does: a metric's
// parts ("binary_errors/<class>") take the metric's.
func (r *ReportSpec) DigitsFor(name string) (int, bool) {
	base, _, _ := strings.Cut(name, "/")
	for _, k := range []string{name, base} {
		if s, ok := r.MetricDigits[k]; ok {
			if n, err := parseDigits(s); err == nil {
				return n, true
			}
		}
	}
	if r.Digits != nil {
		return *r.Digits, true
	}
	return 0, false
}

// ShowsArtifacts reports whether report.md shows artifacts of the kind
// "plots" or "tables".
func (r *ReportSpec) ShowsArtifacts(kind string) bool {
	return r.Artifacts == "" || r.Artifacts == "all" || r.Artifacts == kind
}

// check reports a key of report.metric_digits that names neither a
// metric of the spec nor a value of report.y (a misspelt metric would
// silently keep its default).
func (r *ReportSpec) check(d *decoder, f *fields, path string) bool {
	n := d.resolve(f.get(d, "metric_digits"))
	if n == nil || n.Kind != yaml.MappingNode || d.root == nil {
		return true
	}
	known := append(slices.Clip(d.root.Metrics), r.Y...)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if contains(known, k.Value) {
			continue
		}
		msg := fmt.Sprintf("unknown metric %q", k.Value)
		if c := param.Closest(k.Value, known); c != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", c)
		}
		d.errorf(k, Sub(Sub(path, "metric_digits"), k.Value), "%s; want one of metrics or report.y: %s", msg, strings.Join(known, ", "))
	}
	return true
}

// Expectation is one entry of `expect:`: a value check (Value, or
// Min/Max), a relation (Better/Than: on the means, Significant, AtPar or
// Within alone) or a Win/Tie/Loss count (WTL, Slack).
type Expectation struct {
	Dataset string `yaml:"dataset,omitempty"` // dataset ID; "" if the spec has one
	Metric  string `yaml:"metric"`
	// Sizes limits the check to these training sizes (as resolved counts);
	// empty means every size.
	Sizes []int `yaml:"sizes,omitempty"`

	// Value check: the mean over trials of Method's Metric at each size.
	Method string   `yaml:"method,omitempty"`
	Value  *float64 `yaml:"value,omitempty"` // the paper's figure
	Tol    *float64 `yaml:"tol,omitempty"`   // absolute tolerance
	RTol   *float64 `yaml:"rtol,omitempty"`  // relative tolerance
	Min    *float64 `yaml:"min,omitempty"`
	Max    *float64 `yaml:"max,omitempty"`

	// Relation: Better beats Than by at least By (in the metric's direction)
	// on the mean over trials at each checked size.
	Better string  `yaml:"better,omitempty"`
	Than   string  `yaml:"than,omitempty"`
	By     float64 `yaml:"by,omitempty"`
	// Within turns the relation into a parity (non-inferiority) check:
	// Better may trail Than by at most Within, in the metric's units — the
	// form of a paper's "at par with" claim. Exclusive with By.
	Within *float64 `yaml:"within,omitempty"`
	// Significant makes the relation pass only when the paired test of
	// report.test over trials with the same index finds the difference
	// significant at Alpha in the claimed direction (besides the margin
	// By on the means). Without it a relation compares means only: its
	// verdict says "direction only".
	Significant bool `yaml:"significant,omitempty"`
	// AtPar makes the relation a parity claim: it passes when the paired
	// test finds no significant difference at Alpha and, with Within, the
	// absolute gap of the means is at most Within. Exclusive with By and
	// Significant.
	AtPar bool `yaml:"at_par,omitempty"`
	// Alpha is the significance level of Significant, AtPar and WTL;
	// 0 means DefaultAlpha.
	Alpha float64 `yaml:"alpha,omitempty"`
	// WTL, when its Series is set, is a Win/Tie/Loss count check: the
	// report's W/T/L of Series against Than over the x values compared
	// with the paper's counts, each within Slack.
	WTL WTLCount `yaml:"wtl,omitempty"`
	// Slack is the largest absolute difference allowed between each of
	// the measured wins, ties and losses and the paper's.
	Slack int `yaml:"slack,omitempty"`
	// ThanDataset, if set, takes Than from this dataset instead of
	// Dataset: a comparison across feature sets of the same rows (one
	// corpus under two transforms), trials matched by index. (Their
	// training samples differ below the whole pool: the sample seed
	// involves the dataset id.)
	ThanDataset string `yaml:"than_dataset,omitempty"`

	// Source cites the paper figure or table the value comes from.
	Source string `yaml:"source,omitempty"`
	// Note explains a known deviation.
	Note string `yaml:"note,omitempty"`
	Pos  Pos    `yaml:"-"`
}

// DefaultAlpha is the significance level of an expectation without alpha
// and of the report's Win/Tie/Loss tables.
const DefaultAlpha = 0.05

// AlphaOr returns e's significance level: Alpha, or DefaultAlpha.
func (e *Expectation) AlphaOr() float64 {
	if e.Alpha > 0 {
		return e.Alpha
	}
	return DefaultAlpha
}

// WTLCount is the paper's Win/Tie/Loss count of Series against Than:
// over the x values (training sizes, active-learning batches), how often
// Series is significantly better, neither, or significantly worse.
type WTLCount struct {
	Series string `yaml:"series,omitempty"`
	Than   string `yaml:"than,omitempty"`
	Wins   *int   `yaml:"wins,omitempty"`
	Ties   *int   `yaml:"ties,omitempty"`
	Losses *int   `yaml:"losses,omitempty"`
}

// PairedTests names the paired tests report.test may choose (the reports
// package runs them): Student's paired t-test, the corrected resampled
// t-test of Nadeau and Bengio (2003), the Wilcoxon signed-rank test.
var PairedTests = []string{"t", "corrected-t", "wilcoxon"}

// KindName returns the split kind, "rest" when none is set (a spec built in
// code rather than decoded, which fills the default).
func (s Split) KindName() string {
	if s.Kind == "" {
		return defaultSplit
	}
	return s.Kind
}

// RuleName returns the select rule, "fixed" when none is set.
func (s Select) RuleName() string {
	if s.Rule == "" {
		return defaultRule
	}
	return s.Rule
}
