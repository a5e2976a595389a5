package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/embedded"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
	"github.com/repro-ml/repro/stats"
)

// designNamed returns the calibration design whose name is name, with
// its sizes cut to sizes when given.
func designNamed(t *testing.T, name string, sizes ...int) calDesign {
	t.Helper()
	for _, d := range calDesigns() {
		if d.Name == name {
			if len(sizes) > 0 {
				d.Sizes = sizes
			}
			return d
		}
	}
	t.Fatalf("no calibration design %q", name)
	return calDesign{}
}

// TestCalibrationReduced is the calibration CI runs: three designs of
// experiments/ at one size each, a few hundred experiment seeds. The
// default's Type I error must lie in the acceptance band [0.03, 0.07]
// widened by the binomial error of the seeds (2.6 standard errors: a
// miss has probability below 1% per bound), its power must be at least
// corrected-t's, and on trials that repeat a split with a deterministic
// learner the plain t-test must be found far too liberal — the
// calibration sees what the default corrects.
func TestCalibrationReduced(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 150
	}
	designs := []calDesign{
		designNamed(t, "kfold 10×10 refold false, labelled 10–200, deterministic learners", 50),
		designNamed(t, "rest, size 112 of 3186, 10 trials"),
		designNamed(t, "given 1064/708, sizes 50–1000, 20 trials", 200),
	}
	cells, err := calibrate(context.Background(), calOptions{Seeds: seeds, Flip: 0.2, Alpha: 0.05, Jobs: 2, Designs: designs})
	if err != nil {
		t.Fatal(err)
	}
	band := func(p float64) float64 { return 2.6 * math.Sqrt(p*(1-p)/float64(seeds)) }
	lo, hi := 0.03-band(0.03), 0.07+band(0.07)
	for _, c := range cells {
		rate := func(m map[string]int, test string) float64 { return float64(m[test]) / float64(c.Seeds) }
		where := fmt.Sprintf("%s, size %d", c.Design.Name, c.Size)
		if r := rate(c.Null, stats.TestDesignT); r < lo || r > hi {
			t.Errorf("%s: design-t type I %.3f outside [%.3f, %.3f]", where, r, lo, hi)
		}
		if rate(c.Effect, stats.TestDesignT) < rate(c.Effect, stats.TestCorrectedT) {
			t.Errorf("%s: design-t power %.3f below corrected-t's %.3f", where, rate(c.Effect, stats.TestDesignT), rate(c.Effect, stats.TestCorrectedT))
		}
		if rate(c.Effect, stats.TestDesignT) < 0.3 {
			t.Errorf("%s: design-t power %.3f; the effect (20%% of labels flipped, %+.1f points) should be found more often", where, rate(c.Effect, stats.TestDesignT), c.MeanDiff)
		}
		if c.Design.Tied && rate(c.Null, stats.TestT) < 0.2 {
			t.Errorf("%s: plain t type I %.3f; repeats of one split with a deterministic learner should make it reject far more often than 5%%", where, rate(c.Null, stats.TestT))
		}
	}
}

// TestOverlapBySimulation checks stats.Design.Overlap against the rows
// the runner's own splits and samples share: over the pairs of trials of
// one experiment, the mean share of a trial's training rows the other
// trial also trains on, and of its test rows the other also tests on.
func TestOverlapBySimulation(t *testing.T) {
	all, err := embedded.DNASplice([]string{"ei", "ie", "n"}, embedded.EncodingBits)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		size int
	}{
		{"holdout 1000 of 2000, sizes 50–1000, 5 trials", 500},
		{"holdout 166 of 366, size 200 (the pool), 5 trials", 200},
		{"rest, size 200 of 1532, 10 trials", 200},
		{"given 1064/708, sizes 50–1000, 20 trials", 400},
		{"kfold 10×10 refold false, labelled 10–200 (active batches)", 100},
		{"kfold 5×2, the whole pool", 1225},
		{"kfold 10×10, the whole pool", 1378},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cd := designNamed(t, tc.name, tc.size)
			data, err := designData(all, &cd)
			if err != nil {
				t.Fatal(err)
			}
			split, err := cd.split()
			if err != nil {
				t.Fatal(err)
			}
			sp, err := runner.LookupSplitter(split.KindName())
			if err != nil {
				t.Fatal(err)
			}
			trials := cd.Trials
			if sp.Replicates == nil {
				trials = 40 // more pairs for a closer mean
			}
			var trains, tests [][]int
			for seed := uint64(1); seed <= 3; seed++ {
				dsSeed := spec.Derive(seed, "split", "overlap")
				for tr := 0; tr < trials; tr++ {
					sample := spec.Derive(seed, "sample", "overlap", fmt.Sprint(tr))
					part, err := sp.Split(data.d, split.Params, runner.SplitAt{Trial: tr, Sample: sample, Dataset: dsSeed})
					if err != nil {
						t.Fatal(err)
					}
					order, err := datasets.Order(part.Pool, data.d.Y, data.k, cd.Sampling, spec.Derive(sample, "train"))
					if err != nil {
						t.Fatal(err)
					}
					train := slices.Clone(order[:tc.size])
					slices.Sort(train)
					trains = append(trains, train)
					tests = append(tests, part.TestRows(train))
				}
			}
			// Pairs within one experiment only.
			var trSum, teSum float64
			pairs := 0
			for s := 0; s < 3; s++ {
				for i := s * trials; i < (s+1)*trials; i++ {
					for j := s * trials; j < (s+1)*trials; j++ {
						if i == j {
							continue
						}
						trSum += float64(shared(trains[i], trains[j])) / float64(len(trains[i]))
						teSum += float64(shared(tests[i], tests[j])) / float64(len(tests[i]))
						pairs++
					}
				}
			}
			gotTr, gotTe := trSum/float64(pairs), teSum/float64(pairs)
			wantTr, wantTe := designOf(split, data.d.Rows(), tc.size, len(tests[0]), nil).Overlap()
			if math.Abs(gotTr-wantTr) > 0.01+0.03*wantTr || math.Abs(gotTe-wantTe) > 0.01+0.03*wantTe {
				t.Errorf("overlap train %.4f test %.4f by simulation; Design.Overlap says %.4f and %.4f", gotTr, gotTe, wantTr, wantTe)
			}
		})
	}
}

// shared returns how many values two sorted slices have in common.
func shared(a, b []int) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}

// repro calibrate prints the table a design's rows at a time and says
// whether the default met the acceptance; bad flags are usage errors.
func TestCalibrateCLI(t *testing.T) {
	code, stdout, stderr := cli(t, "calibrate", "--seeds", "20", "--designs", "holdout 600 of 3186")
	if code != exitOK && code != exitFailed {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"| design | stands for | size | overlap train / test | t type I | corrected-t type I | wilcoxon type I | design-t type I |",
		"| holdout 600 of 3186, size 200, 3 trials | jebara2004-fig3 (isolet, scaled) | 200 | 6.3% / 18.8% |",
		"20 experiment seeds per design, 20% of series B's training labels flipped",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	if met := strings.Contains(stdout, "meets the acceptance"); met != (code == exitOK) {
		t.Errorf("exit %d but the verdict line says met=%v:\n%s", code, met, stdout)
	}
	for _, args := range [][]string{{"calibrate", "--seeds", "0"}, {"calibrate", "--flip", "1"}, {"calibrate", "extra"}} {
		mustCLI(t, exitUsage, args...)
	}
}
