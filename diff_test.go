package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// copyDir copies the regular files of src (one level of subdirectories
// and more) to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// editResults rewrites each result of dir's results.jsonl with edit.
func editResults(t *testing.T, dir string, edit func(*results.Result)) {
	t.Helper()
	path := filepath.Join(dir, results.ResultsFile)
	recs, warns, err := results.ReadResults(path)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	var b strings.Builder
	for i := range recs {
		edit(&recs[i])
		line, err := json.Marshal(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	writeFile(t, path, b.String())
}

// TestDiff runs the tiny spec, makes a "new" run whose LR (C=0.1) lost
// 10–11 accuracy points per trial, and diffs the two.
func TestDiff(t *testing.T) {
	tmp := t.TempDir()
	old, new := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	mustCLI(t, exitOK, "run", irisSpec, "-o", old, "-q", "-j", "2")
	copyDir(t, old, new)
	editResults(t, new, func(r *results.Result) {
		r.FitSeconds *= 2 // timing is never compared
		if spec.SeriesName(r.Method, r.Variant) == "LR (C=0.1)" {
			r.Metrics["accuracy"] -= 10 + float64(r.Trial)
		}
	})

	// A run compared with itself: nothing changed.
	stdout, _ := mustCLI(t, exitOK, "diff", old, old)
	if !strings.Contains(stdout, "0 significantly better, 0 significantly worse, 0 regressions") || strings.Contains(stdout, "WORSE") {
		t.Errorf("diff of a run with itself:\n%s", stdout)
	}
	stdout, _ = mustCLI(t, exitFailed, "diff", old, new)
	golden(t, "diff.golden", stdout)
	// Within the tolerance the worsening is reported, not a failure.
	for _, tol := range []string{"12", "15%"} {
		stdout, _ = mustCLI(t, exitOK, "diff", old, new, "--tolerance", tol)
		if !strings.Contains(stdout, "| worse ") || strings.Contains(stdout, "WORSE") {
			t.Errorf("--tolerance %s:\n%s", tol, stdout)
		}
	}
	// The other way round it is an improvement.
	stdout, _ = mustCLI(t, exitOK, "diff", new, old)
	if !strings.Contains(stdout, "| better ") {
		t.Errorf("diff NEW OLD:\n%s", stdout)
	}

	// A run of another size list pairs the trials both have, lists the
	// others, and fails for the size it lacks unless --allow-missing.
	other := filepath.Join(tmp, "other")
	mustCLI(t, exitOK, "run", irisSpec, "-o", other, "-q", "-j", "2", "--set", "curve.sizes=[15,30]")
	stdout, _ = mustCLI(t, exitFailed, "diff", old, other)
	for _, want := range []string{
		"changed between the runs:\n- experiment: curve.sizes: [15, 45] → [15, 30]\n",
		"missing from the new run (its spec has no such dataset, series or size): 4 trials\n- iris / LR (C=0.1) / size 45: trial 0, 1\n- iris / LR (C=10) / size 45: trial 0, 1\n",
		"only in the new run: 4 trials\n- iris / LR (C=0.1) / size 30: trial 0, 1\n",
		"| iris    | LR (C=10)  |   15 | accuracy                 |",
		"FAIL: the new run has no size 45 of LR (C=0.1) on iris, size 45 of LR (C=10) on iris: 4 trials of the old run, listed above (--allow-missing accepts it)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff against other sizes: no %q in\n%s", want, stdout)
		}
	}
	stdout, _ = mustCLI(t, exitOK, "diff", old, other, "--allow-missing")
	if !strings.Contains(stdout, "\naccepted (--allow-missing): the new run has no size 45") {
		t.Errorf("diff --allow-missing against other sizes:\n%s", stdout)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", old}, "usage: repro diff OLD_DIR NEW_DIR"},
		{[]string{"diff", "-h"}, "-allow-missing\n"},
		{[]string{"diff", old, new, "--tolerance", "-1"}, `--tolerance "-1": want a number ≥ 0`},
		{[]string{"diff", old, new, "--alpha", "0"}, "--alpha 0: want a level in (0, 1)"},
		{[]string{"diff", old, new, "--test", "z"}, `--test "z": want one of t, corrected-t, wilcoxon, design-t or reports`},
		{[]string{"diff", old, tmp}, "is not a repro output directory"},
	} {
		_, stderr := mustCLI(t, exitUsage, tt.args...)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("repro %s: no %q in\n%s", strings.Join(tt.args, " "), tt.want, stderr)
		}
	}
}

// quickstartSpec is the README's quickstart, on embedded data.
const quickstartSpec = "experiments/quickstart.yaml"

// TestDiffQuickstartRegression is issue 30's case: the quickstart with
// L2 LR's C grid replaced by C=0.0001 changes every L2 trial's key; the
// diff pairs them by series, size and trial all the same, names the
// change, and exits 1 with L2 LR WORSE where it is significantly worse.
func TestDiffQuickstartRegression(t *testing.T) {
	tmp := t.TempDir()
	old, new := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	args := []string{"run", quickstartSpec, "-q", "-j", "2"}
	compared := "24 compared"
	if testing.Short() {
		// Two of the six sizes: the same trials there (a trial's key and
		// seeds do not depend on the other sizes).
		args = append(args, "--set", "curve.sizes=[20, 200]", "--set", "expect=[]")
		compared = "8 compared"
	}
	mustCLI(t, exitOK, append(args, "-o", old)...)
	mustCLI(t, exitOK, append(args, "-o", new, "--set", "methods.0.params.C=[0.0001]")...)
	stdout, _ := mustCLI(t, exitFailed, "diff", old, new)
	if !strings.HasPrefix(stdout, "changed between the runs:\n- method L2 LR: params.C: [0.01, 0.1, 1.0, 10.0] → 0.0001\n\n") {
		t.Errorf("no L2 LR params.C change first in\n%s", stdout)
	}
	var worse []string
	for _, line := range strings.Split(stdout, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 11 || strings.TrimSpace(cells[2]) == "method" || strings.HasPrefix(cells[2], ":") {
			continue
		}
		series, verdict := strings.TrimSpace(cells[2]), strings.TrimSpace(cells[10])
		switch {
		case series == "L1 LR" && (verdict != "~" || strings.TrimSpace(cells[8]) != "1.000"):
			t.Errorf("L1 LR, unchanged, is not the same: %s", line)
		case verdict == "WORSE":
			worse = append(worse, series+" "+strings.TrimSpace(cells[4])+" "+strings.TrimSpace(cells[3]))
		}
	}
	if len(worse) == 0 || !strings.HasPrefix(worse[0], "L2 LR ") {
		t.Errorf("no L2 LR row WORSE: %q in\n%s", worse, stdout)
	}
	if !strings.Contains(stdout, "\n"+compared+", ") || !strings.Contains(stdout, "\nFAIL: L2 LR on splice is significantly worse beyond the tolerance: ") {
		t.Errorf("no 24 compared and L2 LR failure in\n%s", stdout)
	}
	t.Logf("WORSE rows: %q", worse)
	// The default test is the reports' (the quickstart sets no
	// report.test): design-t at every size.
	wantTest := "regressions (two-sided paired t-test (design-t), alpha 0.05"
	if !strings.Contains(stdout, wantTest) {
		t.Errorf("default test: no %q in\n%s", wantTest, stdout)
	}
	if reports, _ := cliOK(t, "diff", old, new, "--test", "reports"); reports != stdout {
		t.Errorf("--test reports differs from the default:\n%s", reports)
	}
	stdout, _ = cliOK(t, "diff", old, new, "--test", "corrected-t")
	if !strings.Contains(stdout, "regressions (two-sided corrected resampled t-test") {
		t.Errorf("--test corrected-t: corrected t-test not named in\n%s", stdout)
	}
}

// TestDiffGate makes each of the runs a diff must not pass silently —
// empty, damaged, another seed or experiment, unfinished, a series or
// metric gone, a trial that now fails — and checks that repro diff exits
// non-zero and says why, and that the flag for it (if any) accepts it.
func TestDiffGate(t *testing.T) {
	tmp := t.TempDir()
	old := filepath.Join(tmp, "old")
	mustCLI(t, exitOK, "run", irisSpec, "-o", old, "-q", "-j", "2")
	recs := filepath.Join(old, results.ResultsFile)
	lines, _ := os.ReadFile(recs)
	copyOf := func(name string, edit func(dir string)) string {
		dir := filepath.Join(tmp, name)
		copyDir(t, old, dir)
		edit(dir)
		return dir
	}
	run := func(name string, sets ...string) string {
		dir := filepath.Join(tmp, name)
		args := []string{"run", irisSpec, "-o", dir, "-q", "-j", "2"}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		mustCLI(t, exitOK, args...)
		return dir
	}
	setResults := func(text string) func(string) {
		return func(dir string) { writeFile(t, filepath.Join(dir, results.ResultsFile), text) }
	}
	firstLines := func(n int) string {
		ls := strings.SplitAfter(string(lines), "\n")
		return strings.Join(ls[:n], "")
	}
	tests := []struct {
		name     string
		old, new string
		code     int    // exit code without the flag
		out      string // in stdout, or with code 1 and no table in stderr
		flag     string // the flag that accepts it, if any
	}{
		{name: "empty new", old: old, new: copyOf("empty", setResults("")), code: exitFailed,
			out: "repro diff: new run: " + filepath.Join(tmp, "empty") + ": results.jsonl holds no results: nothing to compare"},
		{name: "empty old", old: filepath.Join(tmp, "empty"), new: old, code: exitFailed,
			out: "repro diff: old run: " + filepath.Join(tmp, "empty") + ": results.jsonl holds no results: nothing to compare"},
		{name: "garbage", old: old, new: copyOf("garbage", setResults("not json\n{\"key\": 3}\n\x00\x01")), code: exitFailed,
			out: "garbage: 2 unreadable result lines (--allow-corrupt skips them):\n\t" + filepath.Join(tmp, "garbage", "results.jsonl") + ":1: corrupt result line"},
		{name: "one corrupt line", old: old, new: copyOf("corrupt", setResults(firstLines(3)+"{oops\n"+string(lines)[len(firstLines(3)):])), code: exitFailed,
			out: "corrupt: 1 unreadable result lines (--allow-corrupt skips them)", flag: "--allow-corrupt"},
		{name: "no results file", old: old, new: copyOf("unstarted", func(dir string) { os.Remove(filepath.Join(dir, results.ResultsFile)) }), code: exitFailed,
			out: "unstarted: no results.jsonl: the run has not started"},
		{name: "other seed", old: old, new: run("seed", "seed=2"), code: exitFailed,
			out: "FAIL: the runs have different seeds, 1 and 2: trials of one index train on different samples (--allow-other-seed accepts it)\n", flag: "--allow-other-seed"},
		{name: "other name", old: old, new: copyOf("name", func(dir string) {
			sp := filepath.Join(dir, spec.SpecFile)
			b, _ := os.ReadFile(sp)
			writeFile(t, sp, strings.Replace(string(b), "\nname: iris-cli\n", "\nname: iris-other\n", 1))
		}), code: exitFailed,
			out: `FAIL: the runs are of two experiments, "iris-cli" and "iris-other" (--allow-other-name accepts it)` + "\n", flag: "--allow-other-name"},
		{name: "unfinished", old: old, new: copyOf("half", setResults(firstLines(5))), code: exitFailed,
			out: "FAIL: the new run did not finish 3 of the 8 trials the old run finished, listed above (--allow-fewer accepts it)\n", flag: "--allow-fewer"},
		{name: "fewer trials", old: run("three", "curve.trials=3"), new: old, code: exitFailed,
			out: "FAIL: the new run did not finish 4 of the 12 trials the old run finished, listed above (--allow-fewer accepts it)\n", flag: "--allow-fewer"},
		{name: "one trial", old: run("one", "curve.trials=1"), new: run("one-again", "curve.trials=1"), code: exitFailed,
			out: "FAIL: nothing tested: every row has a single pair of trials, too few for the paired test\n"},
		{name: "series gone", old: old, new: run("series", "methods.0.params.C=[1, 10]"), code: exitFailed,
			out: "FAIL: the new run has no series LR (C=0.1) on iris: 4 trials of the old run, listed above (--allow-missing accepts it)\n", flag: "--allow-missing"},
		{name: "metric gone", old: old, new: run("metric", "metrics=[accuracy]"), code: exitFailed,
			out: "FAIL: the new run does not score binary_errors of the old run (--allow-missing accepts it)\n", flag: "--allow-missing"},
		{name: "nothing compared", old: old, new: run("none", "methods.0.label=Other", "expect=[]"), code: exitFailed,
			out: "no trial finished in both runs\n"},
		{name: "newly failed", old: old, new: copyOf("failed", func(dir string) {
			editResults(t, dir, func(r *results.Result) {
				if r.Trial == 1 && r.Size == 15 {
					r.Metrics, r.Error = nil, "logreg-l2: diverged"
				}
			})
		}), code: exitFailed, out: "FAIL: 2 trials finished in the old run and failed in the new one\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr := mustCLI(t, tt.code, "diff", tt.old, tt.new)
			if !strings.Contains(stdout+stderr, tt.out) {
				t.Errorf("no %q in\n%s%s", tt.out, stdout, stderr)
			}
			if tt.flag == "" {
				// No flag accepts it: --allow-* all together still fail.
				mustCLI(t, tt.code, "diff", tt.old, tt.new, "--allow-missing", "--allow-fewer", "--allow-other-seed", "--allow-other-name", "--allow-corrupt")
				return
			}
			// The flag accepts exactly this: the diff exits 0 unless
			// the table itself shows a regression.
			stdout, stderr = cliOK(t, "diff", tt.old, tt.new, tt.flag)
			if strings.Contains(stdout+stderr, "FAIL: ") && !strings.Contains(stdout, "significantly worse beyond the tolerance") {
				t.Errorf("%s does not accept it:\n%s%s", tt.flag, stdout, stderr)
			}
		})
	}
}

// cliOK runs repro and returns its output; it fails the test on an exit
// code other than 0 and 1.
func cliOK(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := cli(t, args...)
	if code != exitOK && code != exitFailed {
		t.Fatalf("repro %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout, stderr
}

// TestDiffNonFinite is issue 43's case: a metric that becomes +Inf, or
// NaN in every new trial, is a regression (WORSE, exit 1) whatever the
// tolerance; a null metric reads as NaN as docs/spec.md says; a torn
// last line is dropped as run drops it (its trial is then one the new
// run did not finish), not an unreadable file.
func TestDiffNonFinite(t *testing.T) {
	tmp := t.TempDir()
	old := filepath.Join(tmp, "old")
	mustCLI(t, exitOK, "run", irisSpec, "-o", old, "-q", "-j", "2")
	edited := func(name string, v float64) string {
		dir := filepath.Join(tmp, name)
		copyDir(t, old, dir)
		editResults(t, dir, func(r *results.Result) {
			if spec.SeriesName(r.Method, r.Variant) == "LR (C=10)" && r.Size == 45 {
				r.Metrics["accuracy"] = v
			}
		})
		return dir
	}
	for _, tt := range []struct {
		name string
		dir  string
		want []string
	}{
		{"inf", edited("inf", math.Inf(1)), []string{"| 97.50 |  +Inf |   +Inf |   n/a |     0 | WORSE   |", "FAIL: LR (C=10) on iris: accuracy at size 45 is NaN or ±Inf in 2 trials of the new run where the old run's is finite\n"}},
		{"nan", edited("nan", math.NaN()), []string{"| 97.50 |     — |      — |   n/a |     0 | WORSE   |", "1 regressions", "FAIL: LR (C=10) on iris: accuracy at size 45 is NaN or ±Inf in 2 trials"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _ := mustCLI(t, exitFailed, "diff", old, tt.dir, "--tolerance", "1000")
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("no %q in\n%s", w, stdout)
				}
			}
			if strings.Contains(stdout, "++") {
				t.Errorf("a doubled sign:\n%s", stdout)
			}
			// check fails the expectation on the infinite or NaN values.
			out, _ := mustCLI(t, exitFailed, "check", tt.dir)
			if !strings.Contains(out, "FAIL") {
				t.Errorf("check passes:\n%s", out)
			}
		})
	}

	// null reads back as NaN: the same verdict as "NaN", no corrupt line.
	nullDir := filepath.Join(tmp, "null")
	copyDir(t, filepath.Join(tmp, "nan"), nullDir)
	path := filepath.Join(nullDir, results.ResultsFile)
	b, _ := os.ReadFile(path)
	writeFile(t, path, strings.ReplaceAll(string(b), `"accuracy":"NaN"`, `"accuracy":null`))
	stdout, stderr := mustCLI(t, exitFailed, "diff", old, nullDir)
	if !strings.Contains(stdout, "| WORSE") || strings.Contains(stderr, "unreadable") || strings.Contains(stderr, "corrupt") {
		t.Errorf("null metric:\n%s%s", stdout, stderr)
	}

	// A torn last line: dropped with a warning, the trial not finished.
	torn := filepath.Join(tmp, "torn")
	copyDir(t, old, torn)
	path = filepath.Join(torn, results.ResultsFile)
	b, _ = os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	last := lines[len(lines)-1]
	writeFile(t, path, strings.Join(lines[:len(lines)-1], "")+last[:len(last)/2])
	stdout, stderr = mustCLI(t, exitFailed, "diff", old, torn)
	if !strings.Contains(stderr, "torn last line") || !strings.Contains(stdout, "FAIL: the new run did not finish 1 of the 8 trials") || strings.Contains(stderr, "unreadable") {
		t.Errorf("torn line:\n%s%s", stdout, stderr)
	}
	mustCLI(t, exitOK, "diff", old, torn, "--allow-fewer")
}
