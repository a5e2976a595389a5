package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/embedded"
	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
	"github.com/repro-ml/repro/stats"
	"go.yaml.in/yaml/v3"
)

// calibrationTests are the paired tests the calibration measures, the
// default (design-t) last.
var calibrationTests = []string{stats.TestT, stats.TestCorrectedT, stats.TestWilcoxon, stats.TestDesignT}

// calDesign is one design of experiments/ as the calibration simulates
// it on the embedded splice data: a dataset of Rows rows (a fixed subset
// of the 3,186; Given of them the given training part for split given),
// the split, nested training samples of each of Sizes per trial, Trials
// trials (kfold: folds × repeats).
type calDesign struct {
	Name     string
	From     string // the experiments it stands for
	Rows     int
	Given    int    // the given split's training rows; 0: none
	Split    string // the split: entry, in YAML
	Sizes    []int
	Trials   int
	Sampling datasets.Sampling
	// Tied draws a trial's column halves from its split (the fold),
	// not from the trial: the two series are then deterministic learners
	// whose difference depends on the split alone, so trials that repeat
	// a split repeat their difference.
	Tied bool
}

// calDesigns are the designs of experiments/ (split:, curve:, the active
// protocol's batches), scaled to the splice data where the paper's data
// are larger (the shares of test and training rows kept). Each split is
// written as in a spec.
func calDesigns() []calDesign {
	return []calDesign{
		{Name: "holdout 1000 of 2000, sizes 50–1000, 5 trials", From: "sandler2008-fig2, -fig3", Rows: 2000, Split: "{kind: holdout, test: 1000, stratify: true}", Sizes: []int{50, 100, 200, 500, 1000}, Trials: 5, Sampling: datasets.Stratified},
		{Name: "holdout 500 of 1532, sizes 20–800, 5 trials", From: "quickstart", Rows: 1532, Split: "{kind: holdout, test: 500, stratify: true}", Sizes: []int{20, 50, 100, 200, 400, 800}, Trials: 5, Sampling: datasets.Stratified},
		{Name: "holdout 600 of 3186, size 200, 3 trials", From: "jebara2004-fig3 (isolet, scaled)", Rows: 3186, Split: "{kind: holdout, test: 600}", Sizes: []int{200}, Trials: 3, Sampling: datasets.Random},
		{Name: "holdout 166 of 366, size 200 (the pool), 5 trials", From: "jebara2004-fig4", Rows: 366, Split: "{kind: holdout, test: 166}", Sizes: []int{200}, Trials: 5, Sampling: datasets.Random},
		{Name: "holdout 959 of 3186, size 2227 (the pool), 10 trials", From: "szafranski2007-table1 (abalone, scaled)", Rows: 3186, Split: "{kind: holdout, test: 959}", Sizes: []int{2227}, Trials: 10, Sampling: datasets.Random},
		{Name: "rest, size 200 of 1532, 10 trials", From: "jebara2004-fig1, -fig2", Rows: 1532, Split: "{kind: rest}", Sizes: []int{200}, Trials: 10, Sampling: datasets.Random},
		{Name: "rest, sizes 100, 200 of 3186, 10 trials", From: "peers-splice", Rows: 3186, Split: "{kind: rest}", Sizes: []int{100, 200}, Trials: 10, Sampling: datasets.Random},
		{Name: "rest, size 112 of 3186, 10 trials", From: "szafranski2007-table2 (census, scaled)", Rows: 3186, Split: "{kind: rest}", Sizes: []int{112}, Trials: 10, Sampling: datasets.Random},
		{Name: "given 2000/1186, sizes 100–2000, 5 trials", From: "sandler2008-fig1 (20news, scaled)", Rows: 3186, Given: 2000, Split: "{kind: given}", Sizes: []int{100, 200, 500, 1000, 2000}, Trials: 5, Sampling: datasets.Balanced},
		{Name: "given 1064/708, sizes 50–1000, 20 trials", From: "paskov2013-fig4", Rows: 1772, Given: 1064, Split: "{kind: given}", Sizes: []int{50, 100, 200, 400, 1000}, Trials: 20, Sampling: datasets.Stratified},
		{Name: "given 1911/1275, sizes 169–1690, 3 trials", From: "peers-20newsgroups (scaled)", Rows: 3186, Given: 1911, Split: "{kind: given}", Sizes: []int{169, 676, 1690}, Trials: 3, Sampling: datasets.Random},
		{Name: "kfold 10×10 refold false, labelled 10–200 (active batches)", From: "bilgic2012 (all five)", Rows: 2708, Split: "{kind: kfold, folds: 10, repeats: 10, stratify: true, refold: false}", Sizes: []int{10, 50, 100, 200}, Trials: 100, Sampling: datasets.Random},
		{Name: "kfold 10×10 refold false, labelled 10–200, deterministic learners", From: "bilgic2012 (a learner without randomness)", Rows: 2708, Split: "{kind: kfold, folds: 10, repeats: 10, stratify: true, refold: false}", Sizes: []int{10, 50, 100, 200}, Trials: 100, Sampling: datasets.Random, Tied: true},
		{Name: "kfold 5×2, the whole pool", From: "issue 40's k-fold study", Rows: 1532, Split: "{kind: kfold, folds: 5, repeats: 2, stratify: true}", Sizes: []int{1225}, Trials: 10, Sampling: datasets.Random},
		{Name: "kfold 10×10, the whole pool", From: "Bouckaert & Frank (2004)", Rows: 1532, Split: "{kind: kfold, folds: 10, repeats: 10, stratify: true}", Sizes: []int{1378}, Trials: 100, Sampling: datasets.Random},
	}
}

// split returns the design's split: its Split parsed as a spec's split:
// entry.
func (cd *calDesign) split() (spec.Split, error) {
	var sp spec.Split
	if err := yaml.Unmarshal([]byte(cd.Split), &sp); err != nil {
		return sp, fmt.Errorf("split %s: %w", cd.Split, err)
	}
	return sp, nil
}

// calOptions are the calibration's settings.
type calOptions struct {
	Seeds   int     // experiment seeds per design
	Flip    float64 // the effect: the share of series B's training labels flipped
	Alpha   float64
	Jobs    int
	Designs []calDesign
}

// calCell is the outcome of one design at one size: per test the number
// of experiment seeds whose test rejected at Alpha under the null and
// under the effect, of Seeds.
type calCell struct {
	Design   *calDesign
	Size     int
	Seeds    int
	Null     map[string]int
	Effect   map[string]int
	Overlap  [2]float64 // training, test (stats.Design.Overlap)
	MeanDiff float64    // the effect's mean difference in accuracy points
}

// calibrate runs the calibration of every design of opts and returns one
// cell per design and size, in order.
func calibrate(ctx context.Context, opts calOptions) ([]calCell, error) {
	all, err := embedded.DNASplice([]string{"ei", "ie", "n"}, embedded.EncodingBits)
	if err != nil {
		return nil, err
	}
	var out []calCell
	for i := range opts.Designs {
		cells, err := calibrateDesign(ctx, all, &opts.Designs[i], opts)
		if err != nil {
			return nil, fmt.Errorf("design %q: %w", opts.Designs[i].Name, err)
		}
		out = append(out, cells...)
	}
	return out, nil
}

// calData is a design's dataset as dense rows for the learner.
type calData struct {
	d    *datasets.Dataset
	nz   [][]entry // each row's nonzero columns
	k    int
	cols int
}

// entry is a nonzero value of a row.
type entry struct {
	col int
	v   float64
}

// designData returns the fixed subset of rows of the design (the first
// Rows of a permutation seeded by 1), with its given split.
func designData(all *datasets.Dataset, cd *calDesign) (*calData, error) {
	if cd.Rows > all.Rows() {
		return nil, fmt.Errorf("%d rows, the data have %d", cd.Rows, all.Rows())
	}
	perm := rand.New(rand.NewPCG(1, 2)).Perm(all.Rows())
	rows := slices.Clone(perm[:cd.Rows])
	slices.Sort(rows)
	d := all.Subset(rows)
	if cd.Given > 0 {
		d.Split = make([]datasets.Part, d.Rows())
		// The first Given rows of another fixed permutation train.
		p := rand.New(rand.NewPCG(3, 4)).Perm(d.Rows())
		for j, i := range p {
			if j < cd.Given {
				d.Split[i] = datasets.SplitTrain
			} else {
				d.Split[i] = datasets.SplitTest
			}
		}
	}
	r, c := d.X.Dims()
	nz := make([][]entry, r)
	for i := range nz {
		for j := 0; j < c; j++ {
			if v := d.X.At(i, j); v != 0 {
				nz[i] = append(nz[i], entry{j, v})
			}
		}
	}
	return &calData{d: d, nz: nz, k: len(d.Classes), cols: c}, nil
}

// calibrateDesign runs opts.Seeds experiments of design cd.
func calibrateDesign(ctx context.Context, all *datasets.Dataset, cd *calDesign, opts calOptions) ([]calCell, error) {
	data, err := designData(all, cd)
	if err != nil {
		return nil, err
	}
	split, err := cd.split()
	if err != nil {
		return nil, err
	}
	sp, err := runner.LookupSplitter(split.KindName())
	if err != nil {
		return nil, err
	}
	type seedOut struct {
		null, effect [][]stats.Result // per size, per test
		diff         []float64
		tests        []int // per size, one trial's test rows
		err          error
	}
	outs := make([]seedOut, opts.Seeds)
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(opts.Jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				n, e, diff, tests, err := calExperiment(data, sp, split, cd, uint64(s+1), opts)
				outs[s] = seedOut{n, e, diff, tests, err}
			}
		}()
	}
	for s := 0; s < opts.Seeds; s++ {
		if ctx.Err() != nil {
			break
		}
		next <- s
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cells := make([]calCell, len(cd.Sizes))
	for si, size := range cd.Sizes {
		c := calCell{Design: cd, Size: size, Seeds: opts.Seeds, Null: map[string]int{}, Effect: map[string]int{}}
		diffs := 0.0
		for _, o := range outs {
			if o.err != nil {
				return nil, o.err
			}
			c.Overlap[0], c.Overlap[1] = designOf(split, data.d.Rows(), size, o.tests[si], nil).Overlap()
			for ti, test := range calibrationTests {
				if o.null[si][ti].P < opts.Alpha {
					c.Null[test]++
				}
				if o.effect[si][ti].P < opts.Alpha {
					c.Effect[test]++
				}
			}
			diffs += o.diff[si]
		}
		c.MeanDiff = diffs / float64(opts.Seeds)
		cells[si] = c
	}
	return cells, nil
}

// designOf returns the stats.Design the reports would assume for trials
// of split on a dataset of rows rows at a size (reports.DesignOf), with
// the units of trials where the design repeats splits.
func designOf(split spec.Split, rows, size, test int, trials []int) stats.Design {
	d := reports.DesignOf(&spec.DatasetSpec{Split: split}, rows, size, test, size)
	if d.RepeatsSplits() && trials != nil {
		d.Units = make([]int, len(trials))
		for i, t := range trials {
			d.Units[i] = d.UnitOf(t)
		}
	}
	return d
}

// calExperiment runs one experiment of design cd with experiment seed
// seed: per trial the runner's split and nested sample, series A and B
// the nearest-centroid learner each on its own random half of the
// columns, and B' as B with opts.Flip of its training labels flipped; it
// returns per size the tests of A against B (the null) and of A against
// B' (the effect), and the effect's mean difference.
func calExperiment(data *calData, sp *runner.Splitter, split spec.Split, cd *calDesign, seed uint64, opts calOptions) (null, effect [][]stats.Result, diff []float64, tests []int, err error) {
	d := data.d
	ns := len(cd.Sizes)
	a := make([][]float64, ns)
	b := make([][]float64, ns)
	bf := make([][]float64, ns)
	tests = make([]int, ns)
	var trials []int
	dsSeed := spec.Derive(seed, "split", "calibration")
	for t := 0; t < cd.Trials; t++ {
		sample := spec.Derive(seed, "sample", "calibration", fmt.Sprint(t))
		part, err := sp.Split(d, split.Params, runner.SplitAt{Trial: t, Sample: sample, Dataset: dsSeed})
		if err != nil {
			return nil, nil, nil, nil, err
		}
		order, err := datasets.Order(part.Pool, d.Y, data.k, cd.Sampling, spec.Derive(sample, "train"))
		if err != nil {
			return nil, nil, nil, nil, err
		}
		colSeed := sample
		if cd.Tied {
			// The split's own identity: its test rows.
			colSeed = spec.Derive(dsSeed, "cols", fmt.Sprint(part.Test[:min(3, len(part.Test))]))
		}
		colsA := half(data.cols, spec.Derive(colSeed, "cols", "A"))
		colsB := half(data.cols, spec.Derive(colSeed, "cols", "B"))
		flip := rand.New(rand.NewPCG(spec.Derive(sample, "flip"), 0))
		for si, size := range cd.Sizes {
			if size > len(order) {
				return nil, nil, nil, nil, fmt.Errorf("size %d beyond the pool of %d", size, len(order))
			}
			train := slices.Clone(order[:size])
			slices.Sort(train)
			test := part.TestRows(train)
			tests[si] = len(test)
			y := make([]int, len(train))
			yf := make([]int, len(train))
			for i, r := range train {
				y[i] = d.Label(r)
				yf[i] = y[i]
				if flip.Float64() < opts.Flip {
					yf[i] = (y[i] + 1 + flip.IntN(data.k-1)) % data.k
				}
			}
			a[si] = append(a[si], centroidAccuracy(data, train, y, test, colsA))
			b[si] = append(b[si], centroidAccuracy(data, train, y, test, colsB))
			bf[si] = append(bf[si], centroidAccuracy(data, train, yf, test, colsB))
		}
		trials = append(trials, t)
	}
	null = make([][]stats.Result, ns)
	effect = make([][]stats.Result, ns)
	diff = make([]float64, ns)
	for si, size := range cd.Sizes {
		dz := designOf(split, d.Rows(), size, tests[si], trials)
		for _, test := range calibrationTests {
			null[si] = append(null[si], stats.Paired(test, a[si], b[si], dz))
			effect[si] = append(effect[si], stats.Paired(test, a[si], bf[si], dz))
		}
		for i := range a[si] {
			diff[si] += (a[si][i] - bf[si][i]) / float64(len(a[si]))
		}
	}
	return null, effect, diff, tests, nil
}

// half returns a random half of the column indices 0 … n−1, sorted.
func half(n int, seed uint64) []int {
	p := rand.New(rand.NewPCG(seed, 1)).Perm(n)[:n/2]
	slices.Sort(p)
	return p
}

// centroidAccuracy fits the nearest-centroid classifier on the rows
// train (labels y) and columns cols and returns its accuracy on the rows
// test, in percent. A class without training rows is never predicted.
// The distance to class c's mean m is ‖x‖² − 2x·m + ‖m‖², so the class
// minimising ‖m‖² − 2x·m is the nearest, with x·m summed over x's
// nonzero columns that cols holds.
func centroidAccuracy(data *calData, train, y, test, cols []int) float64 {
	k := data.k
	in := make([]bool, data.cols)
	for _, c := range cols {
		in[c] = true
	}
	mean := make([][]float64, k)
	n := make([]int, k)
	for c := range mean {
		mean[c] = make([]float64, data.cols)
	}
	for i, r := range train {
		m := mean[y[i]]
		for _, e := range data.nz[r] {
			if in[e.col] {
				m[e.col] += e.v
			}
		}
		n[y[i]]++
	}
	norm := make([]float64, k)
	for c := range mean {
		if n[c] == 0 {
			continue
		}
		for _, j := range cols {
			mean[c][j] /= float64(n[c])
			norm[c] += mean[c][j] * mean[c][j]
		}
	}
	right := 0
	score := make([]float64, k)
	for _, r := range test {
		copy(score, norm)
		for _, e := range data.nz[r] {
			if in[e.col] {
				for c := range score {
					score[c] -= 2 * e.v * mean[c][e.col]
				}
			}
		}
		best, bestS := -1, math.Inf(1)
		for c, v := range score {
			if n[c] > 0 && v < bestS {
				best, bestS = c, v
			}
		}
		if best == data.d.Label(r) {
			right++
		}
	}
	return 100 * float64(right) / float64(len(test))
}

// writeCalibrationHeader writes the head of the calibration's Markdown
// table: per design and size the overlap, then per test the Type I
// error and the power.
func writeCalibrationHeader(w io.Writer) {
	fmt.Fprintf(w, "| design | stands for | size | overlap train / test |")
	for _, t := range calibrationTests {
		fmt.Fprintf(w, " %s type I |", t)
	}
	for _, t := range calibrationTests {
		fmt.Fprintf(w, " %s power |", t)
	}
	fmt.Fprintf(w, " effect |\n|:--|:--|--:|--:|%s\n", strings.Repeat("--:|", 2*len(calibrationTests)+1))
}

// writeCalibrationRows writes the table's rows of cells.
func writeCalibrationRows(w io.Writer, cells []calCell) {
	for _, c := range cells {
		fmt.Fprintf(w, "| %s | %s | %d | %s / %s |", c.Design.Name, c.Design.From, c.Size, pctOf(c.Overlap[0]), pctOf(c.Overlap[1]))
		for _, t := range calibrationTests {
			fmt.Fprintf(w, " %s |", rateCell(c.Null[t], c.Seeds, isDefault(t)))
		}
		for _, t := range calibrationTests {
			fmt.Fprintf(w, " %s |", rateCell(c.Effect[t], c.Seeds, isDefault(t)))
		}
		fmt.Fprintf(w, " %+.2f |\n", c.MeanDiff)
	}
}

func isDefault(test string) bool { return test == stats.TestDesignT }

// rateCell formats k of n as a rate, bold for the default test.
func rateCell(k, n int, bold bool) string {
	s := fmt.Sprintf("%.3f", float64(k)/float64(n))
	if bold {
		s = "**" + s + "**"
	}
	return s
}

func pctOf(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// calAcceptance returns the cells where the default misses the
// acceptance: its Type I error outside [lo, hi], or its power below
// corrected-t's where corrected-t's Type I error is within [lo, hi].
func calAcceptance(cells []calCell, lo, hi float64) []string {
	var bad []string
	for _, c := range cells {
		n := float64(c.Seeds)
		typeI := float64(c.Null[stats.TestDesignT]) / n
		if typeI < lo || typeI > hi {
			bad = append(bad, fmt.Sprintf("%s, size %d: design-t type I %.3f outside [%.3f, %.3f]", c.Design.Name, c.Size, typeI, lo, hi))
		}
		if ct := float64(c.Null[stats.TestCorrectedT]) / n; ct >= lo && ct <= hi && c.Effect[stats.TestDesignT] < c.Effect[stats.TestCorrectedT] {
			bad = append(bad, fmt.Sprintf("%s, size %d: design-t power %.3f below corrected-t's %.3f", c.Design.Name, c.Size,
				float64(c.Effect[stats.TestDesignT])/n, float64(c.Effect[stats.TestCorrectedT])/n))
		}
	}
	return bad
}

// cmdCalibrate runs repro calibrate.
func cmdCalibrate(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", 1000, "experiment seeds per design")
	flip := fs.Float64("flip", 0.2, "the effect: the share of series B's training labels flipped to another class")
	jobs := fs.Int("j", 2, "seeds run in parallel")
	only := fs.String("designs", "", "run only the designs whose name contains this text")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: repro calibrate [--seeds N] [--flip F] [-j N] [--designs TEXT]

Measures the Type I error at α = 0.05 and the power of the paired tests
(%s; the default design-t in bold) on every design of experiments/,
simulated on the embedded splice data with the runner's own split code:
two series of one nearest-centroid learner, each on a random half of the
columns drawn anew in every trial (the null: equal in expectation by
construction), and the same with F of series B's training labels flipped
(the effect). Prints a Markdown table (docs/statistics.md holds the full
one) and exits 1 if the default misses the acceptance: Type I error in
[0.03, 0.07] in every design, power at least corrected-t's wherever
corrected-t's Type I error is in that band.

`, strings.Join(calibrationTests, ", "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 || *seeds < 1 || !(*flip >= 0 && *flip < 1) {
		fs.Usage()
		return exitUsage
	}
	opts := calOptions{Seeds: *seeds, Flip: *flip, Alpha: spec.DefaultAlpha, Jobs: *jobs}
	for _, d := range calDesigns() {
		if strings.Contains(d.Name, *only) {
			opts.Designs = append(opts.Designs, d)
		}
	}
	start := time.Now()
	writeCalibrationHeader(stdout)
	var cells []calCell
	for _, d := range opts.Designs {
		o := opts
		o.Designs = []calDesign{d}
		cs, err := calibrate(ctx, o) // a design's rows as soon as they are known
		if err != nil {
			fmt.Fprintf(stderr, "repro calibrate: %v\n", err)
			return exitError
		}
		writeCalibrationRows(stdout, cs)
		cells = append(cells, cs...)
	}
	fmt.Fprintf(stdout, "\n%d experiment seeds per design, %d%% of series B's training labels flipped for the power, α = %s; %s.\n",
		opts.Seeds, int(math.Round(100*opts.Flip)), fmt.Sprint(opts.Alpha), time.Since(start).Round(time.Second))
	if bad := calAcceptance(cells, 0.03, 0.07); len(bad) > 0 {
		fmt.Fprintf(stdout, "\nThe default misses the acceptance:\n")
		for _, b := range bad {
			fmt.Fprintf(stdout, "- %s\n", b)
		}
		return exitFailed
	}
	fmt.Fprintf(stdout, "\nThe default meets the acceptance in every design.\n")
	return exitOK
}
