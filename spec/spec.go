package spec

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/stats"
)

// Spec is a parsed and validated experiment. See docs/spec.md for the YAML.
//
// The exported fields of Spec and of the types of its sections declare
// the experiment language: each field with a yaml key is a key of its
// section, its tags say what values it takes and its doc comment's first
// paragraph documents it (see fields.go).
type Spec struct {
	File string `yaml:"-"` // the file it was read from
	// The experiment's name: letters, digits, `.`, `_`, `-`, at most 200
	// characters. Output goes to `out/<name>` unless `-o` is given.
	Name string `yaml:"name" want:"the experiment's name, e.g. sandler2008-fig1-20newsgroups" check:"name"`
	// What is reproduced and every deviation from the paper. Shown in the
	// report.
	Description string `yaml:"description,omitempty" spec:"optional"`
	// The experiment seed; every trial's seeds derive from it (see *Keys and
	// seeds*).
	Seed uint64 `yaml:"seed" range:"[0, +inf)" default:"DefaultSeed"`
	// Registered metrics computed on every test set (`repro list metrics`).
	// Each must apply to every method's problem kind (classification /
	// regression).
	//
	// Metrics come before methods: select rules default to the first
	// metric, and a method's problem kind is checked against them.
	Metrics []string `yaml:"metrics" spec:"nonempty,unique" elem:"metric" hook:"metrics"`
	// The datasets, below.
	Datasets []DatasetSpec `yaml:"datasets" spec:"nonempty" elem:"dataset" hook:"datasets"`
	// The methods, below.
	Methods []MethodSpec `yaml:"methods" spec:"nonempty" elem:"method" hook:"methods"`
	// The trial protocol: a name (`protocol: active`) or a mapping of the
	// name and the protocol's parameters.
	//
	// Default: `curve`
	//
	// Curve, the default, reads its sizes from Curve.
	Protocol ProtocolSpec `yaml:"protocol,omitempty" default:"{name: curve}" hook:"protocol"`
	// Training sizes, trials and sampling (below). Required by a per-size
	// protocol (`curve`); otherwise optional, without `sizes`.
	//
	// Default: required by `curve`
	Curve Curve `yaml:"curve" spec:"optional" want:"a mapping with sizes (and trials, sampling)"`
	// A method label or series name (`"label (p=v)"`) that reports compare
	// the others against (Win/Tie/Loss).
	Baseline string `yaml:"baseline,omitempty" spec:"optional"`
	// Report options (below).
	Report ReportSpec `yaml:"report,omitempty" spec:"optional"`
	// Checks of the results against the paper's figures, run by `repro
	// check` (below).
	//
	// Default: `[]`
	Expect []Expectation `yaml:"expect,omitempty" spec:"optional" elem:"expectation"`
	// Assignments, as `--set` takes them, that `repro run --smoke` applies
	// before it runs the first trial at the smallest size of every series:
	// the reductions (a smaller budget, a slice of the corpus) that keep the
	// smoke run CI makes of every experiment within a minute or two. Ignored
	// by a normal run; `--set` given with `--smoke` comes after them.
	Smoke []string `yaml:"smoke,omitempty" spec:"optional" want:"a list of --set assignments, key.path=value" check:"set"`

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
	// A registered dataset plugin (`repro list datasets`).
	Name string `yaml:"name" spec:"tag" elem:"dataset" hook:"dataset"`
	// The dataset's name in reports, keys and `expect`: letters, digits,
	// `.`, `_`, `-`. Ids must be unique: two entries of the same plugin need
	// distinct ids.
	//
	// Default: `name`
	ID string `yaml:"id,omitempty" spec:"optional" check:"id"`
	// The plugin's parameters, each checked against its declaration (type,
	// range, choices) and by the plugin's Validate hook; missing ones take
	// their defaults; required ones must be given. Files are paths relative
	// to the data directory (`--data`, `$REPRO_DATA`). A dataset parameter
	// cannot be a grid: write one dataset entry per value.
	//
	// Default: plugin defaults
	//
	// Params holds the resolved values, defaults filled.
	Params param.Values `yaml:"params,omitempty" spec:"optional"`
	// Transforms applied in order, each `{name, params, fit}` (`repro list
	// transforms`).
	//
	// Default: `[]`
	Transforms []TransformSpec `yaml:"transforms,omitempty" spec:"optional" elem:"transform" hook:"transforms"`
	// How rows divide into a training pool and a test set: a split kind and
	// its parameters (below).
	//
	// Default: `{kind: rest}`
	Split Split `yaml:"split,omitempty" default:"{kind: rest}" hook:"split"`
	// Treat a K-class dataset as K binary tasks: `methods.MultiTask` methods
	// fit them jointly, others once per task; predictions are one-vs-rest.
	Tasks string `yaml:"tasks,omitempty" spec:"optional" enum:"one-vs-rest"`
	// The id of another entry whose test splits, training samples and
	// cross-validation folds this one shares in every trial: two feature
	// sets of the same documents (say compressed and all 5-grams) then meet
	// the same rows, a true pairing for `than_dataset` comparisons. Both
	// entries must have the same rows, labels, split and tasks; the named
	// entry must draw its own.
	//
	// Default: its own
	//
	// SamplesOf is "" when the entry draws its own (see SampleID).
	SamplesOf string `yaml:"samples_of,omitempty" spec:"optional" check:"dataset id"`
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
	// A registered transform plugin (`repro list transforms`).
	Name string `yaml:"name" spec:"tag" elem:"transform" hook:"transform"`
	// The transform's parameters.
	//
	// Default: plugin defaults
	Params param.Values `yaml:"params,omitempty" spec:"optional"`
	// What the transform is fitted on: absent, the whole dataset once when
	// it loads (cached on disk by content) — only for a transform that
	// learns nothing from the rows (relabel, subsample, lexicon-classes);
	// one that learns (normalize, standardize, pca, compress, kgrams, lz77,
	// the co-occurrence and lexicon-correlation graphs) must say what it
	// sees: `all`, once on every row, declared: the paper's protocol is
	// transductive (a corpus compressed without labels, a vocabulary over
	// the whole corpus), and the report says the test rows were seen;
	// `pool`, in each trial every non-test row, labels hidden; `train`, in
	// each trial the training rows.
	//
	// Default: corpus
	//
	// Fit is "", FitAll, FitPool or FitTrain. A transform sees labels only
	// if its plugin declares itself supervised.
	Fit string `yaml:"fit,omitempty" spec:"optional" hook:"fit"`
	Pos Pos    `yaml:"-"`
}

// The values of TransformSpec.Fit besides "" (fitted once, when the
// dataset loads).
const (
	FitPool  = "pool"  // in each trial, on the pool's rows
	FitTrain = "train" // in each trial, on the training rows
	// FitAll is "" declared: once, on every row of the dataset, test rows
	// included (a transductive protocol). It does not enter trial keys.
	FitAll = "all"
)

// PerTrial reports whether the transform is fitted in each trial (fit:
// pool or train) rather than once on the whole dataset (no fit, fit: all).
func (t TransformSpec) PerTrial() bool { return t.Fit == FitPool || t.Fit == FitTrain }

// Split says how a dataset is divided, in each trial, into a training pool
// and a test part: Kind names a splitter (see Splitters: given, holdout,
// rest, train, kfold) and Params holds the splitter's own params, defaults
// filled (holdout's test and stratify, kfold's folds and repeats).
type Split struct {
	// A split kind (below).
	Kind   string       `yaml:"kind" spec:"tag" hook:"split kind"`
	Params param.Values `yaml:",inline"`
}

// MethodSpec is one entry of `methods:`.
type MethodSpec struct {
	// A registered method plugin (`repro list methods`).
	Name string `yaml:"name" spec:"tag" elem:"method" hook:"method"`
	// The method's name in reports and `expect`; unique, without
	// parentheses. Two entries of the same plugin need distinct labels.
	//
	// Default: `name`
	Label string `yaml:"label,omitempty" spec:"optional" check:"label"`
	// Grid holds the resolved parameter values at every grid point: the
	// cartesian product of the list-valued params, in the order the params
	// are declared by the plugin, last varying fastest. A spec without
	// lists has one grid point.
	Grid []param.Values `yaml:"-"`
	// Varying lists the names of the params that take more than one value.
	Varying []string `yaml:"-"`
	// The plugin's parameters; any value may be a list, which makes a
	// **grid**. Every grid point is checked by the plugin's Validate hook.
	//
	// Default: plugin defaults
	//
	// Params echoes the params as written (each a value or a list of
	// values), for spec.yaml; Grid holds them resolved.
	Params map[string]any `yaml:"params,omitempty" spec:"optional,grid"`
	// How the grid's points are chosen among (below).
	//
	// Default: `{rule: fixed}`
	Select Select `yaml:"select,omitempty" default:"{rule: fixed}"`
	// Protocol params this method's series sets for itself, over
	// `protocol:`: with `active`, `strategy`, `initial`, `batch`, `budget`,
	// `budgets` (`{strategy: uncertainty}` beside another entry of the same
	// plugin with `{strategy: random}` compares two query strategies in one
	// run). The samples, splits and folds do not depend on it, so the series
	// stay paired (under the same `initial`, they start from the same
	// labelled rows). It changes a trial's key only where it changes a
	// value, so keys of specs without it are unchanged. With `budget`, the
	// experiment's `budgets` still take precedence on their datasets unless
	// the method sets `budgets` too.
	//
	// Default: the experiment's
	//
	// Protocol holds only params the protocol lists in PerMethod; nil when
	// the method sets none. See Spec.ProtocolParams.
	Protocol param.Values `yaml:"protocol,omitempty" spec:"optional" hook:"method protocol"`
	// The ids of the only datasets the method runs on. An expectation about
	// the method on another dataset is an error; reports leave its series
	// out there. Not part of trial keys.
	//
	// Default: all
	//
	// Datasets is nil for every dataset. See RunsOn.
	Datasets []string `yaml:"datasets,omitempty" spec:"optional,nonempty,unique" elem:"dataset id" check:"dataset id"`
	Pos      Pos      `yaml:"-"`
}

// Select is a method's rule for choosing among its grid points: fixed (no
// selection: every grid point is its own variant, reported as "label (p=v
// …)"), cv (k-fold cross-validation on each training set by Metric, then a
// refit on the whole training set at the best point) or test (the best
// point on the test set itself: the oracle choice some papers use, flagged
// as such in reports).
type Select struct {
	// A select rule (below).
	Rule string `yaml:"rule" hook:"select rule"`
	// Cross-validation folds of rule `cv`; an error with rule `test`,
	// ignored with `fixed`.
	Folds int `yaml:"folds,omitempty" range:"[2, 1000]" default:"DefaultFolds"`
	// The metric rules `cv` and `test` choose by; ignored with `fixed`.
	//
	// Default: the first of `metrics:`
	Metric string `yaml:"metric,omitempty" spec:"optional" elem:"metric" hook:"metric"`
	// Rules `cv` and `test`: the varying params the rule chooses; the others
	// make variants, as under `fixed`. All of them if absent.
	//
	// Over, when set, makes the rule choose c by cross-validation at every
	// ρ of a sweep.
	Over []string `yaml:"over,omitempty" json:"Over,omitempty" spec:"optional,unique" elem:"param"`
}

// ProtocolSpec names the trial protocol (see Protocols) and holds its
// params, defaults filled.
type ProtocolSpec struct {
	// A trial protocol.
	Name   string       `yaml:"name" spec:"tag" elem:"protocol" hook:"protocol name"`
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
	// Training-set sizes. A number > 1 is a **count** of rows (a whole
	// number); a number in (0, 1] is a **fraction** of the training pool
	// (`1` is the whole pool), resolved per dataset at run time. The
	// trials of one size are one column of the report, one paired test
	// and one Friedman cell, whatever rows each fold or fraction leaves
	// them (5-fold cross-validation of 1,532 rows trains on 1,225 or
	// 1,226: a column headed 1225–1226).
	//
	// Default: required by `curve`
	Sizes []float64 `yaml:"sizes" spec:"optional,nonempty,unique" elem:"training size" want:"a list of training sizes: counts ≥ 2 or fractions in (0, 1] of the training pool" check:"training size"`
	// Independent training samples per size. A split that defines its own
	// trials (kfold: folds × repeats) sets it; it may then only repeat that
	// number.
	Trials int `yaml:"trials" range:"[1, maxTrials]" default:"1"`
	// How training samples are drawn from the pool: uniformly, keeping the
	// class proportions, or with an equal count per class.
	Sampling string `yaml:"sampling" hook:"sampling"`
}

// ReportSpec holds report options.
type ReportSpec struct {
	// Log-scale x axis.
	LogX bool `yaml:"logx,omitempty" default:"false"`
	// What goes on the x axis: `size`, or a parameter that some method's
	// series vary — a grid axis under rule `fixed`, or one `select.over`
	// leaves to the variants (a sweep over c or ρ; series are then the
	// method's variants with the other parameters fixed). Any other name is
	// an error.
	//
	// X may also be the x a protocol records (budget).
	X string `yaml:"x,omitempty" default:"size" check:"x"`
	// Names to table and plot against `x`: metrics, or extras a protocol or
	// method records (components chosen, dictionary size). Default: the
	// metrics.
	Y []string `yaml:"y,omitempty" spec:"optional,unique" elem:"name" check:"y"`
	// Applied to `x` parameter values before plotting: `neglog` is −ln v
	// (for ρ). Only with `x` set to a parameter.
	XTransform string `yaml:"x_transform,omitempty" spec:"optional" enum:"neglog"`
	// Decimals of every metric in tables and checks. Without it each metric
	// has its own: 2 for percentages (accuracy, error), 3 for auc and r2, 1
	// for binary_errors, 2 for the others and for extras.
	//
	// Default: each metric's own
	//
	// Digits is nil when unset: each metric has its own
	// (metric.Metric.Digits). DigitsFor reads it.
	Digits *int `yaml:"digits,omitempty" spec:"optional" range:"[0, maxDigits]"`
	// Decimals per metric or extra, over `digits` and the metric's own:
	// `{auc: 4, accuracy: 1}`. A key is one of `metrics:` or of `y`.
	//
	// Default: `{}`
	//
	// MetricDigits holds the decimals as written; DigitsFor reads them.
	MetricDigits map[string]string `yaml:"metric_digits,omitempty" spec:"optional" check:"metric digits"`
	// The method artifacts (weight tables, fitted curves) report.md shows:
	// `all`, `plots`, `tables` or `none`. Those left out stay in
	// `artifacts/` and the report says how many.
	//
	// Default: `all`
	Artifacts string `yaml:"artifacts,omitempty" spec:"optional" enum:"all|plots|tables|none"`
	// Resamples of each trial's test set (rows drawn with replacement, the
	// fitted model fixed) on which the runner also computes the metrics;
	// the report shows their 95% percentile interval beside mean ± sd. The
	// resamples derive from the experiment seed alone, the same for every
	// method, dataset entry and trial, so differences are paired. Not part
	// of trial keys: results stored without it keep none.
	//
	// Default: `0` (none)
	//
	// The metrics of the resamples are stored in Result.Bootstrap.
	Bootstrap int `yaml:"bootstrap,omitempty" spec:"optional" range:"[0, MaxBootstrap]"`
	// The paired test over trials with the same index that the Win/Tie/Loss
	// tables and the expectations use, and that each table names beside
	// the overlap of the trials it assumed: `design-t` (the default), `t`
	// (Student's paired t-test), `corrected-t` (the corrected resampled
	// t-test of Nadeau & Bengio 2003, Weka's "corrected" tester: the
	// variance of the mean difference multiplied by 1/J + n_test/n_train
	// instead of 1/J) or `wilcoxon` (the Wilcoxon signed-rank test: exact
	// for at most 50 pairs without zero or tied differences, else the
	// normal approximation; zeros dropped). `design-t` is the paired t-test
	// over the design's independent units: the trials, or — kfold with
	// refold false, whose repeats of a fold share its split — the folds'
	// mean differences; given the data, trials that draw their splits and
	// samples independently are uncorrelated whatever rows they share, so
	// it corrects nothing else (docs/statistics.md derives it, and `repro
	// calibrate` measures its Type I error and power on every design of
	// experiments/). Split `train` (in-sample metrics) takes `t`. A
	// difference constant over n pairs (no spread) gets the sign test's p =
	// 2^(1−n) from the t-tests: a verdict from one needs at least 6 pairs.
	// `repro diff` uses the same test. A paper's reproduction names the
	// test the paper used.
	//
	// Default: `design-t` (below)
	//
	// Test is one of PairedTests, or "" for the default (design-t:
	// reports.DefaultTest).
	Test string `yaml:"test,omitempty" spec:"optional" hook:"paired test"`
	// Datasets of the report made of others, each `{id, among}`: per method
	// series, size and trial, the result of the `among` entry whose select
	// score (the cv score at the point the method's rule chose) is best,
	// ties to the first listed — a cross-validation over what no grid can
	// vary, such as a corpus-level transform's parameter (one dataset entry
	// per pointer cost). Each entry's cv draws its own folds (the sample
	// seed involves the dataset id) unless the entries share them through
	// `samples_of`, which makes the choice compare the same folds. Every
	// method needs a `cv` or `test` rule over two or more grid points
	// (`repro validate` says which does not). Expectations may name `id` as
	// their dataset. Not part of trial keys.
	//
	// Default: `[]`
	Choose []DatasetChoice `yaml:"choose,omitempty" spec:"optional" elem:"choice"`
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
	// The chosen dataset's id: not an id of `datasets:`.
	ID string `yaml:"id" check:"dataset id"`
	// Two or more dataset ids of `datasets:`, the same rows under different
	// transforms.
	Among []string `yaml:"among" spec:"unique" elem:"dataset id"`
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
// Within alone), a Win/Tie/Loss count (WTL, Slack), a trend (Trend) or a
// check of a dataset fact (Fact) — of a metric, an extra a method
// records (Extra) or a measure of an artifact (Artifact), of each series
// or of the best of a grid (Best), at each x or over the whole curve
// (Area).
type Expectation struct {
	// A dataset id; may be omitted when the spec has one dataset.
	Dataset string `yaml:"dataset,omitempty" spec:"optional"`
	// One of the spec's `metrics:`: what the entry checks — or instead
	// `extra`, `fact` or `artifact`, one of the four per entry.
	Metric string `yaml:"metric,omitempty" spec:"optional" elem:"metric" hook:"metric"`
	// Instead of `metric`: a value the method records in each trial's line
	// of results.jsonl besides its metrics — an extra (`components` of
	// DDR/EE, `pc_x`, `pair_train_error`, `full/auc`), a field of the result
	// (`iterations`, `fit_seconds`, `select_seconds`, `train_rows`,
	// `test_rows`, `select_score`) or `chosen.P`, the value of grid param
	// P a cv or test rule chose — in every form a metric takes: `{method:
	// EE (k=30), extra: components, min: 100}`, `{better: EE (k=30), than:
	// DDR (k=30), extra: components}` (EE records more; see `direction`).
	Extra string `yaml:"extra,omitempty" spec:"optional"`
	// With `extra`: a second value of the same trial that divides it, the
	// check being on the ratio per trial — "the ratio of α to β tended to
	// be around 100:1": `{method: fnr, extra: chosen.alpha, over_extra:
	// chosen.beta, value: 100, rtol: 0.5}`.
	OverExtra string `yaml:"over_extra,omitempty" spec:"optional"`
	// Instead of `metric`: a fact of the dataset from datasets.json —
	// `rows`, `cols`, `classes` (their number) or a key of its `stats` —
	// checked with `value` (and `tol`/`rtol`), `min` or `max`, without
	// `method`: `{dataset: 20news-5grams, fact: cols, min: 1000000}`.
	// With `over_dataset`, the ratio of this dataset's fact to the other's:
	// `{dataset: 20news-5grams, over_dataset: 20news-compressed, fact: cols,
	// min: 100}` ("two orders of magnitude fewer features").
	Fact string `yaml:"fact,omitempty" spec:"optional"`
	// With `fact`: the dataset id whose fact divides this dataset's.
	OverDataset string `yaml:"over_dataset,omitempty" spec:"optional"`
	// Instead of `metric`: a measure of a table the method saves per trial
	// in artifacts/KEY/NAME.json (below), in every form a metric takes,
	// the per-trial measures standing for the metric's values: `{method:
	// "MED rho=1e-4", artifact: {name: weights, measure: zeros, eps: 0.01},
	// min: 0.8}`. With measure `table`, each listed row against the
	// paper's table within `tol`/`rtol` instead.
	//
	// Default: none
	//
	// Artifact is a check when its Name is set.
	Artifact ArtifactCheck `yaml:"artifact,omitempty" spec:"optional"`
	// The training sizes to check, as curve.sizes writes them (a count,
	// or a fraction of the pool: 1 is the whole pool) or as the row
	// counts they resolve to; the trials of one size of curve.sizes are
	// one column whatever rows each fold or fraction left them; empty
	// means every size.
	Sizes []float64 `yaml:"sizes,omitempty" spec:"optional" elem:"training size" want:"a list of training sizes: counts ≥ 2 or fractions in (0, 1] of the training pool" check:"training size"`

	// Value check: a method label, or a series name `"label (p=v)"` of a
	// fixed-rule grid point (with `best: grid`, a label of several; with
	// `trend`, the method whose values follow it).
	//
	// The value check is on the mean over trials of Method's Metric at
	// each size.
	Method string `yaml:"method,omitempty" spec:"optional"`
	// Value check: the paper's figure; needs `tol`, `rtol` or `sds`.
	Value *float64 `yaml:"value,omitempty" spec:"optional"`
	// Value check: absolute tolerance around `value`.
	Tol *float64 `yaml:"tol,omitempty" spec:"optional" range:"[0, +inf)"`
	// Value check: relative tolerance, a fraction of `value`.
	RTol *float64 `yaml:"rtol,omitempty" spec:"optional" range:"[0, +inf)"`
	// Value check: a tolerance of this many standard deviations of ours
	// over trials — the band of our single runs, for a figure the paper
	// took from one run or split (`{method: hp, metric: mse, value: 4.3,
	// sds: 2}`: could the paper's split be a typical one of ours?). With
	// `tol` or `rtol` too, any of them suffices. Needs two trials or more.
	SDs *float64 `yaml:"sds,omitempty" spec:"optional" range:"[0, +inf)"`
	// Value check: a lower bound on the mean (`min` ≤ `max`).
	Min *float64 `yaml:"min,omitempty" spec:"optional"`
	// Value check: an upper bound on the mean.
	Max *float64 `yaml:"max,omitempty" spec:"optional"`

	// Relation: the label or series name that should win.
	//
	// A relation holds when Better beats Than by at least By (in the
	// metric's direction) on the mean over trials at each checked size.
	Better string `yaml:"better,omitempty" spec:"optional"`
	// Relation: the one it should beat (a different method).
	Than string `yaml:"than,omitempty" spec:"optional"`
	// Relation: the margin in the metric's units and direction; with 0 the
	// mean must be strictly better.
	By float64 `yaml:"by,omitempty" range:"[0, +inf)" default:"0"`
	// Relation, instead of `by`: alone, a non-inferiority check on the means
	// (`better` may trail `than` by at most this; no test, the verdict says
	// so); with `at_par`, the largest absolute gap of the means.
	Within *float64 `yaml:"within,omitempty" spec:"optional" range:"[0, +inf)"`
	// Relation: pass only if the paired test (`report.test`) over trials
	// with the same index finds `better` significantly ahead of `than` at
	// `alpha`, besides the margin `by` on the means. Without it a relation
	// compares means only and its verdict reads `PASS (direction only,
	// p=…)`.
	//
	// Default: `false`
	Significant bool `yaml:"significant,omitempty" spec:"optional"`
	// Relation: a parity claim. Passes when the paired test finds no
	// significant difference at `alpha` and, with `within`, the absolute gap
	// of the means is at most `within`. Not with `by` or `significant`.
	//
	// Default: `false`
	AtPar bool `yaml:"at_par,omitempty" spec:"optional"`
	// The significance level of `significant`, `at_par` and `wtl`, in (0,
	// 1).
	//
	// Default: `0.05`
	//
	// Alpha is 0 when unset: AlphaOr gives DefaultAlpha.
	Alpha float64 `yaml:"alpha,omitempty" spec:"optional" range:"(0, 1)"`
	// Win/Tie/Loss count check, instead of a value check or relation:
	// `{series: A, than: B, wins: W, ties: T, losses: L}`, the paper's
	// counts of the x values (training sizes, active-learning batches;
	// `sizes` limits them) where A is significantly better than B, neither,
	// or significantly worse — the report's W/T/L computation
	// (`report.test`, `alpha`). Passes when each measured count is within
	// `slack` of the paper's.
	//
	// Default: none
	//
	// WTL is a check when its Series is set.
	WTL WTLCount `yaml:"wtl,omitempty" spec:"optional"`
	// With `wtl`: the largest absolute difference allowed between each
	// measured count (wins, ties, losses, each on its own) and the paper's.
	//
	// Default: `0`
	Slack int `yaml:"slack,omitempty" spec:"optional" range:"[0, +inf)"`
	// Relation: the dataset id `than` is taken from, when not `dataset`: a
	// comparison across two dataset entries with the same test rows (one
	// corpus under two feature transforms), trials matched by index for the
	// t-test. Their training samples are the same rows when one entry names
	// the other in `samples_of` (a true pairing), else only when a size is
	// the whole pool: the sample seed involves the dataset id. `than` may
	// then name the same method as `better`.
	ThanDataset string `yaml:"than_dataset,omitempty" spec:"optional"`

	// With a value check or a relation: `grid`, each named label stands
	// for the best of its grid points (its series `"label (p=v)"`) at each
	// x, by the mean — "up to 96 %" over a grid of c and ρ: `{method: MED,
	// best: grid, metric: accuracy, value: 96, tol: 1}`, or best against
	// best: `{better: shared, than: independent, best: grid, metric:
	// error}`; `x`, each series stands for its best x value (the best point
	// of a curve: one row); `both`, the best over both. The row names the
	// point chosen. The choice is made on the test means (an oracle): the
	// check says what the best point reaches, not what a tuned method
	// would.
	Best string `yaml:"best,omitempty" spec:"optional" enum:"grid|x|both"`
	// A trend, with `method` (its means) or with `better` and `than` (the
	// gap of the means, in the metric's direction): monotone along the x
	// values or a grid param (below), instead of a value or relation
	// verdict. "The gap increased with k": `{better: DDR, than: EE,
	// metric: auc, area: true, trend: {shape: increasing, along: k, at:
	// [10, 30]}}`.
	//
	// Default: none
	//
	// Trend is a check when its Shape is set.
	Trend TrendSpec `yaml:"trend,omitempty" spec:"optional"`
	// Over the whole curve: each trial's values at the checked x values
	// (`sizes`, else all) become one, the area under its curve divided by
	// the x range (the trapezoidal mean; the value itself at one x), and
	// the check runs once on those: a value check on their mean, a
	// relation with one paired test over trials (`significant: true`: the
	// learning curves differ as a whole), a trend on their gaps. `{better:
	// DDR, than: PCA-L1, metric: auc, area: true, significant: true}`. A
	// trial without every x is incomplete.
	//
	// Default: `false`
	Area bool `yaml:"area,omitempty" spec:"optional"`
	// With `extra` or `artifact`: which way is better, `higher` or `lower`
	// (`better` has the higher or lower value; `best` takes the highest or
	// lowest). A metric's is its own.
	//
	// Default: `higher`
	Direction string `yaml:"direction,omitempty" spec:"optional" enum:"higher|lower"`

	// Where the paper's figure comes from: "Szafranski 2007, Table 1".
	Source string `yaml:"source,omitempty" spec:"optional"`
	// Why the result may differ.
	Note string `yaml:"note,omitempty" spec:"optional"`
	Pos  Pos    `yaml:"-"`
}

// ArtifactCheck is an expectation's `artifact:`: a measure of a table
// artifact a method saves per trial (the trial's last point's), over the
// cells of Column (all columns when empty) and Rows (all rows when
// empty); cells the runner stored as null (NaN) are left out.
type ArtifactCheck struct {
	// The artifact's name: artifacts/KEY/NAME.json (`weights`, `switches`,
	// `coefficients`, `bandwidths`); a table, not a plot.
	Name string `yaml:"name,omitempty" spec:"optional"`
	// The table's column; all of them when absent, except for `cell` and
	// `table`, which need one when the table has several.
	Column string `yaml:"column,omitempty" spec:"optional"`
	// The table's rows measured, by name (`h=0.3162`, `size/length`); all
	// when absent. `table` needs them, `cell` exactly one.
	Rows []string `yaml:"rows,omitempty" spec:"optional" elem:"row"`
	// `zeros`, the fraction of the cells with |v| ≤ `eps` (exact zeros at
	// eps 0) — `{name: weights, measure: zeros, eps: 0.01}`; `nonzero`,
	// the number of cells with |v| > `eps`; `all_zero`, 1 when every cell
	// of `rows` is within `eps` of zero, else 0, so that its mean is the
	// fraction of trials — "h2, h6, h7 always zero": `{name: bandwidths,
	// column: hp_norm, rows: [h=0.3162, h=31.62, h=100], measure:
	// all_zero}` with `min: 1`; `zero_set`, 1 when the rows within `eps` of
	// zero (every cell of the column, or of all columns) are exactly
	// `rows`, else 0; `cell`, the value of one cell; `table`, each of
	// `rows` against the paper's value in `values`, one row of the check
	// each (`tol`/`rtol` on the mean over trials).
	Measure string `yaml:"measure,omitempty" spec:"optional" enum:"zeros|nonzero|all_zero|zero_set|cell|table"`
	// With `zeros`, `nonzero`, `all_zero` and `zero_set`: the largest |v|
	// counted as zero.
	//
	// Default: `0`
	Eps float64 `yaml:"eps,omitempty" spec:"optional" range:"[0, +inf)"`
	// With `eps`: eps is a fraction of the largest |v| of the cells
	// measured in each trial, not an absolute bound — "most weights are
	// near zero" whatever their scale: `{name: weights, measure: zeros,
	// eps: 0.05, relative: true}` counts |w| ≤ 5 % of max |w|.
	//
	// Default: `false`
	Relative bool `yaml:"relative,omitempty" spec:"optional"`
	// With `table`: the paper's value of each of `rows`, in order.
	Values []float64 `yaml:"values,omitempty" spec:"optional"`
}

// TrendSpec is an expectation's `trend:`: the means (or gaps) are
// monotone along the x values or a grid param.
type TrendSpec struct {
	// `increasing` or `decreasing` (strictly), `nondecreasing` or
	// `nonincreasing`, in the values' own sense (not the metric's
	// direction: a falling error is `decreasing`).
	Shape string `yaml:"shape,omitempty" spec:"optional" enum:"increasing|decreasing|nondecreasing|nonincreasing"`
	// `size`, the x values (training sizes, active-learning batches), or a
	// param the named methods' grids vary under rule `fixed` (`k`, `nu`):
	// then the series `"label (p=v)"` in the order of v, at each x (one row
	// per x, or one with `area`), the other params of a grid held equal. A
	// `than` whose method does not vary it is the same series at each v.
	//
	// Default: `size`
	Along string `yaml:"along,omitempty" spec:"optional"`
	// The values of `along` compared, in order (a gap at k = 30 larger
	// than at k = 10: `at: [10, 30]`); all, ascending, when absent.
	At []float64 `yaml:"at,omitempty" spec:"optional"`
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
	// The label or series name whose wins are counted.
	Series string `yaml:"series,omitempty" spec:"optional"`
	// The label or series name it is compared with.
	Than string `yaml:"than,omitempty" spec:"optional"`
	// The paper's wins.
	Wins *int `yaml:"wins,omitempty" spec:"optional" range:"[0, +inf)"`
	// The paper's ties.
	Ties *int `yaml:"ties,omitempty" spec:"optional" range:"[0, +inf)"`
	// The paper's losses.
	Losses *int `yaml:"losses,omitempty" spec:"optional" range:"[0, +inf)"`
}

// PairedTests names the paired tests report.test may choose: the stats
// package's registry (Student's paired t-test, the corrected resampled
// t-test of Nadeau and Bengio (2003), the Wilcoxon signed-rank test, and
// design-t, the default).
var PairedTests = stats.Names()

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
