package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/repro-ml/repro/results"
)

// hostileDir holds the hostile spec corpus (issue 10): one spec per case
// in NAME.yaml, its expected errors in NAME.err, and in data/ the tables
// its data cases read.
const hostileDir = "testdata/hostile"

// positioned matches an error line that locates its problem: the file,
// then a line and column, or the --set argument.
var positioned = regexp.MustCompile(`^testdata/hostile/[^:]+\.yaml:(\d+:\d+|\s--set [^:]+): `)

// TestHostileSpecs runs repro validate --data on every spec of the
// corpus: each is refused with exit 2, every error line has a line and
// column (or names its --set; a last line may count the rest or give
// the command that fetches missing data), no line is longer than a reader can take,
// and the errors are those of NAME.err (go test -run TestHostileSpecs
// -update rewrites them).
func TestHostileSpecs(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join(hostileDir, "*.yaml"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no hostile specs: %v", err)
	}
	for _, spec := range specs {
		name := strings.TrimSuffix(filepath.Base(spec), ".yaml")
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "validate", "--data", filepath.Join(hostileDir, "data"), spec)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			for i, l := range lines {
				if i == len(lines)-1 && (strings.HasPrefix(l, "… and ") || strings.HasPrefix(l, "hint: ")) {
					continue // a count of the rest, or how to fetch missing data
				}
				if !positioned.MatchString(l) {
					t.Errorf("error without a line and column: %s", l)
				}
				if n := len([]rune(l)); n > 600 {
					t.Errorf("an error line of %d characters: %.200s…", n, l)
				}
			}
			if len(lines) > 51 {
				t.Errorf("%d error lines; want at most 50 and a count of the rest", len(lines))
			}
			golden(t, filepath.Join("hostile", name+".err"), stderr)
		})
	}
}

// TestHostileDataField: a CSV field of a megabyte (the was 20 MB)
// is not echoed whole by validate or run: the error is cut to a readable
// length and keeps its start and end.
func TestHostileDataField(t *testing.T) {
	data := t.TempDir()
	csv := "a,b,label\n1,2,x\n3," + strings.Repeat("9", 1<<20) + "x,y\n4,5,x\n"
	if err := os.WriteFile(filepath.Join(data, "big.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(spec, []byte(`name: big-field
datasets:
  - name: csv
    params: {file: big.csv, label: label}
    split: {kind: holdout, test: 1}
methods:
  - name: logreg-l2
curve: {sizes: [1], trials: 1}
metrics: [accuracy]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr := mustCLI(t, exitUsage, "validate", "--data", data, spec)
	if len(stderr) > 1000 || !strings.Contains(stderr, spec+":3:5: datasets[0]: ") || !strings.Contains(stderr, "characters cut") {
		t.Errorf("validate: %d bytes of errors: %.600s", len(stderr), stderr)
	}
	_, stderr = mustCLI(t, exitUsage, "run", "--data", data, "-o", filepath.Join(t.TempDir(), "out"), "-q", spec)
	if len(stderr) > 1000 || !strings.Contains(stderr, "characters cut") {
		t.Errorf("run: %d bytes of errors: %.600s", len(stderr), stderr)
	}
}

// TestValidateDataFromEnv: --data turns the data checks on; $REPRO_DATA
// alone does not (a static validate reads the spec only, and says so),
// and without either the spec alone is checked.
func TestValidateDataFromEnv(t *testing.T) {
	spec := filepath.Join(hostileDir, "11-kfold-folds.yaml") // a csv of 30 rows, 40 folds
	data := filepath.Join(hostileDir, "data")
	t.Setenv("REPRO_DATA", "")
	stdout, _ := mustCLI(t, exitOK, "validate", spec)
	if first, _, _ := strings.Cut(stdout, "\n"); first != spec+": valid" {
		t.Errorf("without a data directory: first line %q, want %q", first, spec+": valid")
	}
	t.Setenv("REPRO_DATA", data)
	stdout, _ = mustCLI(t, exitOK, "validate", spec)
	if want := spec + `: valid (the spec alone: add --data "$REPRO_DATA" to check it against the data)`; !strings.HasPrefix(stdout, want+"\n") {
		t.Errorf("with $REPRO_DATA alone: stdout\n%s\nwant it to start with %s", stdout, want)
	}
	_, stderr := mustCLI(t, exitUsage, "validate", "--data", data, spec)
	if !strings.Contains(stderr, spec+":6:33: datasets[0].split.folds: 40 folds") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestHostileLongNames: a 300-character dataset id and a 5,000-character
// method label (issue 34: "file name too long" after every trial ran)
// run to their report. The plots' file names are shortened (fileName in
// reports), the report keeps the full names, and the data-only case of
// the corpus passes without the data.
func TestHostileLongNames(t *testing.T) {
	id, label := strings.Repeat("i", 300), strings.Repeat("L", 5000)
	spec := filepath.Join(t.TempDir(), "long.yaml")
	if err := os.WriteFile(spec, []byte(`name: long-names
datasets:
  - {name: iris, id: `+id+`, split: {kind: holdout, test: 50}}
methods:
  - name: pca-pair
    label: `+label+`
curve: {sizes: [40], trials: 1}
metrics: [accuracy]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	mustCLI(t, exitOK, "run", "-q", "-o", dir, spec)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	plots := 0
	for _, e := range entries {
		if n := len(e.Name()); n > 200 {
			t.Errorf("a file name of %d bytes: %.80s…", n, e.Name())
		}
		if strings.HasSuffix(e.Name(), ".png") {
			plots++
		}
	}
	if plots != 2 { // the accuracy curve and pca-pair's scatter plot
		t.Errorf("%d plots in %s, want 2", plots, dir)
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), id) || !strings.Contains(string(report), label) {
		t.Error("report.md does not hold the full dataset id and method label")
	}
	t.Setenv("REPRO_DATA", "")
	mustCLI(t, exitOK, "validate", filepath.Join(hostileDir, "34-expect-size-data.yaml"))
}

// TestHostileActiveBudget is issue 43's case: budget: 100000 on a pool
// of 100 rows was capped in silence, although initial over the pool is
// an error. validate --data refuses it at the field; a run fails the
// trial with the same numbers.
func TestHostileActiveBudget(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "budget.yaml"), `name: budget
datasets:
  - {name: iris, split: {kind: holdout, test: 50}}
methods:
  - name: logreg-l2
protocol: {name: active, initial: 4, batch: 4, budget: 100000, strategy: random}
curve: {trials: 1}
metrics: [accuracy]
`)
	_, stderr := mustCLI(t, exitUsage, "validate", "--data", t.TempDir(), spec)
	if !strings.Contains(stderr, spec+":6:") || !strings.Contains(stderr, "protocol.budget: a budget of 100000 labels, but ") || !strings.Contains(stderr, "want at most 100") {
		t.Errorf("validate --data:\n%s", stderr)
	}
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr = mustCLI(t, exitUsage, "run", "-q", "-o", dir, spec)
	if !strings.Contains(stderr, spec+":6:56: protocol.budget: a budget of 100000 labels, but the pool of 100 rows") {
		t.Errorf("run:\n%s", stderr)
	}
}

// TestExitCodesAgree is issue 43's case: a data error was exit 2 at
// validate --data and exit 1 at run, and the usage said $REPRO_DATA alone
// turned the data checks on. One code per kind of failure: a malformed
// or missing data file is refused input (2) at both; the machine's
// failures are 3; the table in repro -h says so and $REPRO_DATA alone
// does not load data.
func TestExitCodesAgree(t *testing.T) {
	data := t.TempDir()
	writeFile(t, filepath.Join(data, "bad.csv"), "a,b,label\n1,2,x\n3,oops,y\n")
	for _, file := range []string{"bad.csv", "absent.csv"} {
		spec := writeFile(t, filepath.Join(t.TempDir(), "s.yaml"), `name: codes
datasets:
  - name: csv
    params: {file: `+file+`, label: label}
    split: {kind: holdout, test: 1}
methods:
  - name: logreg-l2
curve: {sizes: [1], trials: 1}
metrics: [accuracy]
`)
		_, verr := mustCLI(t, exitUsage, "validate", "--data", data, spec)
		_, rerr := mustCLI(t, exitUsage, "run", "--data", data, "-q", "-o", filepath.Join(t.TempDir(), "out"), spec)
		if !strings.Contains(verr, file) || !strings.Contains(rerr, file) {
			t.Errorf("%s: validate said\n%s\nrun said\n%s", file, verr, rerr)
		}
	}
	help, _ := mustCLI(t, exitOK, "-h")
	for _, want := range []string{"\n  0    success\n", "\n  1    a verdict failed", "\n  2    refused before anything ran", "\n  3    the machine stood in the way", "\n  130  interrupted", "with --data DIR (not $REPRO_DATA alone)"} {
		if !strings.Contains(help, want) {
			t.Errorf("repro -h: no %q", want)
		}
	}
	if strings.Contains(help, "with --data or $REPRO_DATA") {
		t.Error("repro -h says $REPRO_DATA alone turns on the data checks")
	}
}

// bigCSV writes a numeric table of about size bytes to dir/name.
func bigCSV(t *testing.T, dir, name string, size int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,c,d,label\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d\n", i%97, i%89, i%83, i%79, i%2)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

const bigSpec = `name: big-load
datasets:
  - {name: csv, id: big, params: {file: big.csv, label: label, task: classification}, split: {kind: holdout, test: 100}}
  - {name: iris, split: {kind: holdout, test: 50}}
methods:
  - name: logreg-l2
curve: {sizes: [40], trials: 1}
metrics: [accuracy]
`

// failedLoad checks that the run in dir recorded big's trial as failed
// for its load's memory, and iris's as finished.
func failedLoad(t *testing.T, dir, stderr string) {
	t.Helper()
	recs, _, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs {
		got[r.Dataset] = r.Error
	}
	if e := got["big"]; !strings.Contains(e, `loading dataset "big" (csv): needs about `) || !strings.Contains(e, "over the limit of") {
		t.Errorf("big's trial: %q; want a memory error of its load\nstderr:\n%s", e, stderr)
	}
	if e, ok := got["iris"]; !ok || e != "" {
		t.Errorf("iris's trial: %q (stored %v); want it finished", e, ok)
	}
	if strings.Contains(stderr, "fatal error") {
		t.Errorf("the process died:\n%s", stderr)
	}
}

// TestHostileLoadOverLimit is issue 43's case: under --mem-limit 50MB a
// 54 MB CSV loaded anyway (peak 287 MB). A load is inside the limit as a
// fit is: the csv loader's estimate over it fails the dataset's trials
// before a byte is read, and the other dataset runs.
func TestHostileLoadOverLimit(t *testing.T) {
	data := t.TempDir()
	bigCSV(t, data, "big.csv", 2<<20)
	spec := writeFile(t, filepath.Join(t.TempDir(), "big.yaml"), bigSpec)
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr := mustCLI(t, exitFailed, "run", "-q", "--mem-limit", "5MB", "--data", data, "-o", dir, spec)
	failedLoad(t, dir, stderr)
}

// vmSizeChild makes the test binary print its VmSize (kB) and exit, for
// TestHostileAddressSpace to know what a fresh process maps at start.
const vmSizeChild = "REPRO_TEST_VMSIZE"

func init() {
	if os.Getenv(vmSizeChild) != "1" {
		return
	}
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmSize:"); ok {
			fmt.Println(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
		}
	}
	os.Exit(0)
}

// TestHostileAddressSpace is issue 43's case: under prlimit --as the
// process's own mapped space (1.8 GB of reservations at start) left 116
// MB, and a 54 MB CSV crashed the run in csv.read ("fatal error: out of
// memory", no trial recorded). The default limit is half of what the
// process can still map, and the load's estimate is held to it: the
// dataset's trial fails, recorded, and the process lives.
func TestHostileAddressSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB table")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil || runtime.GOOS != "linux" {
		t.Skip("needs prlimit on linux")
	}
	// What a fresh child maps at start (this process has grown since).
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), vmSizeChild+"=1")
	out, err := cmd.Output()
	var vm int64
	if _, serr := fmt.Sscanf(string(out), "%d", &vm); err != nil || serr != nil || vm <= 0 {
		t.Skipf("the mapped size of a child: %q, %v", out, err)
	}
	data := t.TempDir()
	bigCSV(t, data, "big.csv", 40<<20)
	spec := writeFile(t, filepath.Join(t.TempDir(), "big.yaml"), bigSpec)
	dir := filepath.Join(t.TempDir(), "out")
	// 400 MB beyond what the child maps at start leaves it a default
	// limit near 200 MB.
	as := vm<<10 + 400<<20
	cmd = exec.Command(prlimit, fmt.Sprintf("--as=%d", as), os.Args[0], "run", "-q", "--data", data, "-o", dir, spec)
	cmd.Env = append(os.Environ(), crashChild+"=1", "REPRO_MEM_LIMIT=", "GOMEMLIMIT=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailed {
		t.Fatalf("run under --as=%d: %v; want exit %d\n%s", as, err, exitFailed, stderr.String())
	}
	failedLoad(t, dir, stderr.String())
}

// TestHostileInfPredictions is issue 43's case: a learner whose
// predictions are +Inf gave an mse of +Inf in a trial that passed (run
// exit 0, 0 failed). Its trial fails with a clear error; the other
// method's trials finish.
func TestHostileInfPredictions(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "inf.yaml"), `name: inf
datasets:
  - {name: mcycle, split: {kind: holdout, test: 33}}
methods:
  - name: cli-inf
  - name: ridge
curve: {sizes: [50], trials: 1}
metrics: [mse]
`)
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr := mustCLI(t, exitFailed, "run", "-q", "-o", dir, spec)
	recs, _, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d results, want 2", len(recs))
	}
	for _, r := range recs {
		switch r.Method {
		case "cli-inf":
			if !strings.Contains(r.Error, "predicted value of row 0 is +Inf (want a finite number") {
				t.Errorf("cli-inf's trial: %q, metrics %v\n%s", r.Error, r.Metrics, stderr)
			}
		default:
			if r.Failed() {
				t.Errorf("%s failed: %s", r.Method, r.Error)
			}
		}
	}
}
