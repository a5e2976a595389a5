// Command repro reproduces machine-learning papers from declarative YAML
// experiments.
//
// Usage:
//
//	repro run FILE.yaml [-j N] [-o DIR] [--data DIR] [--set key.path=value ...] [--fresh]
//	repro report DIR
//	repro check FILE.yaml|DIR [-o DIR] [--set key.path=value ...]
//	repro validate FILE.yaml [--set key.path=value ...]
//	repro list [methods|datasets|transforms|metrics]
//
// Exit codes: 0 success, 1 a failed check or failed trials, 2 bad usage or
// an invalid spec, 130 interrupted (rerun to resume).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/runner"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := repro(ctx, os.Stdout, os.Stderr, os.Args[1:])
	stop()
	os.Exit(code)
}

const usage = `repro reproduces machine-learning papers from YAML experiments.

Usage:
  repro run FILE.yaml [-j N] [-o DIR] [--data DIR] [--set key.path=value ...] [--fresh]
        run every trial not already finished in DIR (default out/<name>), then write the reports
  repro report DIR
        re-render the reports in DIR from its stored results (no training)
  repro check FILE.yaml|DIR [-o DIR] [--set key.path=value ...]
        evaluate the experiment's expect: block against stored results; exit 1 if any fails
  repro validate FILE.yaml [--set key.path=value ...]
        check the spec and print the plan (runs nothing)
  repro list [methods|datasets|transforms|metrics]
        print the registered plugins and their parameters
  repro version

Exit codes: 0 success, 1 failed check or failed trials, 2 bad usage or invalid spec, 130 interrupted.
The data directory is --data, else $REPRO_DATA, else the user cache directory.
`

// repro runs the command line args and returns the exit code.
func repro(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return cmdRun(ctx, stdout, stderr, rest)
	case "report":
		return cmdReport(stdout, stderr, rest)
	case "check":
		return cmdCheck(stdout, stderr, rest)
	case "validate":
		return cmdValidate(stdout, stderr, rest)
	case "list":
		return cmdList(stdout, stderr, rest)
	case "version":
		fmt.Fprintf(stdout, "repro %s (%s)\n", runner.Version, runtime.Version())
		return exitOK
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "repro: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

// multiFlag collects a repeated string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// parse parses args with fs, allowing flags after positional arguments
// (repro run FILE -j 4), and returns the positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlags(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: repro %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

func cmdRun(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	fs := newFlags("run", stderr, "run FILE.yaml [-j N] [-o DIR] [--data DIR] [--set key.path=value ...] [--fresh]")
	workers := fs.Int("j", runtime.NumCPU(), "number of trials run at once")
	out := fs.String("o", "", "output directory (default out/<experiment name>)")
	data := fs.String("data", "", "data directory (default $"+datasets.DataDirEnv+", else the user cache directory)")
	fresh := fs.Bool("fresh", false, "discard stored results and run every trial again")
	quiet := fs.Bool("q", false, "no progress output")
	var sets multiFlag
	fs.Var(&sets, "set", "override a spec field, e.g. --set curve.trials=1 (repeatable)")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	spec, err := runner.Load(pos[0], sets)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	dir := outDir(*out, spec)
	opts := runner.Options{Dir: dir, DataDir: datasets.DataDir(*data), Workers: *workers, Fresh: *fresh}
	if !*quiet {
		opts.Progress = newProgress(stderr)
	}
	sum, err := runner.Run(ctx, spec, opts)
	if err != nil {
		fmt.Fprintf(stderr, "repro: %v\n", err)
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return exitFailed
	}
	for _, w := range sum.Warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if err := reports.Write(dir, spec, sum.Results); err != nil {
		fmt.Fprintf(stderr, "repro: writing reports: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "%s: %d trials: %d ran now, %d already done, %d failed\n",
		spec.Name, len(sum.Plan.Trials), sum.Ran, sum.Skipped, sum.Failed)
	fmt.Fprintf(stdout, "report: %s\n", filepath.Join(dir, "report.md"))
	if sum.Interrupted {
		fmt.Fprintf(stderr, "interrupted: %d of %d trials finished; run the same command again to resume\n",
			len(sum.Results), len(sum.Plan.Trials))
		return exitInterrupted
	}
	if len(spec.Expect) > 0 {
		fmt.Fprintln(stdout)
		reports.WriteCheck(stdout, reports.Check(spec, sum.Results))
	}
	if sum.Failed > 0 {
		printFailures(stderr, sum.Results)
		return exitFailed
	}
	return exitOK
}

func printFailures(w io.Writer, results []runner.Result) {
	n := 0
	for _, r := range results {
		if !r.Failed() {
			continue
		}
		if n++; n > 5 {
			continue
		}
		msg := r.Error
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i] + " …"
		}
		fmt.Fprintf(w, "failed: %s / %s / size %d / trial %d: %s\n", r.Dataset, runner.SeriesName(r.Method, r.Variant), r.Size, r.Trial, msg)
	}
	if n > 5 {
		fmt.Fprintf(w, "… and %d more failed trials (see results.jsonl)\n", n-5)
	}
}

func outDir(flagDir string, spec *runner.Spec) string {
	if flagDir != "" {
		return flagDir
	}
	return filepath.Join("out", spec.Name)
}

// loadDir reads the spec and the results stored in an output directory.
func loadDir(dir string, stderr io.Writer) (*runner.Spec, []runner.Result, error) {
	specPath := filepath.Join(dir, runner.SpecFile)
	if _, err := os.Stat(specPath); err != nil {
		return nil, nil, fmt.Errorf("%s is not a repro output directory: %w", dir, err)
	}
	spec, err := runner.Load(specPath, nil)
	if err != nil {
		return nil, nil, err
	}
	results, warns, err := runner.ReadResults(filepath.Join(dir, runner.ResultsFile))
	if err != nil {
		return nil, nil, err
	}
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	plan, err := runner.NewPlan(spec)
	if err != nil {
		return nil, nil, err
	}
	return spec, runner.ForPlan(plan, runner.Latest(results)), nil
}

func cmdReport(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("report", stderr, "report DIR")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	spec, results, err := loadDir(pos[0], stderr)
	if err != nil {
		fmt.Fprintf(stderr, "repro: %v\n", err)
		return exitUsage
	}
	if err := reports.Write(pos[0], spec, results); err != nil {
		fmt.Fprintf(stderr, "repro: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "report: %s (%d results)\n", filepath.Join(pos[0], "report.md"), len(results))
	return exitOK
}

func cmdCheck(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("check", stderr, "check FILE.yaml|DIR [-o DIR] [--set key.path=value ...]")
	out := fs.String("o", "", "output directory of FILE.yaml's run (default out/<experiment name>)")
	var sets multiFlag
	fs.Var(&sets, "set", "override a spec field (as given to run)")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	dir := pos[0]
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		spec, err := runner.Load(pos[0], sets)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
		dir = outDir(*out, spec)
	}
	spec, results, err := loadDir(dir, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "repro: %v (run the experiment first)\n", err)
		return exitUsage
	}
	if len(spec.Expect) == 0 {
		fmt.Fprintf(stdout, "%s has no expect: entries\n", spec.Name)
		return exitOK
	}
	if reports.WriteCheck(stdout, reports.Check(spec, results)) > 0 {
		return exitFailed
	}
	return exitOK
}

func cmdValidate(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("validate", stderr, "validate FILE.yaml [--set key.path=value ...]")
	var sets multiFlag
	fs.Var(&sets, "set", "override a spec field")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	spec, err := runner.Load(pos[0], sets)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	plan, err := runner.NewPlan(spec)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", pos[0], err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s: valid\n", pos[0])
	plan.Describe(stdout)
	return exitOK
}
