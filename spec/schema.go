package spec

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
)

// The spec's own sections are declared below with the declarations plugin
// parameters use: one generic walk (decode.go) checks types, ranges,
// choices and unknown keys and fills every default, Marshal writes the
// same fields back, and the field tables of docs/spec.md are generated
// from them (TestSpecDoc). What is left to code is what relates fields to
// each other: validate.go.

// Limits on what a spec may ask for.
const (
	// DefaultSeed is the experiment seed when the spec gives none.
	DefaultSeed = 1
	// DefaultFolds is the number of cross-validation folds of a cv rule.
	DefaultFolds = 5
	maxDigits    = 12
	maxGrid      = 100000
	maxTrials    = 100000
)

// The split kind, select rule and protocol a spec without them has: the
// schema's defaults, the only place the experiment language names a kind.
const (
	defaultSplit    = "rest"
	defaultRule     = "fixed"
	defaultProtocol = "curve"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// schema returns the declaration of the whole spec, a Section. With free
// set it is the registry-free schema of ReadSpec: plugin names are plain
// strings, plugin params are taken as written, metrics are plain names.
// Splitters, selectors and protocols are the runner's own and are always
// looked up.
func schema(free bool) param.Decl {
	pluginName := func(what string, names func() []string) param.Decl {
		d := param.Decl{Name: "name", Type: param.Enum, Elem: what, Choices: names(),
			Want: fmt.Sprintf("a %s plugin from %s", what, strings.Join(names(), ", ")),
			Doc:  fmt.Sprintf("A registered %s plugin (`repro list %ss`).", what, what)}
		if free {
			d.Type, d.Choices = param.String, nil
		}
		return d
	}
	metricName := param.Decl{Type: param.Enum, Elem: "metric", Choices: metric.Names()}
	if free {
		metricName = param.Decl{Type: param.String, Elem: "metric"}
	}
	lookup := func(get func(string) (*param.Plugin, error)) func(string) (*param.Plugin, error) {
		if free {
			return func(string) (*param.Plugin, error) { return nil, nil }
		}
		return get
	}

	dataset := param.Decl{Name: "datasets", Type: param.SectionList, Elem: "dataset", NonEmpty: true, Tag: "name",
		Want: "a list of datasets, each with a name from " + strings.Join(datasets.Names(), ", "),
		Doc:  "The datasets, below.",
		Plugin: lookup(pluginOf(datasets.Lookup, func(l *datasets.Loader) param.Plugin {
			return param.Plugin{Params: l.Params, Validate: l.Validate}
		})),
		Fields: []param.Decl{
			pluginName("dataset", datasets.Names),
			{Name: "id", Type: param.String, Optional: true, DefaultDoc: "`name`", Check: plainName(""),
				Doc: "The dataset's name in reports, keys and `expect`: letters, digits, `.`, `_`, `-`. Ids must be unique: two entries of the same plugin need distinct ids."},
			{Name: "params", Type: param.Params, Optional: true, DefaultDoc: "plugin defaults",
				Doc: "The plugin's parameters, each checked against its declaration (type, range, choices) and by the plugin's Validate hook; missing ones take their defaults; required ones must be given. Files are paths relative to the data directory (`--data`, `$REPRO_DATA`). A dataset parameter cannot be a grid: write one dataset entry per value."},
			{Name: "transforms", Type: param.SectionList, Elem: "transform", Optional: true, Tag: "name", DefaultDoc: "`[]`",
				Doc: "Transforms applied in order, each `{name, params, fit}` (`repro list transforms`).",
				Plugin: lookup(pluginOf(datasets.LookupTransform, func(t *datasets.Transform) param.Plugin {
					return param.Plugin{Params: t.Params}
				})),
				Fields: []param.Decl{
					pluginName("transform", datasets.TransformNames),
					{Name: "params", Type: param.Params, Optional: true, DefaultDoc: "plugin defaults", Doc: "The transform's parameters."},
					{Name: "fit", Type: param.Enum, Choices: []string{FitPool, FitTrain}, Optional: true, DefaultDoc: "corpus",
						Doc: "What the transform is fitted on: absent, the whole dataset once when it loads (cached on disk by content); `pool`, in each trial every non-test row, labels hidden; `train`, in each trial the training rows."},
				}},
			{Name: "split", Type: param.Section, Tag: "kind", Default: map[string]any{"kind": defaultSplit}, DefaultDoc: "`{kind: rest}`",
				Doc:    "How rows divide into a training pool and a test set: a split kind and its parameters (below).",
				Plugin: pluginOf(LookupSplitter, func(s *Splitter) param.Plugin { return param.Plugin{Params: s.Params} }),
				Fields: []param.Decl{
					{Name: "kind", Type: param.Enum, Choices: Splitters.Names(), Doc: "A split kind (below)."},
				}},
			{Name: "tasks", Type: param.Enum, Choices: []string{"one-vs-rest"}, Optional: true,
				Doc: "Treat a K-class dataset as K binary tasks: `methods.MultiTask` methods fit them jointly, others once per task; predictions are one-vs-rest."},
			{Name: "samples_of", Type: param.String, Optional: true, DefaultDoc: "its own", Check: plainName("(a dataset id)"),
				Doc: "The id of another entry whose test splits, training samples and cross-validation folds this one shares in every trial: two feature sets of the same documents (say compressed and all 5-grams) then meet the same rows, a true pairing for `than_dataset` comparisons. Both entries must have the same rows, labels, split and tasks; the named entry must draw its own."},
		},
	}

	method := param.Decl{Name: "methods", Type: param.SectionList, Elem: "method", NonEmpty: true, Tag: "name",
		Want: "a list of methods, each with a name from " + strings.Join(methods.Names(), ", "),
		Doc:  "The methods, below.",
		Plugin: lookup(pluginOf(methods.Lookup, func(p *methods.Plugin) param.Plugin {
			return param.Plugin{Params: p.Params, Validate: p.Validate, Free: p.Free}
		})),
		Fields: []param.Decl{
			pluginName("method", methods.Names),
			{Name: "label", Type: param.String, Optional: true, DefaultDoc: "`name`", Check: usableLabel,
				Doc: "The method's name in reports and `expect`; unique, without parentheses. Two entries of the same plugin need distinct labels."},
			{Name: "params", Type: param.Params, Grid: true, Optional: true, DefaultDoc: "plugin defaults",
				Doc: "The plugin's parameters; any value may be a list, which makes a **grid**. Every grid point is checked by the plugin's Validate hook."},
			{Name: "select", Type: param.Section, Default: map[string]any{"rule": defaultRule}, DefaultDoc: "`{rule: fixed}`",
				Doc: "How the grid's points are chosen among (below).",
				Fields: []param.Decl{
					{Name: "rule", Type: param.Enum, Choices: Selectors.Names(), Doc: "A select rule (below)."},
					{Name: "folds", Type: param.Int, Default: DefaultFolds, Min: param.Bound(2), Max: param.Bound(1000),
						Doc: "Cross-validation folds of rule `cv`; an error with rule `test`, ignored with `fixed`."},
					withName(metricName, "metric", param.Decl{Optional: true, DefaultDoc: "the first of `metrics:`",
						Doc: "The metric rules `cv` and `test` choose by; ignored with `fixed`."}),
					{Name: "over", Type: param.StringList, Elem: "param", Unique: true, Optional: true,
						Doc: "Rules `cv` and `test`: the varying params the rule chooses; the others make variants, as under `fixed`. All of them if absent."},
				}},
			{Name: "protocol", Type: param.Params, Optional: true, DefaultDoc: "the experiment's", Plugin: perMethodProtocol,
				Doc: "Protocol params this method's series sets for itself, over `protocol:`: with `active`, `strategy`, `initial`, `batch`, `budget`, `budgets` (`{strategy: uncertainty}` beside another entry of the same plugin with `{strategy: random}` compares two query strategies in one run). The samples, splits and folds do not depend on it, so the series stay paired (under the same `initial`, they start from the same labelled rows). It changes a trial's key only where it changes a value, so keys of specs without it are unchanged. With `budget`, the experiment's `budgets` still take precedence on their datasets unless the method sets `budgets` too."},
			{Name: "datasets", Type: param.StringList, Elem: "dataset id", Unique: true, NonEmpty: true, Optional: true, DefaultDoc: "all", Check: plainName("(a dataset id)"),
				Doc: "The ids of the only datasets the method runs on. An expectation about the method on another dataset is an error; reports leave its series out there. Not part of trial keys."},
		},
	}

	curve := param.Decl{Name: "curve", Type: param.Section, Optional: true, DefaultDoc: "required by `curve`",
		Want: "a mapping with sizes (and trials, sampling)",
		Doc:  "Training sizes, trials and sampling (below). Required by a per-size protocol (`curve`); otherwise optional, without `sizes`.",
		Fields: []param.Decl{
			{Name: "sizes", Type: param.FloatList, Elem: "training size", Optional: true, NonEmpty: true, Unique: true, Check: trainingSize, DefaultDoc: "required by `curve`",
				Want: "a list of training sizes: counts ≥ 2 or fractions in (0, 1] of the training pool",
				Doc:  "Training-set sizes. A number > 1 is a **count** of rows (a whole number); a number in (0, 1] is a **fraction** of the training pool (`1` is the whole pool), resolved per dataset at run time."},
			{Name: "trials", Type: param.Int, Default: 1, Min: param.Bound(1), Max: param.Bound(maxTrials),
				Doc: "Independent training samples per size. A split that defines its own trials (kfold: folds × repeats) sets it; it may then only repeat that number."},
			{Name: "sampling", Type: param.Enum, Default: string(datasets.Random),
				Choices: []string{string(datasets.Random), string(datasets.Stratified), string(datasets.Balanced)},
				Doc:     "How training samples are drawn from the pool: uniformly, keeping the class proportions, or with an equal count per class."},
		},
	}

	protocol := param.Decl{Name: "protocol", Type: param.Section, Tag: "name", Default: map[string]any{"name": defaultProtocol}, DefaultDoc: "`curve`",
		Doc:    "The trial protocol: a name (`protocol: active`) or a mapping of the name and the protocol's parameters.",
		Plugin: pluginOf(LookupProtocol, func(p *Protocol) param.Plugin { return param.Plugin{Params: p.Params} }),
		Fields: []param.Decl{
			{Name: "name", Type: param.Enum, Elem: "protocol", Choices: Protocols.Names(), Doc: "A trial protocol."},
		},
	}

	report := param.Decl{Name: "report", Type: param.Section, Optional: true,
		Doc: "Report options (below).",
		Fields: []param.Decl{
			{Name: "logx", Type: param.Bool, Default: false, Doc: "Log-scale x axis."},
			{Name: "x", Type: param.String, Default: "size", Check: plainName("(size or a param)"),
				Doc: "What goes on the x axis: `size`, or a parameter that some method's series vary — a grid axis under rule `fixed`, or one `select.over` leaves to the variants (a sweep over c or ρ; series are then the method's variants with the other parameters fixed). Any other name is an error."},
			{Name: "y", Type: param.StringList, Elem: "name", Unique: true, Optional: true, Check: plainName("(a metric or an extra a protocol records)"),
				Doc: "Names to table and plot against `x`: metrics, or extras a protocol or method records (components chosen, dictionary size). Default: the metrics."},
			{Name: "x_transform", Type: param.Enum, Choices: []string{"neglog"}, Optional: true,
				Doc: "Applied to `x` parameter values before plotting: `neglog` is −ln v (for ρ). Only with `x` set to a parameter."},
			{Name: "digits", Type: param.Int, Optional: true, Min: param.Bound(0), Max: param.Bound(maxDigits), DefaultDoc: "each metric's own",
				Doc: "Decimals of every metric in tables and checks. Without it each metric has its own: 2 for percentages (accuracy, error), 3 for auc and r2, 1 for binary_errors, 2 for the others and for extras."},
			{Name: "metric_digits", Type: param.Map, Optional: true, Check: metricDigits, DefaultDoc: "`{}`",
				Doc: "Decimals per metric or extra, over `digits` and the metric's own: `{auc: 4, accuracy: 1}`. A key is one of `metrics:` or of `y`."},
			{Name: "artifacts", Type: param.Enum, Choices: []string{"all", "plots", "tables", "none"}, Optional: true, DefaultDoc: "`all`",
				Doc: "The method artifacts (weight tables, fitted curves) report.md shows: `all`, `plots`, `tables` or `none`. Those left out stay in `artifacts/` and the report says how many."},
			{Name: "bootstrap", Type: param.Int, Optional: true, Min: param.Bound(0), Max: param.Bound(MaxBootstrap), DefaultDoc: "`0` (none)",
				Doc: "Resamples of each trial's test set (rows drawn with replacement, the fitted model fixed) on which the runner also computes the metrics; the report shows their 95% percentile interval beside mean ± sd. The resamples derive from the experiment seed alone, the same for every method, dataset entry and trial, so differences are paired. Not part of trial keys: results stored without it keep none."},
			{Name: "test", Type: param.Enum, Choices: PairedTests, Optional: true, DefaultDoc: "per dataset and size (below)",
				Doc: "The paired test over trials with the same index that the Win/Tie/Loss tables and the expectations use, and that each table names: `t` (Student's paired t-test), `corrected-t` (the corrected resampled t-test of Nadeau & Bengio 2003, Weka's \"corrected\" tester: the variance of the mean difference multiplied by 1/J + n_test/n_train instead of 1/J, for J trials whose training and test sets overlap) or `wilcoxon` (the Wilcoxon signed-rank test: exact for at most 50 pairs without zero or tied differences, else the normal approximation; zeros dropped). Default, per dataset and size: `corrected-t` where two trials' training samples are expected to share at least half their rows (training rows ≥ ½ of the pool they are drawn from: k-fold cross-validation, repeated random subsampling of most of the pool — the setting the correction models), `t` where they share less (a learning curve's or an active learner's small samples from a large pool, where the factor n_test/n_train — 25 at 20 training and 500 test rows — would inflate the variance though the samples barely overlap) and for split `train` (in-sample metrics). The pool is the rows less the test part (`rest`: all rows), from the dataset's row count in datasets.json. A table whose sizes use both names both (\"paired t-test below sizes 516; corrected … at sizes ≥ 516\"); `repro diff` uses the same test. A paper's reproduction names the test the paper used."},
			{Name: "choose", Type: param.SectionList, Elem: "choice", Optional: true, DefaultDoc: "`[]`",
				Doc: "Datasets of the report made of others, each `{id, among}`: per method series, size and trial, the result of the `among` entry whose select score (the cv score at the point the method's rule chose) is best, ties to the first listed — a cross-validation over what no grid can vary, such as a corpus-level transform's parameter (one dataset entry per pointer cost). Each entry's cv draws its own folds (the sample seed involves the dataset id) unless the entries share them through `samples_of`, which makes the choice compare the same folds. Every method needs a `cv` or `test` rule over two or more grid points (`repro validate` says which does not). Expectations may name `id` as their dataset. Not part of trial keys.",
				Fields: []param.Decl{
					{Name: "id", Type: param.String, Check: plainName("(a dataset id)"), Doc: "The chosen dataset's id: not an id of `datasets:`."},
					{Name: "among", Type: param.StringList, Elem: "dataset id", Unique: true, Doc: "Two or more dataset ids of `datasets:`, the same rows under different transforms."},
				}},
		},
	}

	nonNeg := func(name, doc string) param.Decl {
		return param.Decl{Name: name, Type: param.Float, Optional: true, Min: param.Bound(0), Doc: doc}
	}
	num := func(name, doc string) param.Decl {
		return param.Decl{Name: name, Type: param.Float, Optional: true, Doc: doc}
	}
	str := func(name, doc string) param.Decl {
		return param.Decl{Name: name, Type: param.String, Optional: true, Doc: doc}
	}
	expect := param.Decl{Name: "expect", Type: param.SectionList, Elem: "expectation", Optional: true, DefaultDoc: "`[]`",
		Doc: "Checks of the results against the paper's figures, run by `repro check` (below).",
		Fields: []param.Decl{
			str("dataset", "A dataset id; may be omitted when the spec has one dataset."),
			withName(metricName, "metric", param.Decl{Want: "the metric the expectation is about", Doc: "One of the spec's `metrics:`."}),
			{Name: "sizes", Type: param.IntList, Elem: "size", Optional: true, Min: param.Bound(1), Max: param.Bound(math.MaxInt32),
				Doc: "The training sizes (as resolved row counts) to check; empty means every size."},
			str("method", "Value check: a method label, or a series name `\"label (p=v)\"` of a fixed-rule grid point."),
			num("value", "Value check: the paper's figure; needs `tol` and/or `rtol`."),
			nonNeg("tol", "Value check: absolute tolerance around `value`."),
			nonNeg("rtol", "Value check: relative tolerance, a fraction of `value`."),
			num("min", "Value check: a lower bound on the mean (`min` ≤ `max`)."),
			num("max", "Value check: an upper bound on the mean."),
			str("better", "Relation: the label or series name that should win."),
			str("than", "Relation: the one it should beat (a different method)."),
			{Name: "by", Type: param.Float, Default: 0.0, Min: param.Bound(0),
				Doc: "Relation: the margin in the metric's units and direction; with 0 the mean must be strictly better."},
			nonNeg("within", "Relation, instead of `by`: alone, a non-inferiority check on the means (`better` may trail `than` by at most this; no test, the verdict says so); with `at_par`, the largest absolute gap of the means."),
			{Name: "significant", Type: param.Bool, Optional: true, DefaultDoc: "`false`",
				Doc: "Relation: pass only if the paired test (`report.test`) over trials with the same index finds `better` significantly ahead of `than` at `alpha`, besides the margin `by` on the means. Without it a relation compares means only and its verdict reads `PASS (direction only, p=…)`."},
			{Name: "at_par", Type: param.Bool, Optional: true, DefaultDoc: "`false`",
				Doc: "Relation: a parity claim. Passes when the paired test finds no significant difference at `alpha` and, with `within`, the absolute gap of the means is at most `within`. Not with `by` or `significant`."},
			{Name: "alpha", Type: param.Float, Optional: true, Min: param.Bound(0), MinExclusive: true, Max: param.Bound(1), MaxExclusive: true, DefaultDoc: "`0.05`",
				Doc: "The significance level of `significant`, `at_par` and `wtl`, in (0, 1)."},
			{Name: "wtl", Type: param.Section, Optional: true, DefaultDoc: "none",
				Doc: "Win/Tie/Loss count check, instead of a value check or relation: `{series: A, than: B, wins: W, ties: T, losses: L}`, the paper's counts of the x values (training sizes, active-learning batches; `sizes` limits them) where A is significantly better than B, neither, or significantly worse — the report's W/T/L computation (`report.test`, `alpha`). Passes when each measured count is within `slack` of the paper's.",
				Fields: []param.Decl{
					str("series", "The label or series name whose wins are counted."),
					str("than", "The label or series name it is compared with."),
					{Name: "wins", Type: param.Int, Optional: true, Min: param.Bound(0), Doc: "The paper's wins."},
					{Name: "ties", Type: param.Int, Optional: true, Min: param.Bound(0), Doc: "The paper's ties."},
					{Name: "losses", Type: param.Int, Optional: true, Min: param.Bound(0), Doc: "The paper's losses."},
				}},
			{Name: "slack", Type: param.Int, Optional: true, Min: param.Bound(0), DefaultDoc: "`0`",
				Doc: "With `wtl`: the largest absolute difference allowed between each measured count (wins, ties, losses, each on its own) and the paper's."},
			str("than_dataset", "Relation: the dataset id `than` is taken from, when not `dataset`: a comparison across two dataset entries with the same test rows (one corpus under two feature transforms), trials matched by index for the t-test. Their training samples are the same rows when one entry names the other in `samples_of` (a true pairing), else only when a size is the whole pool: the sample seed involves the dataset id. `than` may then name the same method as `better`."),
			str("source", "Where the paper's figure comes from: \"Szafranski 2007, Table 1\"."),
			str("note", "Why the result may differ."),
		},
	}

	return param.Decl{Name: "", Type: param.Section, Want: "a mapping with name, datasets, methods, curve and metrics",
		Fields: []param.Decl{
			{Name: "name", Type: param.String, Check: outputName,
				Want: "the experiment's name, e.g. sandler2008-fig1-20newsgroups",
				Doc:  "The experiment's name: letters, digits, `.`, `_`, `-`, at most 200 characters. Output goes to `out/<name>` unless `-o` is given."},
			str("description", "What is reproduced and every deviation from the paper. Shown in the report."),
			{Name: "seed", Type: param.Int, Default: DefaultSeed, Min: param.Bound(0),
				Doc: "The experiment seed; every trial's seeds derive from it (see *Keys and seeds*)."},
			// metrics come before methods: select rules default to the
			// first metric, and a method's problem kind is checked
			// against them.
			withName(metricName, "metrics", param.Decl{Type: param.StringList, NonEmpty: true, Unique: true,
				Want: "a list of metrics from " + strings.Join(metric.Names(), ", "),
				Doc:  "Registered metrics computed on every test set (`repro list metrics`). Each must apply to every method's problem kind (classification / regression)."}),
			dataset,
			method,
			protocol,
			curve,
			str("baseline", "A method label or series name (`\"label (p=v)\"`) that reports compare the others against (Win/Tie/Loss)."),
			report,
			expect,
			{Name: "smoke", Type: param.StringList, Optional: true, Check: setArg,
				Want: "a list of --set assignments, key.path=value",
				Doc:  "Assignments, as `--set` takes them, that `repro run --smoke` applies before it runs the first trial at the smallest size of every series: the reductions (a smaller budget, a slice of the corpus) that keep the smoke run CI makes of every experiment within a minute or two. Ignored by a normal run; `--set` given with `--smoke` comes after them."},
		}}
}

// perMethodProtocol returns, as a plugin, the protocol params a method
// entry may set (Protocol.PerMethod of every protocol), each optional:
// which apply is checked against the experiment's protocol once it is
// decoded (checkMethodProtocol).
func perMethodProtocol(string) (*param.Plugin, error) {
	var out param.Plugin
	for _, name := range Protocols.Names() {
		p, _ := LookupProtocol(name)
		for _, pm := range p.PerMethod {
			d, ok := param.Find(p.Params, pm)
			if !ok {
				panic(fmt.Sprintf("runner: protocol %s: PerMethod %q is not a param", name, pm))
			}
			if _, dup := param.Find(out.Params, pm); dup {
				continue
			}
			d.Default, d.Optional, d.DefaultDoc = nil, true, "the experiment's"
			out.Params = append(out.Params, d)
		}
	}
	return &out, nil
}

// pluginOf adapts a registry's Lookup to param.Decl.Plugin.
func pluginOf[T any](lookup func(string) (T, error), of func(T) param.Plugin) func(string) (*param.Plugin, error) {
	return func(name string) (*param.Plugin, error) {
		p, err := lookup(name)
		if err != nil {
			return nil, err
		}
		out := of(p)
		return &out, nil
	}
}

// withName returns base with the name and the non-zero documentation
// fields of over.
func withName(base param.Decl, name string, over param.Decl) param.Decl {
	d := base
	d.Name = name
	if over.Type == param.StringList {
		d.Type = param.StringList // elements are checked against Choices
	}
	d.Optional, d.NonEmpty, d.Unique = over.Optional, over.NonEmpty, over.Unique
	d.Want, d.Doc, d.DefaultDoc = over.Want, over.Doc, over.DefaultDoc
	return d
}

// plainName checks a name that becomes part of a path or key.
func plainName(why string) func(v any) error {
	return func(v any) error {
		s, _ := v.(string)
		if !nameRE.MatchString(s) || strings.Contains(s, "..") {
			msg := "is not a plain name; want letters, digits, '.', '_' and '-'"
			if why != "" {
				msg += " " + why
			}
			return errors.New(msg)
		}
		return nil
	}
}

// maxNameLen is the longest experiment name: it names the default output
// directory out/NAME (out/NAME-smoke), one path element of at most 255
// bytes on most file systems.
const maxNameLen = 200

// outputName checks the experiment's name: a plain name that can name a
// directory.
func outputName(v any) error {
	if err := plainName("(it names the output directory)")(v); err != nil {
		return err
	}
	if s, _ := v.(string); len(s) > maxNameLen {
		return fmt.Errorf("is too long; want at most %d characters (it names the output directory out/NAME)", maxNameLen)
	}
	return nil
}

// setArg checks the form of a smoke: entry as applySet reads a --set
// argument: key.path=value with no empty key.
func setArg(v any) error {
	s, _ := v.(string)
	key, _, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return errors.New("is not key.path=value; want e.g. curve.trials=1")
	}
	if slices.Contains(strings.Split(key, "."), "") {
		return fmt.Errorf("has an empty key in %s; want dot-separated keys, e.g. methods.0.params.C", param.Quote(key))
	}
	return nil
}

// usableLabel checks a method label: series names append "(p=v)" to it.
func usableLabel(v any) error {
	s, _ := v.(string)
	if strings.TrimSpace(s) == "" || strings.ContainsAny(s, "()\n") {
		return errors.New("is not a usable label; want a non-empty name without parentheses or newlines")
	}
	return nil
}

// metricDigits checks report.metric_digits: each value a whole number of
// decimals.
func metricDigits(v any) error {
	m, _ := v.(map[string]string)
	for _, k := range sortedStrings(m) {
		if _, err := parseDigits(m[k]); err != nil {
			return fmt.Errorf("gives %s %q; want a whole number of decimals in [0, %d] per metric", k, m[k], maxDigits)
		}
	}
	return nil
}

// parseDigits reads a number of decimals of report.metric_digits.
func parseDigits(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > maxDigits {
		return 0, fmt.Errorf("%q is not a number of decimals in [0, %d]", s, maxDigits)
	}
	return n, nil
}

func sortedStrings(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// trainingSize checks one of curve.sizes: a count of rows or a fraction.
func trainingSize(v any) error {
	f, _ := v.(float64)
	const want = "; want a count ≥ 2 or a fraction in (0, 1]"
	switch {
	case f <= 0:
		return errors.New("is out of range" + want)
	case f > 1<<53:
		return errors.New("is too large for a count of rows" + want)
	case f > 1 && f != math.Trunc(f):
		return errors.New("is not a whole number of rows" + want)
	}
	return nil
}

// SchemaDoc returns the generated Markdown of docs/spec.md block key: the
// field table of a section ("fields", "fields datasets", "fields
// methods.select", …) or the table of a runner registry's plugins ("kinds
// split", "kinds select", "kinds protocol") with their params. TestSpecDoc
// fails when the document and the declarations disagree; `go test
// ./runner -run TestSpecDoc -update` rewrites the blocks.
func SchemaDoc(key string) (string, error) {
	what, arg, _ := strings.Cut(key, " ")
	switch what {
	case "fields":
		// The registry-free schema: which plugins and metrics are
		// compiled in is for `repro list`, not for the document.
		d := schema(true)
		if arg != "" {
			for _, name := range strings.Split(arg, ".") {
				f, ok := param.Find(d.Fields, name)
				if !ok || !f.IsSection() {
					return "", fmt.Errorf("no section %q in the spec", arg)
				}
				d = f
			}
		}
		return param.Table(d.Fields), nil
	case "kinds":
		var b strings.Builder
		b.WriteString("| name | meaning | params |\n|---|---|---|\n")
		row := func(name, doc string, params []param.Decl) {
			ps := "none"
			if len(params) > 0 {
				parts := make([]string, len(params))
				for i, p := range params {
					def := p.DefaultText()
					if !p.Required() {
						def = "default " + def
					}
					parts[i] = fmt.Sprintf("`%s` (%s, %s): %s", p.Name, p.TypeDoc(), def, p.Doc)
				}
				ps = strings.Join(parts, "; ")
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, param.Cell(doc), param.Cell(ps))
		}
		switch arg {
		case "split":
			for _, n := range Splitters.Names() {
				s, _ := LookupSplitter(n)
				row(n, s.Doc, s.Params)
			}
		case "select":
			for _, n := range Selectors.Names() {
				s, _ := LookupSelector(n)
				row(n, s.Doc, nil)
			}
		case "protocol":
			for _, n := range Protocols.Names() {
				p, _ := LookupProtocol(n)
				row(n, p.Doc, p.Params)
			}
		default:
			return "", fmt.Errorf("no registry %q", arg)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("unknown block %q; want fields [SECTION] or kinds split|select|protocol", key)
}

// MaxBootstrap is the largest report.bootstrap: resamples per trial.
const MaxBootstrap = 10000
