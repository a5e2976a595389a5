package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// irisSpec is a tiny experiment on embedded data: 1 dataset × 1 method
// with 2 grid points × 2 sizes × 2 trials = 8 trials.
const (
	irisSpec   = "testdata/iris.yaml"
	irisTrials = 8
)

// syncBuffer is a bytes.Buffer safe for the progress writer's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// onLine, if set, is called with each complete line written.
	onLine func(string)
	part   string
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	if s.onLine != nil {
		s.part += string(p)
		for {
			i := strings.IndexByte(s.part, '\n')
			if i < 0 {
				break
			}
			s.onLine(s.part[:i])
			s.part = s.part[i+1:]
		}
	}
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cli runs repro in-process.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb syncBuffer
	code = repro(context.Background(), &out, &errb, args)
	return code, out.String(), errb.String()
}

// mustCLI runs repro and fails the test unless it exits with want.
func mustCLI(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := cli(t, args...)
	if code != want {
		t.Fatalf("repro %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout, stderr
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// resultLines returns the lines of dir/results.jsonl and their keys.
func resultLines(t *testing.T, dir string) (lines int, keys map[string]int) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys = map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r results.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("results line %d: %v", lines+1, err)
		}
		lines++
		keys[r.Key]++
	}
	return lines, keys
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExitCodes(t *testing.T) {
	tmp := t.TempDir()
	bad := writeFile(t, filepath.Join(tmp, "bad.yaml"), `name: bad
seed: 1
datasets:
  - name: iris
methods:
  - name: logreg-l2
    params: {C: -1}
curve: {sizes: [10], trials: 1}
metrics: [accuracy]
`)
	notYAML := writeFile(t, filepath.Join(tmp, "tab.yaml"), "name: x\n\tseed: [\n")
	tests := []struct {
		name string
		args []string
		code int
		// stderr (or stdout for exit 0) must match this pattern.
		want string
	}{
		{"no args", nil, exitUsage, `(?s)Usage:.*repro run`},
		{"help", []string{"help"}, exitOK, `(?s)Usage:.*Exit codes`},
		{"version", []string{"version"}, exitOK, `^repro \S+ \(go`},
		{"unknown command", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"run unknown flag", []string{"run", irisSpec, "--nope"}, exitUsage, `flag provided but not defined: -nope`},
		{"run no file", []string{"run"}, exitUsage, `usage: repro run FILE.yaml`},
		{"run two files", []string{"run", irisSpec, irisSpec}, exitUsage, `usage: repro run`},
		{"run missing file", []string{"run", filepath.Join(tmp, "missing.yaml")}, exitUsage, `missing\.yaml: .*no such file`},
		{"run a directory", []string{"run", tmp}, exitUsage, regexp.QuoteMeta(tmp) + ` is a directory; want an experiment FILE\.yaml`},
		{"run -j 0", []string{"run", irisSpec, "-j", "0"}, exitUsage, `-j 0: want at least 1`},
		{"run -j -1", []string{"run", irisSpec, "-j", "-1"}, exitUsage, `-j -1: want at least 1`},
		{"run -j x", []string{"run", irisSpec, "-j", "x"}, exitUsage, `invalid value "x" for flag -j`},
		{"run --data missing", []string{"run", irisSpec, "--data", filepath.Join(tmp, "nodata")}, exitUsage, `--data .*nodata: not a directory`},
		{"run invalid spec", []string{"run", bad, "-o", filepath.Join(tmp, "o")}, exitUsage, regexp.QuoteMeta(bad) + `:7:17: methods\[0\]\.params\.C: .*out of range`},
		{"validate invalid spec", []string{"validate", bad}, exitUsage, regexp.QuoteMeta(bad) + `:7:17: `},
		{"validate not YAML", []string{"validate", notYAML}, exitUsage, regexp.QuoteMeta(notYAML) + `:\d+`},
		{"validate bad --set", []string{"validate", irisSpec, "--set", "curve.trials=0"}, exitUsage, `--set curve\.trials=0`},
		{"validate unknown --set field", []string{"validate", irisSpec, "--set", "curve.nope=1"}, exitUsage, `--set curve\.nope=1`},
		{"report no dir", []string{"report"}, exitUsage, `usage: repro report DIR`},
		{"report missing dir", []string{"report", filepath.Join(tmp, "none")}, exitUsage, `none: no such directory`},
		{"report not an output dir", []string{"report", tmp}, exitUsage, regexp.QuoteMeta(tmp) + ` is not a repro output directory`},
		{"check not an output dir", []string{"check", tmp}, exitUsage, `is not a repro output directory`},
		{"check file never run", []string{"check", irisSpec, "-o", filepath.Join(tmp, "never")}, exitUsage, `never: no such directory \(run the experiment first\)`},
		{"list unknown kind", []string{"list", "widgets"}, exitUsage, `unknown kind "widgets"`},
		{"list two kinds", []string{"list", "methods", "metrics"}, exitUsage, `usage: repro list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			text := stderr
			if code == exitOK {
				text = stdout
			}
			if !regexp.MustCompile(tt.want).MatchString(text) {
				t.Errorf("output does not match %q:\n%s", tt.want, text)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "o")); err == nil {
		t.Errorf("an invalid spec created its output directory")
	}
}

func TestValidate(t *testing.T) {
	// The plan alone: without a data directory validate checks no data
	// (CI sets $REPRO_DATA).
	t.Setenv(datasets.DataDirEnv, "")
	stdout, _ := mustCLI(t, exitOK, "validate", irisSpec)
	golden(t, "validate.golden", stdout)
	stdout, _ = mustCLI(t, exitOK, "validate", irisSpec, "--set", "curve.trials=3", "--set", "methods.LR.params.C=[0.1,1,10]")
	if !strings.Contains(stdout, "× 2 sizes × 3 trials = 18 trials, 18 fits") {
		t.Errorf("--set not applied to the plan:\n%s", stdout)
	}
}

// TestValidateGridPoints: repro validate rejects a bad value at any grid
// point — a declared bound per side (rho in (0, 1]) or a plugin's Validate
// hook (med's kernel specs) — each at its own line and column.
func TestValidateGridPoints(t *testing.T) {
	_, stderr := mustCLI(t, exitUsage, "validate", "testdata/med-grid.yaml")
	golden(t, "med-grid.golden", stderr)
}

// TestReportWithoutPlugins: repro report and repro check read a results
// directory from its stored spec and results alone, so they work after the
// method and dataset plugins that made it are no longer compiled in.
func TestReportWithoutPlugins(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sp := `name: gone
seed: 1
metrics: [accuracy]
datasets:
  - {name: retired-loader, id: old, params: {path: old.csv, scale: 2.0}, split: {kind: kfold, folds: 2, repeats: 1}}
methods:
  - {name: retired-method, label: Old, params: {C: [0.5, 2.0]}, select: {rule: fixed}}
protocol: {name: active, initial: 4, batch: 4, budget: 8, strategy: random}
curve: {trials: 2, sampling: random}
expect:
  - {dataset: old, method: Old (C=2), metric: accuracy, sizes: [8], min: 60}
`
	if err := os.WriteFile(filepath.Join(dir, spec.SpecFile), []byte(sp), 0o644); err != nil {
		t.Fatal(err)
	}
	stored, err := spec.ReadSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.NewPlan(stored)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, tr := range plan.Trials {
		acc := 50 + 10*tr.Method.Grid[tr.Point].Float("C")
		r := results.Result{Key: tr.Key, Dataset: "old", Method: "Old", Plugin: "retired-method", Trial: tr.Index,
			Variant: map[string]any{"C": tr.Method.Grid[tr.Point].Float("C")}, Size: 8, Metrics: results.Metrics{"accuracy": acc},
			Observations: []results.Observation{
				{X: 4, Metrics: results.Metrics{"accuracy": acc - 5}},
				{X: 8, Metrics: results.Metrics{"accuracy": acc}},
			}}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(filepath.Join(dir, results.ResultsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _ := mustCLI(t, exitOK, "report", dir)
	if !strings.Contains(stdout, "(4 results)") {
		t.Errorf("report: %s; want 4 results (2 grid points × 2 folds)", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"Old (C=2)", "Old (C=0.5)", "70.00"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	stdout, _ = mustCLI(t, exitOK, "check", dir)
	if !strings.Contains(stdout, "1 passed, 0 failed") {
		t.Errorf("check:\n%s", stdout)
	}
}

// TestSmoke: --smoke runs the first trial at the smallest size of each
// method variant, into its own directory, without checking expectations.
func TestSmoke(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "smoke")
	stdout, _ := mustCLI(t, exitOK, "run", irisSpec, "--smoke", "-o", dir, "-q")
	if !strings.Contains(stdout, "smoke run of 2 of its 8 trials") || strings.Contains(stdout, "PASS") {
		t.Errorf("smoke run:\n%s", stdout)
	}
	recs, _, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d results, %v; want 2", len(recs), err)
	}
	for _, r := range recs {
		if r.Trial != 0 || r.Size != 15 {
			t.Errorf("smoke ran trial %d at size %d; want trial 0 at 15", r.Trial, r.Size)
		}
	}
}

// An experiment's smoke: assignments apply to --smoke runs only, before
// the command line's, and validate checks that they apply.
func TestSmokeAssignments(t *testing.T) {
	tmp := t.TempDir()
	b, err := os.ReadFile(irisSpec)
	if err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(tmp, "iris.yaml")
	write := func(smoke string) {
		if err := os.WriteFile(sp, append(b, []byte(smoke)...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("smoke: [\"curve.sizes=[12, 30]\", \"curve.trials=1\"]\n")
	mustCLI(t, exitOK, "validate", sp)
	dir := filepath.Join(tmp, "smoke")
	stdout, _ := mustCLI(t, exitOK, "run", sp, "--smoke", "-o", dir, "-q")
	if !strings.Contains(stdout, "smoke run of 2 of its 4 trials") {
		t.Errorf("smoke run with smoke: assignments:\n%s", stdout)
	}
	recs, _, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
	if err != nil || len(recs) != 2 || recs[0].Size != 12 || recs[1].Size != 12 {
		t.Fatalf("results %+v, %v; want two trials at size 12", recs, err)
	}
	// The command line comes after them.
	dir2 := filepath.Join(tmp, "smoke2")
	mustCLI(t, exitOK, "run", sp, "--smoke", "-o", dir2, "-q", "--set", "curve.sizes=[20]")
	if recs, _, err = results.ReadResults(filepath.Join(dir2, results.ResultsFile)); err != nil || len(recs) != 2 || recs[0].Size != 20 {
		t.Errorf("results %+v, %v; want two trials at size 20", recs, err)
	}
	// A normal run ignores them.
	stdout, _ = mustCLI(t, exitOK, "validate", sp)
	if !strings.Contains(stdout, "8 trials") {
		t.Errorf("validate without --smoke:\n%s", stdout)
	}
	write("smoke: [\"curve.sizes=[-3]\"]\n")
	// A smoke: assignment that does not apply is reported at its line.
	want := sp + ":16:9: smoke[0]: curve.sizes[0]: -3 is out of range"
	_, stderr := mustCLI(t, exitUsage, "validate", sp)
	if !strings.Contains(stderr, want) {
		t.Errorf("validate with a bad smoke: assignment: no %q in\n%s", want, stderr)
	}
	_, stderr = mustCLI(t, exitUsage, "run", sp, "--smoke", "-o", filepath.Join(tmp, "smoke3"), "-q")
	if !strings.Contains(stderr, want) {
		t.Errorf("run --smoke with a bad smoke: assignment: no %q in\n%s", want, stderr)
	}
}

// TestRunReportCheck runs the tiny spec, re-renders its report and checks
// its expectations by directory and by file.
func TestRunReportCheck(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	stdout, stderr := mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-j", "2")
	if !strings.Contains(stdout, "iris-cli: 8 trials: 8 ran now, 0 already done, 0 failed") {
		t.Errorf("run summary:\n%s", stdout)
	}
	if !strings.Contains(stdout, "1 passed, 0 failed") {
		t.Errorf("run did not print the check:\n%s", stdout)
	}
	// Not a terminal: plain progress lines, ending at 8/8.
	if !strings.Contains(stderr, "8 trials to run") || !strings.Contains(stderr, "8/8 trials (100%)") || strings.Contains(stderr, "\r") {
		t.Errorf("progress on a non-terminal:\n%q", stderr)
	}
	if n, keys := resultLines(t, dir); n != irisTrials || len(keys) != irisTrials {
		t.Fatalf("results.jsonl: %d lines, %d keys; want %d", n, len(keys), irisTrials)
	}
	for _, f := range []string{"report.md", "summary.csv", "iris-accuracy.png", spec.SpecFile, "env.json", "datasets.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run wrote no %s: %v", f, err)
		}
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}

	// report re-renders the same files from the stored results.
	if err := os.Remove(filepath.Join(dir, "report.md")); err != nil {
		t.Fatal(err)
	}
	stdout, _ = mustCLI(t, exitOK, "report", dir)
	if !strings.Contains(stdout, "(8 results)") {
		t.Errorf("report: %s", stdout)
	}
	again, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(report, again) {
		t.Errorf("repro report wrote a different report.md than repro run")
	}

	// check DIR and check FILE.yaml -o DIR print the same table.
	byDir, _ := mustCLI(t, exitOK, "check", dir)
	golden(t, "check.golden", byDir)
	byFile, _ := mustCLI(t, exitOK, "check", irisSpec, "-o", dir)
	if byFile != byDir {
		t.Errorf("check FILE differs from check DIR:\n%s\nvs\n%s", byFile, byDir)
	}
	// The file's expect: block is used (edited after the run): a failing
	// expectation exits 1.
	stdout, _ = mustCLI(t, exitFailed, "check", irisSpec, "-o", dir, "--set", "expect.0.min=99.9")
	if !strings.Contains(stdout, "FAIL") || !strings.Contains(stdout, "0 passed, 1 failed") {
		t.Errorf("failing check:\n%s", stdout)
	}
	mustCLI(t, exitFailed, "check", dir, "--set", "expect.0.min=99.9")
	if _, err := os.Stat(filepath.Join(dir, "results.jsonl")); err != nil {
		t.Fatal(err)
	}

	// A rerun skips every finished trial.
	stdout, _ = mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q")
	if !strings.Contains(stdout, "0 ran now, 8 already done") {
		t.Errorf("rerun:\n%s", stdout)
	}
	// A changed spec reruns only what it changes: a third size adds 4.
	stdout, _ = mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q", "--set", "curve.sizes=[15,30,45]")
	if !strings.Contains(stdout, "12 trials: 4 ran now, 8 already done") {
		t.Errorf("changed spec:\n%s", stdout)
	}
	// --fresh discards the results and runs everything again.
	stdout, _ = mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q", "--fresh")
	if !strings.Contains(stdout, "8 ran now, 0 already done") {
		t.Errorf("--fresh:\n%s", stdout)
	}
	if n, _ := resultLines(t, dir); n != irisTrials {
		t.Errorf("after --fresh results.jsonl has %d lines, want %d", n, irisTrials)
	}
}

func TestRunFailedTrials(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	// The fixture method fails at 45 training rows: 4 of the 8 trials.
	fail := "--set=methods.LR.name=cli-fail"
	_, stderr := mustCLI(t, exitFailed, "run", irisSpec, "-o", dir, "-q", fail)
	if !strings.Contains(stderr, "failed: iris / LR (C=0.1) / size 45 / trial 0: cli-fail: failing at training size 45 as asked") {
		t.Errorf("failures not listed:\n%s", stderr)
	}
	// The failed trials record the size asked for (issue 10, item 19).
	b, err := os.ReadFile(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r results.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Failed() {
			failed++
			if r.Size != 45 {
				t.Errorf("failed trial %s records size %d, want the 45 asked for", r.Key, r.Size)
			}
		}
	}
	if failed != 4 {
		t.Errorf("%d failed trials in results.jsonl, want 4", failed)
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "## Failed trials") {
		t.Errorf("report.md has no failed trials section")
	}
	// The failed trials are retried (and fail again): 4 more lines.
	stdout, _ := mustCLI(t, exitFailed, "run", irisSpec, "-o", dir, "-q", fail)
	if !strings.Contains(stdout, "8 trials: 4 ran now, 4 already done, 4 failed") {
		t.Errorf("retry:\n%s", stdout)
	}
	if n, keys := resultLines(t, dir); n != 12 || len(keys) != 8 {
		t.Errorf("results.jsonl: %d lines, %d keys; want 12 lines (4 retried), 8 keys", n, len(keys))
	}
}

// TestRunChecksData: a training size larger than the pool is refused
// before any trial runs, at the size's position, with exit 2.
func TestRunChecksData(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	// 200 rows exceed iris's training pool of 90 (150 − 60 test rows).
	_, stderr := mustCLI(t, exitUsage, "run", irisSpec, "-o", dir, "-q", "--set", "curve.sizes=[15,200]")
	want := `testdata/iris.yaml: --set curve.sizes=[15,200]: curve.sizes[1]: training size 200 exceeds the pool of 90 rows of dataset "iris" (150 rows; split holdout test 60); want at most 90`
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant %s", stderr, want)
	}
	if n, _ := resultLines(t, dir); n != 0 {
		t.Errorf("%d results stored; want none (no trial runs)", n)
	}
}

// TestInterruptAndResume cancels a run after three trials, as Ctrl-C does,
// then reruns it: every trial ends up stored exactly once.
func TestInterruptAndResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	errb := syncBuffer{onLine: func(line string) {
		if strings.HasPrefix(line, "3/8 trials") {
			cancel()
		}
	}}
	code := repro(ctx, &out, &errb, []string{"run", irisSpec, "-o", dir, "-j", "1"})
	if code != exitInterrupted {
		t.Fatalf("interrupted run: exit %d, want %d\n%s\n%s", code, exitInterrupted, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "run the same command again to resume") {
		t.Errorf("no resume hint:\n%s", errb.String())
	}
	n, _ := resultLines(t, dir)
	if n < 3 || n >= irisTrials {
		t.Fatalf("after the interrupt results.jsonl has %d lines, want 3..%d", n, irisTrials-1)
	}
	stdout, _ := mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q")
	if want := "8 trials: " + itoa(irisTrials-n) + " ran now, " + itoa(n) + " already done, 0 failed"; !strings.Contains(stdout, want) {
		t.Errorf("resume: want %q in\n%s", want, stdout)
	}
	lines, keys := resultLines(t, dir)
	if lines != irisTrials || len(keys) != irisTrials {
		t.Errorf("after resuming: %d lines, %d keys; want %d of each (no duplicates)", lines, len(keys), irisTrials)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestTornAndCorruptLines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q")
	path := filepath.Join(dir, results.ResultsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	// Line 2 corrupt, the last line torn by a crash mid-write.
	lines[1] = "{not json\n"
	last := lines[len(lines)-1]
	lines[len(lines)-1] = last[:len(last)/2]
	writeFile(t, path, strings.Join(lines, ""))

	_, stderr := mustCLI(t, exitOK, "report", dir)
	for _, want := range []string{path + ":2: corrupt result line", path + ":8: torn last line"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("report: no %q in\n%s", want, stderr)
		}
	}
	stdout, stderr := mustCLI(t, exitOK, "run", irisSpec, "-o", dir)
	if !strings.Contains(stdout, "2 ran now, 6 already done") {
		t.Errorf("rerun after damage:\n%s", stdout)
	}
	if !strings.Contains(stderr, "torn last line") || !strings.Contains(stderr, "corrupt result line") {
		t.Errorf("run did not report the damage:\n%s", stderr)
	}
	// The warnings come before the trials run (a long run's user sees
	// them at once), and once.
	if w, p := strings.Index(stderr, "warning:"), strings.Index(stderr, "to run"); w < 0 || p < 0 || w > p {
		t.Errorf("warnings not printed before the progress:\n%s", stderr)
	}
	if n := strings.Count(stderr, "corrupt result line"); n != 1 {
		t.Errorf("corrupt line reported %d times:\n%s", n, stderr)
	}
	// The torn tail is gone; the corrupt line stays (and is reported again).
	n, keys := resultLines2(t, path)
	if n != 9 || keys != irisTrials {
		t.Errorf("after rerun: %d parsable lines over %d keys; want 9 (8 keys + the corrupt line kept)", n, keys)
	}
}

// resultLines2 counts the lines of path and the distinct keys of its
// well-formed lines.
func resultLines2(t *testing.T, path string) (lines, keys int) {
	t.Helper()
	recs, _, err := results.ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Key] = true
	}
	return strings.Count(string(data), "\n"), len(seen)
}

func TestRunLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	unlock, err := results.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		t.Skip("no flock on " + runtime.GOOS + ": results.LockDir takes no lock")
	}
	_, stderr := mustCLI(t, exitError, "run", irisSpec, "-o", dir, "-q")
	if !strings.Contains(stderr, "output directory "+dir+" is in use by another repro run") {
		t.Errorf("locked run:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, results.ResultsFile)); err == nil {
		t.Errorf("a locked run wrote results")
	}
}

// A damaged datasets.json neither blocks a report (which says how to
// rebuild it) nor a run (which rebuilds it from the data).
func TestDamagedDatasetsJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q")
	path := filepath.Join(dir, results.DatasetsFile)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, exitOK, "report", dir)
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), "is damaged") || !strings.Contains(string(md), "rebuilds it from the data") {
		t.Errorf("report.md does not say datasets.json is damaged and how to rebuild it")
	}
	_, stderr := mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q")
	if !strings.Contains(stderr, "rebuilding it from the data") {
		t.Errorf("run on a damaged datasets.json:\n%s", stderr)
	}
	if again, _ := os.ReadFile(path); string(again) != string(good) {
		t.Errorf("datasets.json rebuilt as %q; want %q", again, good)
	}
}

// repro report takes the output directory's lock too: while a run holds
// it, a report is refused rather than overwriting the run's report with a
// stale one.
func TestReportLocked(t *testing.T) {
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		t.Skip("no flock on " + runtime.GOOS + ": results.LockDir takes no lock")
	}
	dir := filepath.Join(t.TempDir(), "out")
	mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q")
	before, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := results.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr := mustCLI(t, exitError, "report", dir)
	unlock()
	if !strings.Contains(stderr, "is in use by another repro run") {
		t.Errorf("report on a locked directory:\n%s", stderr)
	}
	mustCLI(t, exitOK, "report", dir)
	after, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if string(before) != string(after) {
		t.Error("report.md changed between a run and a report of its results")
	}
}

// TestList checks that every registered plugin is listed with each of its
// parameters: name, type, default and doc on one line.
func TestList(t *testing.T) {
	stdout, _ := mustCLI(t, exitOK, "list")
	for _, h := range []string{"METHODS", "DATASETS", "TRANSFORMS", "METRICS"} {
		if !regexp.MustCompile(`(?m)^` + h + `$`).MatchString(stdout) {
			t.Errorf("list: no %s section", h)
		}
	}
	methodsOut, _ := mustCLI(t, exitOK, "list", "methods")
	for _, name := range methods.Names() {
		p, _ := methods.Lookup(name)
		checkPlugin(t, methodsOut, name, p.Doc, p.Params)
		if h := p.Handles(); !strings.Contains(methodsOut, "["+h+"]") {
			t.Errorf("list methods: %s does not say what it handles, [%s]", name, h)
		}
	}
	for _, want := range []string{
		"[classification (binary, multi-class)]",                      // svm, med, …
		`[classification (binary, multi-class); needs graph feature]`, // laplacian, fnr, lle-lr
		"[regression; 1 input column]",                                // kernel-hp
	} {
		if !strings.Contains(methodsOut, want) {
			t.Errorf("list methods: no method says %s", want)
		}
	}
	dsOut, _ := mustCLI(t, exitOK, "list", "datasets")
	for _, name := range datasets.Names() {
		l, _ := datasets.Lookup(name)
		checkPlugin(t, dsOut, name, l.Doc, l.Params)
	}
	trOut, _ := mustCLI(t, exitOK, "list", "transforms")
	for _, name := range datasets.TransformNames() {
		tr, _ := datasets.LookupTransform(name)
		checkPlugin(t, trOut, name, tr.Doc, tr.Params)
	}
	metOut, _ := mustCLI(t, exitOK, "list", "metrics")
	for _, name := range metric.Names() {
		m, _ := metric.Lookup(name)
		re := `(?m)^  ` + regexp.QuoteMeta(name) + ` +\S.*` + regexp.QuoteMeta(firstLine(m.Doc)) + `.*; (higher|lower) is better$`
		if !regexp.MustCompile(re).MatchString(metOut) {
			t.Errorf("list metrics: no line for %s matching %s:\n%s", name, re, metOut)
		}
	}
	if !strings.Contains(metOut, "  accuracy ") {
		t.Errorf("list metrics lacks accuracy:\n%s", metOut)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// checkPlugin asserts out has the plugin's header line and one aligned
// line per parameter: name, range, default, doc.
func checkPlugin(t *testing.T, out, name, doc string, params []param.Decl) {
	t.Helper()
	lines := strings.Split(out, "\n")
	head := "  " + name + " — " + oneLine(doc)
	at := -1
	for i, l := range lines {
		if l == head || strings.HasPrefix(l, head+" [") {
			at = i
		}
	}
	if at < 0 {
		t.Errorf("no line %q", head)
		return
	}
	if len(params) == 0 {
		if lines[at+1] != "      (no parameters)" {
			t.Errorf("%s: want (no parameters), got %q", name, lines[at+1])
		}
		return
	}
	docCol := -1
	for i, d := range params {
		l := lines[at+1+i]
		def := "required"
		if !d.Required() {
			def = "default " + d.DefaultString()
		}
		re := regexp.MustCompile(`^      ` + regexp.QuoteMeta(d.Name) + ` +` + regexp.QuoteMeta(oneLine(d.Range())) +
			` +` + regexp.QuoteMeta(def) + `  +(` + regexp.QuoteMeta(oneLine(d.Doc)) + `)$`)
		m := re.FindStringSubmatchIndex(l)
		if m == nil {
			t.Errorf("%s: param line %q does not match %s", name, l, re)
			continue
		}
		col := len([]rune(l[:m[2]]))
		if docCol >= 0 && col != docCol {
			t.Errorf("%s: doc of %s starts at column %d, want %d (aligned)", name, d.Name, col, docCol)
		}
		docCol = col
		if d.Doc == "" {
			t.Errorf("%s: parameter %s has no doc", name, d.Name)
		}
	}
}

// TestOneVsRestReport runs iris as one-vs-rest tasks: report.md gains the
// per-task binary errors table.
func TestOneVsRestReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q", "--set", "datasets.iris.tasks=one-vs-rest", "--set", "curve.trials=1")
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(report)
	if !strings.Contains(md, "### binary_errors per task") {
		t.Fatalf("no per-task table in report.md:\n%s", md)
	}
	for _, task := range []string{"setosa", "versicolor", "virginica"} {
		if !regexp.MustCompile(`(?m)^\| LR \(C=10\) +\| ` + task + ` +\| +\d+\.\d \| +\d+\.\d \|$`).MatchString(md) {
			t.Errorf("no row for LR (C=10) on task %s", task)
		}
	}
}

// TestCPUProfile checks that run --cpuprofile writes a profile pprof
// reads (gzip-compressed protocol buffers), and that an unwritable path
// is a usage error before anything runs.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	mustCLI(t, exitOK, "run", irisSpec, "--smoke", "-o", filepath.Join(dir, "out"), "-q", "--cpuprofile", prof)
	b, err := os.ReadFile(prof)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile %q: %d bytes, %v; want a gzip-compressed pprof profile", prof, len(b), err)
	}
	_, stderr := mustCLI(t, exitUsage, "run", irisSpec, "--smoke", "-o", filepath.Join(dir, "out2"), "-q", "--cpuprofile", filepath.Join(dir, "no", "such", "dir", "p"))
	if !strings.Contains(stderr, "--cpuprofile") {
		t.Errorf("stderr %q, want it to name --cpuprofile", stderr)
	}
}
