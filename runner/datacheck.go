package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// What a spec asks of its data can only partly be checked without it: a
// training size larger than the pool, a holdout test set larger than the
// dataset, split: given on a dataset without a split of its own, more
// folds than rows, two sizes that resolve to one row count, a column name
// that is not in the table. CheckData (repro validate with the data) and
// Run (before any trial runs) check them once the datasets are loaded,
// and report each at the line of the field that asks for it.

// maxCheckedTrials bounds the partitions CheckData draws per dataset (a
// kfold split's trials).
const maxCheckedTrials = 1000

// CheckData loads the datasets of spec from env, as a run does (corpus
// transforms included, fits not), and checks the spec against them. It
// returns a *SpecError listing the problems found, each at its field's
// position; a dataset that does not load — a file missing from the data
// directory (a *datasets.MissingFileError), one class only, a malformed
// line — is one of them, at its entry, as it would fail the run; missing
// holds those of the missing files again, as *datasets.MissingFileError,
// for the caller to say how to fetch them. infos describes the datasets
// that loaded, by id.
func CheckData(ctx context.Context, sp *spec.Spec, env datasets.Env) (infos map[string]results.DatasetInfo, missing []error, err error) {
	infos = map[string]results.DatasetInfo{}
	var errs []spec.FieldError
	got := loadAll(ctx, env, sp, nil, true, NoMemLimit, runtime.GOMAXPROCS(0))
	for i := range sp.Datasets {
		ds := &sp.Datasets[i]
		d, err := got[i].data, got[i].err
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			if miss := (*datasets.MissingFileError)(nil); errors.As(err, &miss) {
				missing = append(missing, err)
			}
			errs = append(errs, loadErrors(sp, i, err)...)
			continue
		}
		infos[ds.ID] = infoOf(ds, d)
		errs = append(errs, checkDataset(sp, i, d)...)
	}
	errs = append(errs, checkSameRows(sp, func(i int) *datasets.Dataset { return got[i].data })...)
	return infos, missing, spec.JoinErrors(errs)
}

// maxClassLike is the most distinct whole-number labels a regression
// dataset may have for classesHint to say they look like classes.
const maxClassLike = 50

// classesHint returns, for a regression dataset d whose targets are a few
// distinct whole numbers (digits 0–9 read from a csv), the hint appended
// to each error that asks it for classes: the plugin's task param turns
// them into classes. It returns "" when the targets do not look like
// classes or the plugin has no task: classification.
func classesHint(ds *spec.DatasetSpec, d *datasets.Dataset) string {
	l, err := datasets.Lookup(ds.Name)
	if err != nil || d.IsClassification() || !slices.ContainsFunc(l.Params, func(p param.Decl) bool {
		return p.Name == "task" && slices.Contains(p.Choices, "classification")
	}) {
		return ""
	}
	distinct := map[float64]bool{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range d.Y {
		if y != math.Trunc(y) {
			return ""
		}
		distinct[y] = true
		if len(distinct) > maxClassLike {
			return ""
		}
		lo, hi = min(lo, y), max(hi, y)
	}
	if len(distinct) < 2 {
		return ""
	}
	return fmt.Sprintf("; labels look like classes (%d distinct whole numbers, %s to %s): add task: classification to the dataset's params",
		len(distinct), param.Format(lo), param.Format(hi))
}

// dataError returns the error of loading dataset i of spec: a *SpecError
// when the dataset plugin says which param is wrong, else err.
func dataError(sp *spec.Spec, i int, err error) error {
	if len(invalids(err)) == 0 {
		return err
	}
	return spec.JoinErrors(loadErrors(sp, i, err))
}

// loadErrors locates the error of loading dataset i of spec: each
// *param.InvalidError in it at its param's value (a misspelt group column
// at the group's line), anything else at the dataset's entry.
func loadErrors(sp *spec.Spec, i int, err error) []spec.FieldError {
	path := spec.Index("datasets", i)
	ies := invalids(err)
	if len(ies) == 0 {
		return []spec.FieldError{sp.ErrorAt(path, "%v", err)}
	}
	out := make([]spec.FieldError, 0, len(ies))
	for _, ie := range ies {
		p := spec.Sub(spec.Sub(path, "params"), ie.Param)
		switch {
		case ie.Key != "":
			p = spec.Sub(p, ie.Key)
		case ie.Elem >= 0:
			p = spec.Index(p, ie.Elem)
		}
		out = append(out, sp.ErrorAt(p, "dataset %s: %v", param.Quote(sp.Datasets[i].ID), ie.Err))
	}
	return out
}

// invalids returns the *param.InvalidError values in err's tree.
func invalids(err error) []*param.InvalidError {
	var out []*param.InvalidError
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *param.InvalidError:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, c := range e.Unwrap() {
				walk(c)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// checkLoaded checks spec against the datasets Run loaded.
func checkLoaded(sp *spec.Spec, loaded map[string]*loadedData) error {
	var errs []spec.FieldError
	for i := range sp.Datasets {
		if ld := loaded[sp.Datasets[i].ID]; ld != nil && ld.data != nil {
			errs = append(errs, checkDataset(sp, i, ld.data)...)
		}
	}
	errs = append(errs, checkSameRows(sp, func(i int) *datasets.Dataset {
		if ld := loaded[sp.Datasets[i].ID]; ld != nil {
			return ld.data
		}
		return nil
	})...)
	return spec.JoinErrors(errs)
}

// checkSameRows checks that each dataset with samples_of has the rows of
// the entry it names: the same number, the same labels and the same given
// split, so the shared samples pick the same documents. data returns
// dataset i, or nil if it did not load.
func checkSameRows(sp *spec.Spec, data func(i int) *datasets.Dataset) []spec.FieldError {
	var errs []spec.FieldError
	for i := range sp.Datasets {
		ds := &sp.Datasets[i]
		j := slices.IndexFunc(sp.Datasets, func(o spec.DatasetSpec) bool { return o.ID == ds.SamplesOf })
		if ds.SamplesOf == "" || j < 0 || j == i {
			continue
		}
		d, of := data(i), data(j)
		if d == nil || of == nil {
			continue
		}
		a, b := param.Quote(ds.ID), param.Quote(ds.SamplesOf)
		var msg string
		switch {
		case d.Rows() != of.Rows():
			msg = fmt.Sprintf("dataset %s has %d rows and %s %d", a, d.Rows(), b, of.Rows())
		case !slices.Equal(d.Y, of.Y) || !slices.Equal(d.Classes, of.Classes):
			msg = fmt.Sprintf("the labels of dataset %s differ from those of %s", a, b)
		case !slices.Equal(d.Split, of.Split):
			msg = fmt.Sprintf("the given train/test split of dataset %s differs from that of %s", a, b)
		default:
			continue
		}
		errs = append(errs, sp.ErrorAt(spec.Sub(spec.Index("datasets", i), "samples_of"),
			"%s; want the same rows and labels in the same order to share its samples", msg))
	}
	return errs
}

// checkDataset checks what spec asks of dataset i against its data d.
func checkDataset(sp *spec.Spec, i int, d *datasets.Dataset) []spec.FieldError {
	ds := &sp.Datasets[i]
	path := spec.Index("datasets", i)
	id := param.Quote(ds.ID)
	rows := d.Rows()
	var errs []spec.FieldError
	fail := func(p, format string, args ...any) {
		errs = append(errs, sp.ErrorAt(p, format, args...))
	}

	// The problem kind: methods, metrics and one-vs-rest tasks.
	kind := metric.Regression
	if d.IsClassification() {
		kind = metric.Classification
	}
	hint := ""
	if kind == metric.Regression {
		hint = classesHint(ds, d)
	}
	if ds.Tasks == "one-vs-rest" && kind != metric.Classification {
		fail(spec.Sub(path, "tasks"), "dataset %s is a regression dataset; want tasks: one-vs-rest only for classes%s", id, hint)
	}
	for k, m := range sp.Methods {
		if p, err := methods.Lookup(m.Name); err == nil && p.Kinds != 0 && p.Kinds&kind == 0 && m.RunsOn(ds.ID) {
			fail(spec.Sub(spec.Index("methods", k), "name"), "method %s handles %s but dataset %s is %s; want a method for %s%s", m.Name, p.Kinds, id, kind, kind, hint)
		}
	}
	errs = append(errs, checkNeeds(sp, i, d)...)
	for k, name := range sp.Metrics {
		if mt, err := metric.Lookup(name); err == nil && mt.Kinds != 0 && mt.Kinds&kind == 0 {
			fail(spec.Index("metrics", k), "metric %s applies to %s but dataset %s is %s; want a metric for %s%s", name, mt.Kinds, id, kind, kind, hint)
		}
	}

	// The split, with the messages of its kind, then each trial's
	// partition as the run draws it.
	split := spec.Sub(path, "split")
	kindName := ds.Split.KindName()
	splitter, err := LookupSplitter(kindName)
	if err != nil {
		return errs // reported by Load
	}
	if splitter.CheckData != nil {
		if key, err := splitter.CheckData(d, ds.Split.Params, id, hint); err != nil {
			fail(spec.Sub(split, key), "%s", err.Error())
			return errs
		}
	}
	trials := 1
	if splitter.Replicates != nil {
		trials = min(splitter.Replicates(ds.Split.Params), maxCheckedTrials)
	}
	pool, test := math.MaxInt, math.MaxInt
	maxPool := 0 // folds of unequal sizes leave pools of several sizes
	var first *Partition
	for t := 0; t < trials; t++ {
		at := splitAt(sp.Seed, ds, t)
		part, err := splitter.Split(d, ds.Split.Params, at)
		if err != nil {
			fail(split, "dataset %s (%d rows): %v", id, rows, err)
			return errs
		}
		if first == nil {
			first = part
		}
		pool = min(pool, len(part.Pool))
		maxPool = max(maxPool, len(part.Pool))
		if part.TestOf == nil {
			test = min(test, len(part.Test))
		}
	}
	if pool == 0 {
		fail(split, "split %s leaves no training rows of the %d of dataset %s", kindName, rows, id)
		return errs
	}
	if test == 0 {
		fail(split, "split %s leaves no test rows of the %d of dataset %s", kindName, rows, id)
		return errs
	}
	where := fmt.Sprintf("the %d rows of dataset %s (split %s)", rows, id, kindName)
	switch {
	case maxPool > pool:
		where = fmt.Sprintf("the pools of %d–%d rows of dataset %s (%d rows; split %s)", pool, maxPool, id, rows, spec.DescribeSplit(ds.Split))
	case pool != rows:
		where = fmt.Sprintf("the pool of %d rows of dataset %s (%d rows; split %s)", pool, id, rows, spec.DescribeSplit(ds.Split))
	}

	// Sampling by class needs classes.
	if s := datasets.Sampling(sp.Curve.Sampling); s != datasets.Random && s != "" && kind != metric.Classification {
		fail(spec.Sub("curve", "sampling"), "%s sampling needs classes, but dataset %s is a regression dataset; want sampling: random%s", s, id, hint)
	}

	// The training sizes of the curve protocol.
	proto, err := spec.LookupProtocol(sp.Protocol.ProtocolName())
	if err != nil {
		return errs
	}
	smallest := pool
	if proto.PerSize {
		seen := map[int]int{}
		// Every row count a size resolves to over the trials' pools (a
		// fraction of folds of 1225 and 1226 rows): expect sizes may name
		// any of them, as check accepts them.
		resolved := map[int]int{}
		for j, s := range sp.Curve.Sizes {
			p := spec.Index(spec.Sub("curve", "sizes"), j)
			n, err := resolveSize(s, pool)
			switch {
			case err != nil && s > 1:
				fail(p, "training size %s exceeds %s; want at most %d", param.Format(s), where, pool)
				continue
			case err != nil:
				fail(p, "%v (%s)", err, where)
				continue
			}
			if first.TestOf != nil && !first.InSample && n >= pool {
				fail(p, "training size %s takes all %d rows of the pool of dataset %s (split %s), which leaves no test rows; want fewer than %d", param.Format(s), pool, id, spec.DescribeSplit(ds.Split), pool)
				continue
			}
			if k, dup := seen[n]; dup {
				fail(p, "training size %s resolves to %d rows of %s, as size %s (curve.sizes[%d]) does; want sizes of distinct row counts",
					param.Format(s), n, where, param.Format(sp.Curve.Sizes[k]), k)
				continue
			}
			seen[n] = j
			resolved[n] = j
			if hi, err := resolveSize(s, maxPool); err == nil && maxPool > pool {
				for m := n + 1; m <= hi; m++ {
					resolved[m] = j
				}
			}
			smallest = min(smallest, n)
		}
		if len(seen) == len(sp.Curve.Sizes) {
			errs = append(errs, checkExpectRows(sp, ds.ID, resolved, where)...)
		}
	} else if p, err := LookupProtocol(sp.Protocol.ProtocolName()); err == nil && p.CheckPool != nil {
		p.CheckPool(sp, ds, pool, where, fail)
	}

	// Cross-validation folds within the smallest training set.
	for k, m := range sp.Methods {
		if sel, err := spec.LookupSelector(m.Select.RuleName()); err == nil && sel.Folds && len(m.Grid) > 1 && m.Select.Folds > smallest && m.RunsOn(ds.ID) {
			fail(spec.Sub(spec.Sub(spec.Index("methods", k), "select"), "folds"), "%d-fold cross-validation, but the smallest training set of dataset %s has %d rows; want at most %d folds, or larger sizes",
				m.Select.Folds, id, smallest, smallest)
		}
	}
	return errs
}

// checkExpectRows checks the sizes of the expectations about dataset id
// against the row counts its curve.sizes resolve to (rows: count → index
// in curve.sizes), when some size is a fraction: with counts alone the
// spec's check has said it; with sizes from --set or smoke: nothing is.
// where describes the pool.
func checkExpectRows(sp *spec.Spec, id string, rows map[int]int, where string) []spec.FieldError {
	if sp.SizesSet() || !slices.ContainsFunc(sp.Curve.Sizes, func(s float64) bool { return s <= 1 }) {
		return nil
	}
	var counts []int
	for n := range rows {
		counts = append(counts, n)
	}
	slices.Sort(counts)
	list := make([]string, len(counts))
	for i, n := range counts {
		list[i] = strconv.Itoa(n)
	}
	var errs []spec.FieldError
	for k, x := range sp.Expect {
		if x.Dataset != id && x.ThanDataset != id && (x.Dataset != "" || len(sp.Datasets) != 1) {
			continue
		}
		for j, size := range x.Sizes {
			if _, ok := rows[int(size)]; !ok && !slices.Contains(sp.Curve.Sizes, size) {
				errs = append(errs, sp.ErrorAt(spec.Index(spec.Sub(spec.Index("expect", k), "sizes"), j),
					"%s is not a training size of dataset %s: curve.sizes (%s) resolve to %s rows of %s; want one of them",
					spec.FormatSizes([]float64{size}), param.Quote(id), spec.FormatSizes(sp.Curve.Sizes), strings.Join(list, ", "), where))
			}
		}
	}
	return errs
}

// checkNeeds checks what each method on dataset i needs of it
// (methods.Plugin.Needs) at every grid point: a feature graph, a number of
// input columns, at most so many classes. A dataset with transforms
// fitted per trial (fit: train or pool) gets its graphs and columns only
// then, so those two are not checked on it here.
func checkNeeds(sp *spec.Spec, i int, d *datasets.Dataset) []spec.FieldError {
	ds := &sp.Datasets[i]
	perTrial := slices.ContainsFunc(ds.Transforms, func(ts spec.TransformSpec) bool { return ts.PerTrial() })
	named := *d
	named.Name = ds.ID
	var errs []spec.FieldError
	for k, m := range sp.Methods {
		p, err := methods.Lookup(m.Name)
		if err != nil || p.Needs == nil || !m.RunsOn(ds.ID) {
			continue
		}
		seen := map[string]bool{}
		for _, g := range m.Grid {
			if err := p.NeedsAt(g).Check(&named, !perTrial, !perTrial); err != nil && !seen[err.Error()] {
				seen[err.Error()] = true
				errs = append(errs, sp.ErrorAt(spec.Sub(spec.Index("methods", k), "name"), "method %s: %v", m.Name, err))
			}
		}
	}
	return errs
}
