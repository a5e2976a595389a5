package reports

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
	"github.com/repro-ml/repro/stats"
)

// DiffOptions controls Compare.
type DiffOptions struct {
	// Alpha is the significance level of the paired test; 0 means 0.05.
	Alpha float64
	// Test is the paired test, one of Tests, or DiffTestReports. "" (or
	// DiffTestReports) runs in each cell the test the new run's reports
	// use there (TestAt): report.test if the new spec sets one, else
	// DefaultTest (design-t, which tests the folds' means where the
	// trials repeat splits).
	Test string
	// Rows holds the new run's dataset row counts by id (datasets.json),
	// which the designs' pool sizes come from (corrected-t scales by
	// them); nil estimates them (PoolRows).
	Rows map[string]int
	// Tolerance is how much worse a mean may get, in the metric's units
	// (Relative: as a fraction of the old mean's magnitude), before a
	// significant change is a regression.
	Tolerance float64
	Relative  bool

	// The Allow fields accept what otherwise fails the comparison (see
	// Diff.Failures): AllowMissing a dataset, series, size or metric of
	// the old run that the new run's spec no longer has; AllowFewer
	// trials the old run finished and the new one did not run (an
	// unfinished run, or fewer trials per size); AllowOtherSeed runs of
	// different seeds, whose trials of one index train on different
	// samples; AllowOtherName runs of two experiments.
	AllowMissing, AllowFewer, AllowOtherSeed, AllowOtherName bool
}

// DiffRow compares one metric of one method series at one x value (a
// training size, or an active-learning budget) between two runs, over
// the trials both runs finished.
type DiffRow struct {
	Dataset, Series, Metric string
	X                       float64
	// Old and New are the means over the paired trials; Change is
	// New − Old.
	Old, New, Change float64
	// Pairs is the number of trials paired; P the two-sided p-value of
	// the paired test of the change (NaN with fewer than two pairs), Test
	// the test that ran (TestResult.Test).
	Pairs int
	P     float64
	Test  string
	// Significant reports P < alpha; Better and Worse the direction of a
	// significant change for a metric whose direction is known.
	Significant, Better, Worse bool
	// NonFinite counts the pairs whose old value is finite and whose new
	// one is NaN or ±Inf: a metric that became undefined or infinite (a
	// learner that diverged, a program that printed inf). Such a row is
	// a regression whatever the test and tolerance say, and its paired
	// test runs on the pairs finite in both runs.
	NonFinite int
	// Regression marks a significant worsening beyond the tolerance, or
	// a metric that became non-finite (NonFinite > 0).
	Regression bool
}

// DiffTrial names a trial listed by Compare: one that is in one run
// only, or did not finish in one of them.
type DiffTrial struct {
	Dataset, Series string
	// Size is the size as the spec writes it (0 for a whole-curve trial),
	// or for a point missing inside a trial its x value.
	Size  float64
	Trial int
}

// DiffChange is one field of the configuration that differs between the
// two runs' specs.
type DiffChange struct {
	// Scope is what the field belongs to: "experiment", "dataset ID" or
	// "method LABEL" (the method whose series the field configures).
	Scope string
	// Field is the field's path inside its scope, as the spec writes it
	// ("params.C", "split.test", "curve.sizes").
	Field string
	// Old and New are the values in YAML flow style; "(unset)" for a
	// field one spec does not have.
	Old, New string
}

// DiffFailure is a reason the comparison fails as a regression check.
type DiffFailure struct {
	Msg string
	// Allow names the DiffOptions field (and repro diff's flag,
	// --allow-missing …) that accepts the reason: "missing", "fewer",
	// "other-seed" or "other-name"; empty when nothing does (a
	// regression, a newly failed trial, nothing compared).
	Allow string
	// Allowed reports that the options accepted it.
	Allowed bool
}

// Diff is the comparison of two runs of one experiment.
type Diff struct {
	Rows []DiffRow
	// Changes lists the configuration fields that differ between the
	// runs' specs (Compare pairs trials by what they compare, whatever
	// else changed).
	Changes []DiffChange
	// OnlyNew lists the trials of the new run with no counterpart in the
	// old one.
	OnlyNew []DiffTrial
	// Missing lists the trials the old run finished whose dataset,
	// series or size the new run's spec does not have; MissingMetrics
	// the metrics of the old spec the new one does not score.
	Missing        []DiffTrial
	MissingMetrics []string
	// Fewer lists the trials the old run finished that the new run plans
	// no longer (fewer trials per size) or has not finished (not run, or
	// a result without every metric).
	Fewer []DiffTrial
	// OldFinished counts the trials the old run finished.
	OldFinished int
	// OtherSamples counts the paired trials whose sample seeds differ
	// (runner.Seeds): with one experiment seed, a dataset whose
	// samples_of changed.
	OtherSamples int
	// FailedOld and FailedNew list the trials of both runs that failed
	// in that run; a trial failed in both is in both lists.
	FailedOld, FailedNew []DiffTrial
	// NewlyFailed counts the trials that finished in the old run and
	// failed in the new one: regressions too.
	NewlyFailed int
	// OldName, NewName, OldSeed and NewSeed are the experiments' names
	// and seeds.
	OldName, NewName string
	OldSeed, NewSeed uint64
	opts             DiffOptions
	m                *model
	// missingWhat names what Missing lacks: "dataset cora", "series
	// L2 LR on cora", "size 50 of L2 LR on cora", once each.
	missingWhat []string
}

// Regressions returns the number of significant worsenings beyond the
// tolerance plus the trials that newly fail.
func (d *Diff) Regressions() int {
	n := d.NewlyFailed
	for _, r := range d.Rows {
		if r.Regression {
			n++
		}
	}
	return n
}

// trialID is what a diff pairs trials by: what the user compares.
type trialID struct {
	dataset, series string
	size            float64
	index           int
}

// Compare pairs the trials of two runs by what they compare — dataset,
// method series (label, and the values of a fixed-rule grid point), size
// as the spec writes it, and trial index — whatever else changed between
// the specs (a method's grid or select rule, a solver setting), and
// compares, per dataset, series, x value and metric, the means of the
// pairs both runs finished with a paired test (DiffOptions.Test). The trials of one index
// train on the same sample when the runs have the same seed and sampling
// (spec.Derive). The results are those of each run's own spec
// (spec.ForPlan); rows follow the old spec's order of datasets and
// series. The fields that differ between the specs are in Diff.Changes;
// what makes the comparison fail is in Diff.Failures.
func Compare(oldSpec *spec.Spec, oldResults []results.Result, newSpec *spec.Spec, newResults []results.Result, opts DiffOptions) (*Diff, error) {
	if opts.Alpha == 0 {
		opts.Alpha = 0.05
	}
	if opts.Test != "" && opts.Test != DiffTestReports && !slices.Contains(Tests, opts.Test) {
		return nil, fmt.Errorf("test %q: want one of %s or %s", opts.Test, strings.Join(Tests, ", "), DiffTestReports)
	}
	oldPlan, err := spec.NewPlan(oldSpec)
	if err != nil {
		return nil, fmt.Errorf("old run: %w", err)
	}
	newPlan, err := spec.NewPlan(newSpec)
	if err != nil {
		return nil, fmt.Errorf("new run: %w", err)
	}
	d := &Diff{opts: opts, m: &model{spec: newSpec},
		OldName: oldSpec.Name, NewName: newSpec.Name, OldSeed: oldSpec.Seed, NewSeed: newSpec.Seed}
	d.Changes = specChanges(oldSpec, newSpec)
	for _, mn := range oldSpec.Metrics {
		if !slices.Contains(newSpec.Metrics, mn) {
			d.MissingMetrics = append(d.MissingMetrics, mn)
		}
	}

	idOf := func(t *spec.Trial) trialID { return trialID{t.Dataset.ID, t.Series(), t.Size, t.Index} }
	name := func(id trialID) DiffTrial {
		return DiffTrial{Dataset: id.dataset, Series: id.series, Size: id.size, Trial: id.index}
	}
	type series struct{ dataset, series string }
	newTrial := map[trialID]*spec.Trial{}
	newDatasets := map[string]bool{}
	newSeries := map[series]bool{}
	newSizes := map[series][]float64{}
	for _, t := range newPlan.Trials {
		id := idOf(t)
		if newTrial[id] == nil {
			newTrial[id] = t
		}
		s := series{id.dataset, id.series}
		newDatasets[id.dataset], newSeries[s] = true, true
		if !slices.Contains(newSizes[s], id.size) {
			newSizes[s] = append(newSizes[s], id.size)
		}
	}
	newBy := map[string]*results.Result{}
	// ForPlan keeps the latest result of each key.
	newRecs := spec.ForPlan(newPlan, newResults)
	for i := range newRecs {
		newBy[newRecs[i].Key] = &newRecs[i]
	}
	oldTrial := map[string]*spec.Trial{}
	for _, t := range oldPlan.Trials {
		oldTrial[t.Key] = t
	}

	type cellKey struct {
		g      series
		x      float64
		metric string
	}
	var groups []series
	seenGroup := map[series]bool{}
	xs := map[series][]float64{}
	metrics := map[series][]string{}
	pairs := map[cellKey]*[2][]float64{}
	trialsOf := map[cellKey][]int{} // the trial index of each pair
	// rowSums holds per series and x the training and test rows of the
	// paired trials and their count, which the corrected t-test scales by.
	type rowSum struct{ train, test, n float64 }
	rowSums := map[cellKey]*rowSum{}
	oldHas := map[trialID]bool{}
	// shown holds per series the x a requested size's cell shows.
	shown := map[cellKey]float64{}
	xOf := func(g series, x float64) float64 {
		if v, ok := shown[cellKey{g: g, x: x}]; ok {
			return v
		}
		return x
	}
	add := func(g series, x float64, oo, no results.Observation, train, test, trial int) {
		if !slices.Contains(xs[g], x) {
			xs[g] = append(xs[g], x)
		}
		rk := cellKey{g: g, x: x}
		if rowSums[rk] == nil {
			rowSums[rk] = &rowSum{}
		}
		rs := rowSums[rk]
		rs.train, rs.test, rs.n = rs.train+float64(train), rs.test+float64(test), rs.n+1
		for mn, ov := range oo.Metrics {
			nv, ok := no.Metrics[mn]
			if !ok {
				continue
			}
			if !slices.Contains(metrics[g], mn) {
				metrics[g] = append(metrics[g], mn)
			}
			k := cellKey{g, x, mn}
			p := pairs[k]
			if p == nil {
				p = &[2][]float64{}
				pairs[k] = p
			}
			p[0] = append(p[0], ov)
			p[1] = append(p[1], nv)
			trialsOf[k] = append(trialsOf[k], trial)
		}
	}
	oldRecs := spec.ForPlan(oldPlan, oldResults)
	for i := range oldRecs {
		or := &oldRecs[i]
		id := idOf(oldTrial[or.Key])
		oldHas[id] = true
		g := series{id.dataset, id.series}
		nt := newTrial[id]
		var nr *results.Result
		if nt != nil {
			nr = newBy[nt.Key]
		}
		if !or.Finished(oldSpec.Metrics) {
			if or.Failed() && nr != nil {
				d.FailedOld = append(d.FailedOld, name(id))
				if nr.Failed() {
					d.FailedNew = append(d.FailedNew, name(id))
				}
			}
			continue
		}
		d.OldFinished++
		what := ""
		switch {
		case nt != nil:
		case !newDatasets[id.dataset]:
			what = "dataset " + id.dataset
		case !newSeries[g]:
			what = fmt.Sprintf("series %s on %s", id.series, id.dataset)
		case !slices.Contains(newSizes[g], id.size):
			what = fmt.Sprintf("size %s of %s on %s", param.Format(id.size), id.series, id.dataset)
		}
		switch {
		case what != "":
			d.Missing = append(d.Missing, name(id))
			if !slices.Contains(d.missingWhat, what) {
				d.missingWhat = append(d.missingWhat, what)
			}
			continue
		case nr == nil || (!nr.Failed() && !nr.Finished(newSpec.Metrics)):
			d.Fewer = append(d.Fewer, name(id))
			continue
		case nr.Failed():
			d.FailedNew = append(d.FailedNew, name(id))
			d.NewlyFailed++
			continue
		}
		if !seenGroup[g] {
			seenGroup[g] = true
			groups = append(groups, g)
		}
		if or.Seeds.Sample != nr.Seeds.Sample {
			d.OtherSamples++
		}
		oldPts, newPts := or.Points(), nr.Points()
		if len(oldPts) == 1 && len(newPts) == 1 {
			// One observation per trial: the size the spec requested,
			// one cell whatever rows each fold or fraction left (pair
			// it even if the pool changed); shown at the most rows the
			// new trials trained on.
			x := newPts[0].X
			if id.size > 0 {
				x = id.size
				shown[cellKey{g: g, x: x}] = max(shown[cellKey{g: g, x: x}], newPts[0].X)
			}
			add(g, x, oldPts[0], newPts[0], or.TrainRows, or.TestRows, id.index)
			continue
		}
		newAt := map[float64]results.Observation{}
		for _, o := range newPts {
			newAt[o.X] = o
		}
		for _, oo := range oldPts {
			no, ok := newAt[oo.X]
			if !ok {
				d.Missing = append(d.Missing, DiffTrial{Dataset: id.dataset, Series: id.series, Size: oo.X, Trial: id.index})
				what := fmt.Sprintf("x %s of %s on %s", fmtX(oo.X), id.series, id.dataset)
				if !slices.Contains(d.missingWhat, what) {
					d.missingWhat = append(d.missingWhat, what)
				}
				continue
			}
			// A protocol with several observations per trial (active
			// learning): the x is the labelled rows it trained on.
			add(g, oo.X, oo, no, int(oo.X), or.TestRows, id.index)
		}
	}
	for _, t := range newPlan.Trials {
		if r := newBy[t.Key]; r != nil && !oldHas[idOf(t)] {
			d.OnlyNew = append(d.OnlyNew, name(idOf(t)))
		}
	}

	// The largest training sample per dataset: the pool's size where the
	// dataset's row count is unknown (PoolRows).
	maxTrain := map[string]int{}
	for k, rs := range rowSums {
		if rs.n > 0 {
			maxTrain[k.g.dataset] = max(maxTrain[k.g.dataset], int(math.Round(rs.train/rs.n)))
		}
	}
	for _, g := range groups {
		sort.SliceStable(xs[g], func(i, j int) bool { return xOf(g, xs[g][i]) < xOf(g, xs[g][j]) })
		ms := metrics[g]
		sort.Slice(ms, func(i, j int) bool { return metricBefore(newSpec.Metrics, ms[i], ms[j]) })
		for _, x := range xs[g] {
			for _, mn := range ms {
				p := pairs[cellKey{g, x, mn}]
				if p == nil {
					continue
				}
				var nTrain, nTest int
				if rs := rowSums[cellKey{g: g, x: x}]; rs != nil && rs.n > 0 {
					nTrain, nTest = int(math.Round(rs.train/rs.n)), int(math.Round(rs.test/rs.n))
				}
				dz := DesignOf(datasetSpec(newSpec, g.dataset), opts.Rows[g.dataset], nTrain, nTest, maxTrain[g.dataset])
				dz = withUnits(dz, trialsOf[cellKey{g, x, mn}])
				d.Rows = append(d.Rows, d.row(g.dataset, g.series, mn, xOf(g, x), p[0], p[1], diffTest(opts, newSpec, g.dataset), dz))
			}
		}
	}
	return d, nil
}

// SpecChanges returns the fields that differ between two resolved specs
// and change what runs (not description, report, expect …), as
// Diff.Changes lists them: what makes results stored under old not
// those of new.
func SpecChanges(oldSpec, newSpec *spec.Spec) []DiffChange { return specChanges(oldSpec, newSpec) }

// metricBefore orders metric names as the spec lists them, a metric's
// parts ("binary_errors/1") after it, unknown names last by name.
func metricBefore(order []string, a, b string) bool {
	rank := func(s string) int {
		base, _, _ := strings.Cut(s, "/")
		if i := slices.Index(order, base); i >= 0 {
			return i
		}
		return len(order)
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	return a < b
}

// row compares the paired values of one cell with test, on trials of
// design dz.
func (d *Diff) row(dataset, series, mn string, x float64, old, new []float64, test string, dz stats.Design) DiffRow {
	r := DiffRow{Dataset: dataset, Series: series, Metric: mn, X: x}
	// The means and the test are over the pairs finite in both runs; a
	// pair finite only in the old run is a regression of its own.
	var fo, fn []float64
	var fu []int // the pairs' units, where the design has them
	for i := range old {
		finOld, finNew := isFinite(old[i]), isFinite(new[i])
		switch {
		case finOld && finNew:
			fo, fn = append(fo, old[i]), append(fn, new[i])
			if dz.Units != nil {
				fu = append(fu, dz.Units[i])
			}
		case finOld:
			r.NonFinite++
		}
	}
	if r.NonFinite > 0 && len(fo) == 0 {
		// Nothing left to average: show what the new run holds.
		r.Old, r.New = summarize(old).Mean, nonFiniteMean(new)
	} else {
		r.Old, r.New = summarize(fo).Mean, summarize(fn).Mean
	}
	if dz.Units != nil {
		dz.Units = fu
	}
	t := stats.Paired(test, fn, fo, dz)
	r.Pairs, r.P, r.Test = t.N, t.P, t.Test
	r.Change = r.New - r.Old
	r.Significant = !math.IsNaN(t.P) && t.P < d.opts.Alpha
	base, _, _ := strings.Cut(mn, "/")
	higher, known := direction(base)
	if r.Significant && known && t.Sign() != 0 {
		r.Better = (t.Sign() > 0) == higher
		r.Worse = !r.Better
	}
	if r.Worse {
		tol := d.opts.Tolerance
		if d.opts.Relative {
			tol *= math.Abs(r.Old)
		}
		r.Regression = math.Abs(r.Change) > tol*(1+1e-12)
	}
	if r.NonFinite > 0 {
		r.Worse, r.Better, r.Regression = true, false, true
	}
	return r
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// nonFiniteMean is what to show as the mean of values none of which
// pairs with a finite old value: +Inf or -Inf if every non-NaN value is
// that, else NaN.
func nonFiniteMean(vs []float64) float64 {
	m := math.NaN()
	for _, v := range vs {
		switch {
		case math.IsNaN(v):
		case math.IsNaN(m):
			m = v
		case m != v:
			return math.NaN()
		}
	}
	if isFinite(m) {
		return math.NaN()
	}
	return m
}

// DiffTestReports is the DiffOptions.Test that runs, in each cell, the
// test the new run's reports use there (TestAt): the default.
const DiffTestReports = "reports"

// diffTest returns the test Compare runs on dataset: the one asked for,
// else the reports' (TestAt), so that W/T/L tables, checks and diff agree.
func diffTest(opts DiffOptions, sp *spec.Spec, dataset string) string {
	if opts.Test != "" && opts.Test != DiffTestReports {
		return opts.Test
	}
	return TestAt(sp, dataset)
}

// Failures returns every reason the comparison fails as a regression
// check, in this order: runs of two experiments or two seeds (or paired
// trials of different sample seeds); nothing
// compared; a dataset, series, size or metric of the old run missing from
// the new one; trials the old run finished and the new one did not; each
// series significantly worse beyond the tolerance; trials that finished
// in the old run and fail in the new one. A reason the options accept is
// returned with Allowed set; the comparison fails when any is not.
func (d *Diff) Failures() []DiffFailure {
	var out []DiffFailure
	add := func(allow string, allowed bool, format string, args ...any) {
		out = append(out, DiffFailure{Msg: fmt.Sprintf(format, args...), Allow: allow, Allowed: allowed})
	}
	if d.OldName != d.NewName {
		add("other-name", d.opts.AllowOtherName, "the runs are of two experiments, %q and %q", d.OldName, d.NewName)
	}
	if d.OldSeed != d.NewSeed {
		add("other-seed", d.opts.AllowOtherSeed, "the runs have different seeds, %d and %d: trials of one index train on different samples", d.OldSeed, d.NewSeed)
	} else if d.OtherSamples > 0 {
		add("other-seed", d.opts.AllowOtherSeed, "%s of one index have different sample seeds (a dataset's samples_of changed?): they train on different samples", plural(d.OtherSamples, "paired trial"))
	}
	switch {
	case len(d.Rows) == 0:
		add("", false, "nothing compared: no trial finished in both runs")
	case countRows(d.Rows, func(r DiffRow) bool { return !math.IsNaN(r.P) }) == 0:
		add("", false, "nothing tested: every row has a single pair of trials, too few for the paired test")
	}
	if len(d.Missing) > 0 {
		add("missing", d.opts.AllowMissing, "the new run has no %s: %s of the old run, listed above", d.missingSummary(), plural(len(d.Missing), "trial"))
	}
	if len(d.MissingMetrics) > 0 {
		add("missing", d.opts.AllowMissing, "the new run does not score %s of the old run", strings.Join(d.MissingMetrics, ", "))
	}
	if len(d.Fewer) > 0 {
		add("fewer", d.opts.AllowFewer, "the new run did not finish %d of the %d trials the old run finished, listed above", len(d.Fewer), d.OldFinished)
	}
	// One line per series: its worse metrics, each with its sizes.
	type series struct{ dataset, series string }
	var worse []series
	metrics := map[series][]string{}
	sizes := map[series]map[string][]string{}
	for _, r := range d.Rows {
		if !r.Regression || r.NonFinite > 0 {
			continue
		}
		g := series{r.Dataset, r.Series}
		if sizes[g] == nil {
			worse = append(worse, g)
			sizes[g] = map[string][]string{}
		}
		if !slices.Contains(metrics[g], r.Metric) {
			metrics[g] = append(metrics[g], r.Metric)
		}
		sizes[g][r.Metric] = append(sizes[g][r.Metric], fmtX(r.X))
	}
	for _, g := range worse {
		var at []string
		for _, mn := range metrics[g] {
			at = append(at, mn+" at size "+strings.Join(sizes[g][mn], ", "))
		}
		add("", false, "%s on %s is significantly worse beyond the tolerance: %s", g.series, g.dataset, strings.Join(at, "; "))
	}
	for _, r := range d.Rows {
		if r.NonFinite > 0 {
			add("", false, "%s on %s: %s at size %s is NaN or ±Inf in %s of the new run where the old run's is finite", r.Series, r.Dataset, r.Metric, fmtX(r.X), plural(r.NonFinite, "trial"))
		}
	}
	if d.NewlyFailed > 0 {
		add("", false, "%s finished in the old run and failed in the new one", plural(d.NewlyFailed, "trial"))
	}
	return out
}

// missingSummary names what the new run lacks: at most three of the
// datasets, series and sizes of Missing, then a count of the others.
func (d *Diff) missingSummary() string {
	items := d.missingWhat
	if len(items) > 3 {
		items = append(items[:3:3], fmt.Sprintf("%d more", len(items)-3))
	}
	return strings.Join(items, ", ")
}

// WriteDiff writes d: the configuration fields that changed between the
// runs; a Markdown table — dataset, method, size, metric, old and new
// means, change, p-value and pairs, verdict; the trials only one run has,
// or that one run did not finish; a line counting the regressions; and
// one line per reason the comparison fails (Diff.Failures), "FAIL: …", or
// that an option accepted, "accepted (--allow-…): …". It returns the
// number of reasons it fails for.
//
// The verdict is "~" for no significant change, "better" or "worse" for
// a significant one (a metric of unknown direction: "changed"), and
// "WORSE" for a regression: significantly worse beyond the tolerance.
func WriteDiff(w io.Writer, d *Diff) int {
	var buf bytes.Buffer
	m := d.m
	if len(d.Changes) > 0 {
		fmt.Fprintln(&buf, "changed between the runs:")
		for _, c := range d.Changes {
			fmt.Fprintf(&buf, "- %s: %s: %s → %s\n", c.Scope, c.Field, c.Old, c.New)
		}
		buf.WriteByte('\n')
	}
	var rows [][]string
	for _, r := range d.Rows {
		verdict := "~"
		switch {
		case r.Regression:
			verdict = "WORSE"
		case r.Worse:
			verdict = "worse"
		case r.Better:
			verdict = "better"
		case r.Significant && r.Change != 0:
			verdict = "changed"
		}
		p := "n/a"
		switch {
		case r.P < 0.001:
			p = "<0.001"
		case !math.IsNaN(r.P):
			p = strconv.FormatFloat(r.P, 'f', 3, 64)
		}
		rows = append(rows, []string{r.Dataset, mdText(r.Series), fmtX(r.X), r.Metric,
			m.fmtNum(r.Metric, r.Old), m.fmtNum(r.Metric, r.New), signed(m, r.Metric, r.Change),
			p, strconv.Itoa(r.Pairs), verdict})
	}
	if len(rows) == 0 {
		fmt.Fprintln(&buf, "no trial finished in both runs")
	} else {
		writeTable(&buf, []string{"dataset", "method", "size", "metric", "old", "new", "change", "p", "pairs", "verdict"}, rows, "llrlrrrrrl")
	}
	listTrials(&buf, "missing from the new run (its spec has no such dataset, series or size)", d.Missing)
	listTrials(&buf, "finished in the old run, not in the new one", d.Fewer)
	listTrials(&buf, "only in the new run", d.OnlyNew)
	listTrials(&buf, "failed in the old run", d.FailedOld)
	listTrials(&buf, "failed in the new run", d.FailedNew)

	tol := num(d.opts.Tolerance)
	if d.opts.Relative {
		tol = num(d.opts.Tolerance*100) + "%"
	}
	n := d.Regressions()
	var uses []testUse
	for _, r := range d.Rows {
		uses = append(uses, testUse{x: r.X, test: r.Test})
	}
	fmt.Fprintf(&buf, "\n%d compared, %d significantly better, %d significantly worse, %d regressions (%s, alpha %s, tolerance %s",
		len(d.Rows), countRows(d.Rows, func(r DiffRow) bool { return r.Better }), countRows(d.Rows, func(r DiffRow) bool { return r.Worse }), n,
		testsAt(uses), num(d.opts.Alpha), tol)
	if d.NewlyFailed > 0 {
		fmt.Fprintf(&buf, "; %d of them newly failed trials", d.NewlyFailed)
	}
	buf.WriteString(")\n")
	failed := 0
	for _, f := range d.Failures() {
		switch {
		case f.Allowed:
			fmt.Fprintf(&buf, "accepted (--allow-%s): %s\n", f.Allow, f.Msg)
		case f.Allow != "":
			failed++
			fmt.Fprintf(&buf, "FAIL: %s (--allow-%s accepts it)\n", f.Msg, f.Allow)
		default:
			failed++
			fmt.Fprintf(&buf, "FAIL: %s\n", f.Msg)
		}
	}
	w.Write(buf.Bytes())
	return failed
}

func countRows(xs []DiffRow, f func(DiffRow) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}

// listTrials writes the trials under a heading, one line per dataset,
// series and size with their trial indices.
func listTrials(w io.Writer, heading string, trials []DiffTrial) {
	if len(trials) == 0 {
		return
	}
	type group struct {
		dataset, series string
		size            float64
	}
	var order []group
	idx := map[group][]int{}
	for _, t := range trials {
		g := group{t.Dataset, t.Series, t.Size}
		if _, ok := idx[g]; !ok {
			order = append(order, g)
		}
		idx[g] = append(idx[g], t.Trial)
	}
	fmt.Fprintf(w, "\n%s: %s\n", heading, plural(len(trials), "trial"))
	for _, g := range order {
		ts := idx[g]
		sort.Ints(ts)
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = strconv.Itoa(t)
		}
		size := ""
		if g.size > 0 {
			size = " / size " + param.Format(g.size)
		}
		fmt.Fprintf(w, "- %s / %s%s: trial %s\n", g.dataset, g.series, size, strings.Join(s, ", "))
	}
}
