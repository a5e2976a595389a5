package conformance_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

// splitParams gives the suite's values of split params, one suite
// configuration per map; each configuration is also run with every bool
// param flipped. A split kind with a required param missing here fails
// TestSplitters, which names it.
var splitParams = map[string][]map[string]any{
	"holdout": {{"test": 0.3}, {"test": 25}},
	"kfold":   {{"folds": 4, "repeats": 2}},
}

// seedless lists the split kinds that promise the same partition for
// every seed (the dataset's own split; all rows), with the reason. Every
// other kind must draw a different partition for a different seed.
var seedless = map[string]string{
	"given": "the dataset's own train/test partition",
	"rest":  "the pool is every row; the test part follows from the training sample",
	"train": "the pool is every row; the test part is the training sample",
}

// uncovered lists the split kinds that leave rows out of both the pool (or
// training sample) and the test part, with the reason; none does yet. Every
// other kind that is not in-sample puts every row in exactly one part.
var uncovered = map[string]string{}

// splitData returns the suite's datasets: 103 rows of three classes of
// unequal sizes (55, 31, 17) in a shuffled order, with a given split (every
// fourth row a test row), and the same rows as a regression.
func splitData() (classification, regression *datasets.Dataset) {
	const n = 103
	r := rand.New(rand.NewPCG(34, 2))
	y := make([]float64, n)
	for i := range y {
		switch {
		case i < 55:
			y[i] = 0
		case i < 86:
			y[i] = 1
		default:
			y[i] = 2
		}
	}
	r.Shuffle(n, func(i, j int) { y[i], y[j] = y[j], y[i] })
	split := make([]datasets.Part, n)
	for i := range split {
		if i%4 == 3 {
			split[i] = datasets.SplitTest
		}
	}
	X := matrix.NewDense(n, 1, nil)
	for i := range n {
		X.Set(i, 0, float64(i))
	}
	classification = &datasets.Dataset{Name: "split-classes", X: X, Y: y, Classes: []string{"a", "b", "c"}, Split: split}
	ry := make([]float64, n)
	for i := range ry {
		ry[i] = r.NormFloat64()
	}
	regression = &datasets.Dataset{Name: "split-regression", X: X, Y: ry, Split: split}
	return classification, regression
}

// splitAt returns the SplitAt of trial under experiment seed seed: the
// sample seed depends on seed and trial, the dataset seed on seed alone,
// as the runner derives them.
func splitAt(seed uint64, trial int) runner.SplitAt {
	return runner.SplitAt{
		Trial:   trial,
		Sample:  spec.Derive(seed, "sample", fmt.Sprint(trial)),
		Dataset: spec.Derive(seed, "dataset"),
	}
}

// splitConfigs returns the param values the suite splits with for a
// kind: each of splitParams's configurations (or the defaults), and each
// with one bool param flipped.
func splitConfigs(t *testing.T, name string, decls []param.Decl) []param.Values {
	t.Helper()
	given := splitParams[name]
	if len(given) == 0 {
		given = []map[string]any{nil}
	}
	var out []param.Values
	for _, g := range given {
		p := resolve(t, "split kind "+name, decls, g)
		out = append(out, p)
		for _, d := range decls {
			if d.Type != param.Bool {
				continue
			}
			q := param.Values{}
			for k, v := range p {
				q[k] = v
			}
			q[d.Name] = !p.Bool(d.Name)
			out = append(out, q)
		}
	}
	return out
}

// TestSplitters splits the suite's datasets with every registered split
// kind, under each of its suite configurations, for several trials and
// seeds, and checks every partition with checkPartition; that the same
// seed and trial give the same partition and that another seed gives
// another one (unless the kind is seedless); and, for a kind that defines
// its own replicates (kfold), that every row is a test row in equally
// many of them.
func TestSplitters(t *testing.T) {
	for name := range splitParams {
		if _, err := runner.LookupSplitter(name); err != nil {
			t.Errorf("splitParams: %v", err)
		}
	}
	for name := range seedless {
		if _, err := runner.LookupSplitter(name); err != nil {
			t.Errorf("seedless: %v", err)
		}
	}
	for _, name := range spec.Splitters.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sp, err := runner.LookupSplitter(name)
			if err != nil {
				t.Fatal(err)
			}
			if sp.Doc == "" {
				t.Error("no Doc")
			}
			cls, reg := splitData()
			for _, p := range splitConfigs(t, name, sp.Params) {
				for _, d := range []*datasets.Dataset{cls, reg} {
					asked, _ := p["stratify"].(bool)
					if asked && !d.IsClassification() {
						continue // stratify has no meaning for regression; holdout refuses it
					}
					stratify := asked
					label := p.Label()
					if label == "" {
						label = "defaults"
					}
					t.Run(d.Name+"/"+label, func(t *testing.T) {
						checkSplitter(t, name, sp, d, p, stratify)
					})
				}
			}
		})
	}
}

// checkSplitter runs the checks of TestSplitters for one kind, dataset and
// param values.
func checkSplitter(t *testing.T, name string, sp *runner.Splitter, d *datasets.Dataset, p param.Values, stratify bool) {
	y0, split0 := slices.Clone(d.Y), slices.Clone(d.Split)
	trials := 3
	if sp.Replicates != nil {
		trials = sp.Replicates(p)
		if trials < 1 {
			t.Fatalf("Replicates(%s) = %d, want ≥ 1", p.Label(), trials)
		}
	}
	seeds := []uint64{1, 2, 3}
	// testCount[seed][row] counts the trials row is a test row in.
	testCount := make([][]int, len(seeds))
	for si, seed := range seeds {
		testCount[si] = make([]int, d.Rows())
		for trial := range trials {
			at := splitAt(seed, trial)
			part, err := sp.Split(d, p, at)
			if err != nil {
				t.Fatalf("seed %d trial %d: %v", seed, trial, err)
			}
			train := sampleOf(part.Pool, seed)
			test := checkPartition(t, name, d, part, train, stratify)
			if t.Failed() {
				return
			}
			if part.Test != nil {
				for _, i := range part.Test {
					testCount[si][i]++
				}
			}
			again, err := sp.Split(d, p, at)
			if err != nil {
				t.Fatalf("seed %d trial %d, split again: %v", seed, trial, err)
			}
			if !reflect.DeepEqual(again.Pool, part.Pool) || !reflect.DeepEqual(again.Test, part.Test) ||
				!reflect.DeepEqual(again.TestRows(train), test) || again.InSample != part.InSample {
				t.Errorf("seed %d trial %d: splitting again with the same SplitAt gave another partition", seed, trial)
			}
			other := splitAt(seed+100, trial)
			o, err := sp.Split(d, p, other)
			if err != nil {
				t.Fatalf("seed %d trial %d: %v", seed+100, trial, err)
			}
			same := reflect.DeepEqual(o.Pool, part.Pool) && reflect.DeepEqual(o.Test, part.Test) &&
				reflect.DeepEqual(o.TestRows(train), test)
			_, isSeedless := seedless[name]
			switch {
			case isSeedless && !same:
				t.Errorf("trial %d: seeds %d and %d gave different partitions, but the kind is listed as seedless (%s)", trial, seed, seed+100, seedless[name])
			case !isSeedless && same:
				t.Errorf("trial %d: seeds %d and %d gave the same partition; a kind that does not depend on the seed belongs in seedless", trial, seed, seed+100)
			}
		}
		if sp.Replicates != nil && !t.Failed() {
			for i, c := range testCount[si] {
				if c != testCount[si][0] {
					t.Errorf("seed %d: row %d is a test row in %d of the %d replicates, row 0 in %d; want every row in equally many", seed, i, c, trials, testCount[si][0])
					break
				}
			}
		}
	}
	if !reflect.DeepEqual(d.Y, y0) || !reflect.DeepEqual(d.Split, split0) {
		t.Error("Split changed the dataset")
	}
}

// sampleOf returns a training sample drawn from pool as a curve would: a
// random half of it, sorted.
func sampleOf(pool []int, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, 77))
	perm := r.Perm(len(pool))[:max(1, len(pool)/2)]
	out := make([]int, len(perm))
	for k, i := range perm {
		out[k] = pool[i]
	}
	slices.Sort(out)
	return out
}

// checkPartition checks one partition of d's rows, with train a training
// sample drawn from its pool, and returns the test rows of train:
//   - the pool is sorted, distinct and in range, and not empty;
//   - a fixed test part is too, and shares no row with the pool; with
//     TestOf, the test rows of train share no row with train, unless the
//     kind is in-sample, when they are train itself;
//   - unless the kind is listed in uncovered or in-sample, every row is in
//     exactly one of pool and test part (or of train and its test rows);
//   - TestRows leaves train unchanged;
//   - with stratify, the test part holds every class c within ±1 row of
//     its share |test|·n_c/n.
func checkPartition(t *testing.T, name string, d *datasets.Dataset, part *runner.Partition, train []int, stratify bool) []int {
	t.Helper()
	n := d.Rows()
	checkRows(t, "Pool", part.Pool, n)
	if len(part.Pool) == 0 {
		t.Error("empty pool")
	}
	train0 := slices.Clone(train)
	test := part.TestRows(train)
	if !slices.Equal(train, train0) {
		t.Error("TestRows changed the training rows it was given")
	}
	if part.Test == nil && part.TestOf == nil {
		t.Fatal("neither Test nor TestOf is set")
	}
	checkRows(t, "test rows", test, n)
	if len(test) == 0 {
		t.Error("no test rows")
	}
	if part.InSample {
		if !slices.Equal(test, train) {
			t.Error("an in-sample partition's test rows are not the training rows")
		}
		return test
	}
	_, skipCover := uncovered[name]
	if part.Test != nil {
		if both := intersect(part.Pool, part.Test); len(both) > 0 {
			t.Errorf("%d test rows are also in the pool (first: row %d)", len(both), both[0])
		}
		if !skipCover && len(part.Pool)+len(part.Test) != n {
			t.Errorf("pool %d + test %d rows ≠ %d rows: rows left out of both parts", len(part.Pool), len(part.Test), n)
		}
		if stratify {
			checkStratified(t, d, part.Test)
		}
	} else {
		if both := intersect(train, test); len(both) > 0 {
			t.Errorf("%d test rows are also training rows (first: row %d)", len(both), both[0])
		}
		if !skipCover && len(train)+len(test) != n {
			t.Errorf("train %d + test %d rows ≠ %d rows: rows left out of both", len(train), len(test), n)
		}
	}
	return test
}

// checkRows checks that rows are sorted, distinct and in [0, n).
func checkRows(t *testing.T, what string, rows []int, n int) {
	t.Helper()
	for k, i := range rows {
		if i < 0 || i >= n {
			t.Errorf("%s: row %d out of range [0, %d)", what, i, n)
			return
		}
		if k > 0 && rows[k-1] >= i {
			t.Errorf("%s: not sorted and distinct at position %d (%d then %d)", what, k, rows[k-1], i)
			return
		}
	}
}

// intersect returns the rows in both sorted a and b.
func intersect(a, b []int) []int {
	var out []int
	for _, i := range a {
		if _, ok := slices.BinarySearch(b, i); ok {
			out = append(out, i)
		}
	}
	return out
}

// checkStratified checks that rows hold every class of d within ±1 row of
// its proportional share.
func checkStratified(t *testing.T, d *datasets.Dataset, rows []int) {
	t.Helper()
	all := make([]int, len(d.Classes))
	for i := range d.Rows() {
		all[d.Label(i)]++
	}
	got := make([]int, len(d.Classes))
	for _, i := range rows {
		got[d.Label(i)]++
	}
	for c := range got {
		share := float64(len(rows)) * float64(all[c]) / float64(d.Rows())
		if math.Abs(float64(got[c])-share) > 1 {
			t.Errorf("stratified: %d test rows of class %s, want %.1f ± 1 (%d of %d rows are of that class, %d test rows)", got[c], d.Classes[c], share, all[c], d.Rows(), len(rows))
		}
	}
}
