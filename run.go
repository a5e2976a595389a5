// Command repro reproduces machine-learning papers from declarative YAML
// experiments.
//
// Usage:
//
//	repro run FILE.yaml [-j N] [-o DIR] [--data DIR] [--set key.path=value ...] [--fresh] [-q] [--shard I/N]
//	repro report DIR
//	repro check FILE.yaml|DIR [-o DIR] [--set key.path=value ...]
//	repro diff OLD_DIR NEW_DIR [--tolerance T|P%] [--alpha A] [--test NAME] [--allow-missing|-fewer|-other-seed|-other-name|-corrupt]
//	repro slurm FILE.yaml --tasks N [--partition P] [--time T] [--cpus-per-task C] [--mem M] [-o DIR] [--submit]
//	repro validate FILE.yaml [--data DIR] [--set key.path=value ...]
//	repro list [methods|datasets|transforms|metrics]
//	repro data list|fetch|verify FILE.yaml [--data DIR]
//
// Exit codes: 0 success, 1 a failed check, failed trials or another
// failure (e.g. DIR in use by another run), 2 bad usage or an invalid spec,
// 130 interrupted (rerun to resume).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
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
	if os.Getenv("GOMEMLIMIT") == "" {
		// Near the machine's memory the collector works harder rather
		// than let garbage push the heap over it (the fits' live memory
		// is bounded by --mem-limit).
		debug.SetMemoryLimit(runner.ProcessMemory() / 10 * 9)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := repro(ctx, os.Stdout, os.Stderr, os.Args[1:])
	stop()
	os.Exit(code)
}

const usage = `repro reproduces machine-learning papers from YAML experiments.

Usage:
  repro run FILE.yaml [-j N] [-o DIR] [--data DIR] [--set key.path=value ...] [--mem-limit SIZE] [--fresh] [--cold] [--smoke] [--check] [--no-commands] [-q] [--shard I/N]
        run every trial not already finished in DIR (default out/<name>), then write the reports
        and print the expect: checks (with --check, a failed one makes the exit status 1);
        one run at a time per DIR (DIR/.lock); with --shard only shard I (from 0) of N, into
        DIR/results/shard-I-of-N.jsonl under its own lock, and no reports (repro report DIR merges);
        a fit estimated to need more memory than --mem-limit (default $REPRO_MEM_LIMIT, else half
        the smallest of the machine's memory, the cgroup's limit and RLIMIT_AS) fails its trial
        --cold: the transform and PCA caches are neither read nor kept (time a run from scratch)
  repro report DIR
        re-render the reports in DIR from its stored results (no training)
  repro check FILE.yaml|DIR [-o DIR] [--set key.path=value ...]
        evaluate the experiment's expect: block against stored results; exit 1 if any fails
  repro diff OLD_DIR NEW_DIR [--tolerance T|P%] [--alpha A] [--test NAME] [--allow-missing|-fewer|-other-seed|-other-name|-corrupt]
        compare two runs by dataset, series, size and trial (paired t-tests); exit 1 if a metric got
        significantly worse beyond T, or if the runs cannot be compared whole (see repro diff -h)
  repro slurm FILE.yaml --tasks N [--partition P] [--time T] [--cpus-per-task C] [--mem M] [-o DIR] [--submit]
        write DIR/slurm/*.sbatch: a job array of N shards and a report job after it; --submit submits them
  repro validate FILE.yaml [--data DIR] [--set key.path=value ...] [--no-commands]
        check the spec and print the plan (runs nothing); with --data or $REPRO_DATA, load the
        datasets (no fits) and check the spec against them: sizes, test sets, folds, columns;
        print every external program its command methods would run (--no-commands refuses them,
        as it does for run)
  repro list [methods|datasets|transforms|metrics]
        print the registered plugins and their parameters
  repro data list|fetch|verify FILE.yaml [--data DIR] [--mirror URL]
        list where the experiment's data files come from, download the missing ones
        (checked against their checksums), or verify those present (repro data help)
  repro version

Exit codes: 0 success, 1 failed trials (run), a failed expectation (check, run --check) or a
regression (diff), 2 bad usage or invalid spec, 130 interrupted.
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
		return cmdValidate(ctx, stdout, stderr, rest)
	case "diff":
		return cmdDiff(stdout, stderr, rest)
	case "slurm":
		return cmdSlurm(stdout, stderr, rest)
	case "list":
		return cmdList(stdout, stderr, rest)
	case "data":
		return cmdData(ctx, stdout, stderr, rest)
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

// parseOne parses args with fs and returns the single positional argument
// every command takes; on a flag error or another count it prints the usage
// (the flag package already has for a flag error) and reports false.
func parseOne(fs *flag.FlagSet, args []string) (string, bool) {
	pos, err := parse(fs, args)
	if err != nil {
		return "", false
	}
	if len(pos) != 1 {
		fs.Usage()
		return "", false
	}
	return pos[0], true
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
	fs := newFlags("run", stderr, "run FILE.yaml [-j N] [-o DIR] [--data DIR] [--set key.path=value ...] [--mem-limit SIZE] [--fresh] [--cold] [--smoke] [--check] [--no-commands] [-q] [--shard I/N]")
	workers := fs.Int("j", runtime.NumCPU(), "number of trials run at once")
	out := fs.String("o", "", "output directory (default out/<experiment name>)")
	data := fs.String("data", "", "data directory (default $"+datasets.DataDirEnv+", else the user cache directory)")
	fresh := fs.Bool("fresh", false, "discard stored results and run every trial again")
	cold := fs.Bool("cold", false, "start cold, as a first run would: the corpus-level transforms' and PCA's caches (DIR/../.cache, shared with other runs) are neither read nor written; the run caches in a directory of its own, removed when it ends. With --fresh, for timing a run from scratch")
	quiet := fs.Bool("q", false, "no progress output")
	memLimit := fs.String("mem-limit", os.Getenv(runner.MemLimitEnv), "memory the fits running at once may need by their estimates, e.g. 8GB, or off: a fit estimated to need more alone fails, and the run goes on; fits that need more together wait for each other (default $"+runner.MemLimitEnv+", else "+runner.FormatBytes(runner.DefaultMemLimit())+", half the memory the process may use: the smallest of the physical memory, the cgroup's limit and what RLIMIT_AS leaves)")
	noCommands := fs.Bool("no-commands", false, "refuse an experiment that runs external programs (command methods)")
	smoke := fs.Bool("smoke", false, "run only the first trial at the smallest size of every dataset and method (into DIR default out/<name>-smoke), to check an experiment end to end; no expectations are checked")
	check := fs.Bool("check", false, "exit 1 when an expectation fails, after writing the reports (as repro check would); without it the check table is printed and only failed trials make the exit status 1")
	var sets multiFlag
	fs.Var(&sets, "set", "override a spec field, e.g. --set curve.trials=1 (repeatable)")
	var shard runner.Shard
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to `FILE` (read it with go tool pprof)")
	fs.Func("shard", "run only shard I (from 0) of N of the trials, e.g. --shard 2/4 (in a job array: --shard $SLURM_ARRAY_TASK_ID/4)", func(v string) (err error) {
		shard, err = runner.ParseShard(v)
		return err
	})
	arg, ok := parseOne(fs, args)
	if !ok {
		return exitUsage
	}
	var limit int64
	if *memLimit != "" {
		var err error
		if limit, err = runner.ParseMemLimit(*memLimit); err != nil {
			fmt.Fprintf(stderr, "repro run: --mem-limit (default $%s): %v\n", runner.MemLimitEnv, err)
			return exitUsage
		}
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "repro run: -j %d: want at least 1 trial at a time\n", *workers)
		return exitUsage
	}
	if *check && (*smoke || shard.N > 0) {
		fmt.Fprintf(stderr, "repro run: --check with --smoke or --shard: those runs check no expectations; want --check on a whole run (or repro check DIR once the shards are merged)\n")
		return exitUsage
	}
	if *data != "" {
		if fi, err := os.Stat(*data); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "repro run: --data %s: not a directory\n", *data)
			return exitUsage
		}
	}
	spec, err := loadSpec(arg, sets, stderr)
	if err != nil {
		return exitUsage
	}
	if !checkPrograms(arg, programs(spec), *noCommands, "run", stderr) {
		return exitUsage
	}
	if *smoke && len(spec.Smoke) > 0 {
		// The experiment's own smoke reductions, then the command line's.
		if spec, err = runner.LoadSmoke(arg, spec.Smoke, sets); err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
	}
	dir := outDir(*out, spec)
	if *smoke && *out == "" {
		dir += "-smoke"
	}
	// The lock is held through the reports, so that a report run
	// concurrently never overwrites this run's with an older one.
	unlock, err := lockRun(dir, shard)
	if err != nil {
		fmt.Fprintf(stderr, "repro: %s: %v\n", arg, err)
		return exitFailed
	}
	defer unlock()
	opts := runner.Options{Dir: dir, DataDir: datasets.DataDir(*data), Workers: *workers, Fresh: *fresh, Locked: true, Shard: shard, MemLimit: limit,
		// Warnings print before the trials run, not hours later.
		Warn: func(err error) { fmt.Fprintf(stderr, "warning: %v\n", err) }}
	if !*quiet {
		pr := newProgress(stderr)
		pr.workers = min(*workers, runner.MaxWorkers()) // as the runner caps it
		opts.Progress = pr
	}
	if *smoke {
		opts.Only = smokeTrial(spec)
	}
	if *cold {
		tmp, err := os.MkdirTemp("", "repro-cold-")
		if err != nil {
			fmt.Fprintf(stderr, "repro run: --cold: %v\n", err)
			return exitFailed
		}
		defer os.RemoveAll(tmp)
		opts.CacheDir = tmp
	}
	if *cpuprofile != "" {
		stop, err := startCPUProfile(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "repro run: --cpuprofile: %v\n", err)
			return exitUsage
		}
		defer stop()
	}
	sum, err := runner.Run(ctx, spec, opts)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "repro: %s: %v\n", arg, err)
			return exitInterrupted
		}
		// The spec asks what the data cannot give (checked before any
		// trial ran): an invalid spec, as validate reports it.
		var se *runner.SpecError
		if errors.As(err, &se) {
			fmt.Fprintln(stderr, se)
			return exitUsage
		}
		fmt.Fprintf(stderr, "repro: %s: %v\n", arg, err)
		dataHint(stderr, err, arg, *data)
		return exitFailed
	}
	if shard.N > 0 {
		return shardDone(stdout, stderr, dir, sum, shard)
	}
	// Render from the resolved spec stored in dir, as repro report does,
	// so that both write the same files.
	if stored, err := loadDir(dir, nil); err != nil {
		fmt.Fprintf(stderr, "warning: reading back %s: %v\n", filepath.Join(dir, runner.SpecFile), err)
	} else {
		spec = stored
	}
	if err := reports.Write(dir, spec, sum.Results); err != nil {
		fmt.Fprintf(stderr, "repro: writing the reports in %s: %v\n", dir, err)
		return exitFailed
	}
	if *smoke {
		fmt.Fprintf(stdout, "%s (smoke run of %d of its %d trials): %d ran now, %d already done, %d failed\n",
			spec.Name, sum.Ran+sum.Skipped, len(sum.Plan.Trials), sum.Ran, sum.Skipped, sum.Failed)
	} else {
		fmt.Fprintf(stdout, "%s: %d trials: %d ran now, %d already done, %d failed\n",
			spec.Name, len(sum.Plan.Trials), sum.Ran, sum.Skipped, sum.Failed)
	}
	fmt.Fprintf(stdout, "report: %s\n", filepath.Join(dir, "report.md"))
	// What the report flags for action (a grid to widen, fits at their
	// iteration cap) is repeated where it will be seen.
	for _, w := range reports.Warnings(spec, sum.Results) {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if sum.Interrupted {
		fmt.Fprintf(stderr, "interrupted: %d of %d trials finished; run the same command again to resume\n",
			len(sum.Results), len(sum.Plan.Trials))
		return exitInterrupted
	}
	failedChecks := 0
	if len(spec.Expect) > 0 && !*smoke {
		fmt.Fprintln(stdout)
		failedChecks = reports.WriteCheck(stdout, reports.CheckDir(dir, spec, sum.Results))
	}
	if sum.Failed > 0 {
		printFailures(stderr, sum.Plan, sum.Results)
		return exitFailed
	}
	if *check && failedChecks > 0 {
		fmt.Fprintf(stderr, "repro run --check: %d of the expectations failed\n", failedChecks)
		return exitFailed
	}
	return exitOK
}

// smokeTrial accepts the first trial at the smallest size: one trial per
// dataset and method variant, enough to show an experiment runs end to end.
func smokeTrial(spec *runner.Spec) func(*runner.Trial) bool {
	smallest := 0.0
	for i, s := range spec.Curve.Sizes {
		// A fraction and a count are not comparable without the data: the
		// smallest count, else the smallest fraction.
		if i == 0 || (s > 1) == (smallest > 1) && s < smallest || s > 1 && smallest <= 1 {
			smallest = s
		}
	}
	return func(t *runner.Trial) bool {
		return t.Index == 0 && (t.Size == 0 || t.Size == smallest)
	}
}

// printFailures lists the first failed trials. A trial that failed before
// its training set was drawn has no size; the plan gives the size the spec
// asked for.
func printFailures(w io.Writer, plan *runner.Plan, results []runner.Result) {
	specSize := map[string]float64{}
	for _, t := range plan.Trials {
		specSize[t.Key] = t.Size
	}
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
		size := strconv.Itoa(r.Size)
		if r.Size == 0 {
			size = param.Format(specSize[r.Key])
		}
		fmt.Fprintf(w, "failed: %s / %s / size %s / trial %d: %s\n", r.Dataset, runner.SeriesName(r.Method, r.Variant), size, r.Trial, msg)
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

// loadSpec loads the experiment file path with the --set overrides, and
// prints why it cannot on stderr.
func loadSpec(path string, sets []string, stderr io.Writer) (*runner.Spec, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		err := fmt.Errorf("%s is a directory; want an experiment FILE.yaml", path)
		fmt.Fprintf(stderr, "repro: %v\n", err)
		return nil, err
	}
	spec, err := runner.Load(path, sets)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, err
	}
	return spec, nil
}

// errNotOutput reports a directory that holds no run of an experiment.
func errNotOutput(dir string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: no such directory", dir)
	}
	return fmt.Errorf("%s is not a repro output directory (it has no %s)", dir, runner.SpecFile)
}

// loadDir reads the spec stored in an output directory. Without --set
// overrides it does not consult the plugin registries (runner.ReadSpec),
// so a directory stays reportable after its plugins are gone; overrides
// are validated against the plugins as for a spec file.
func loadDir(dir string, sets []string) (*runner.Spec, error) {
	specPath := filepath.Join(dir, runner.SpecFile)
	if fi, err := os.Stat(specPath); err != nil || fi.IsDir() {
		return nil, errNotOutput(dir)
	}
	if len(sets) == 0 {
		return runner.ReadSpec(dir)
	}
	return runner.Load(specPath, sets)
}

// loadResults reads the results of spec's plan stored in dir — in
// results.jsonl and every shard's file (runner.ReadAllResults) — reporting
// torn and corrupt lines on stderr and, for a sharded run, the trials each
// shard still misses.
func loadResults(dir string, spec *runner.Spec, stderr io.Writer) ([]runner.Result, error) {
	results, warns, found, err := runner.ReadAllResults(dir)
	if err != nil {
		return nil, err
	}
	if !found {
		if _, err := os.Stat(filepath.Join(dir, runner.SpecFile)); err != nil {
			return nil, errNotOutput(dir)
		}
		return nil, fmt.Errorf("%s: no results yet", dir)
	}
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	plan, err := runner.NewPlan(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	printShards(stderr, dir, plan, results)
	return runner.ForPlan(plan, runner.Latest(results)), nil
}

func cmdReport(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("report", stderr, "report DIR")
	arg, ok := parseOne(fs, args)
	if !ok {
		return exitUsage
	}
	spec, err := loadDir(arg, nil)
	if err != nil {
		fmt.Fprintf(stderr, "repro report: %v\n", err)
		return exitUsage
	}
	unlock, err := runner.LockDir(arg)
	if err != nil {
		fmt.Fprintf(stderr, "repro report: %v\n", err)
		return exitFailed
	}
	defer unlock()
	results, err := loadResults(arg, spec, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "repro report: %v\n", err)
		return exitUsage
	}
	if err := reports.Write(arg, spec, results); err != nil {
		fmt.Fprintf(stderr, "repro report: writing the reports in %s: %v\n", arg, err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "report: %s (%d results)\n", filepath.Join(arg, "report.md"), len(results))
	return exitOK
}

func cmdCheck(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("check", stderr, "check FILE.yaml|DIR [-o DIR] [--set key.path=value ...]")
	out := fs.String("o", "", "output directory of FILE.yaml's run (default out/<experiment name>)")
	var sets multiFlag
	fs.Var(&sets, "set", "override a spec field (as given to run)")
	arg, ok := parseOne(fs, args)
	if !ok {
		return exitUsage
	}
	// A FILE.yaml is checked with its own expect: block (edited after the
	// run or not) against the results in its output directory; a DIR with
	// the spec stored there.
	var spec *runner.Spec
	dir := arg
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		if *out != "" {
			fmt.Fprintf(stderr, "repro check: -o is for FILE.yaml; %s is a directory\n", dir)
			return exitUsage
		}
		if spec, err = loadDir(dir, sets); err != nil {
			fmt.Fprintf(stderr, "repro check: %v\n", err)
			return exitUsage
		}
	} else {
		if spec, err = loadSpec(arg, sets, stderr); err != nil {
			return exitUsage
		}
		dir = outDir(*out, spec)
	}
	results, err := loadResults(dir, spec, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "repro check: %v (run the experiment first)\n", err)
		return exitUsage
	}
	if len(spec.Expect) == 0 {
		fmt.Fprintf(stdout, "%s has no expect: entries\n", spec.Name)
		return exitOK
	}
	if reports.WriteCheck(stdout, reports.CheckDir(dir, spec, results)) > 0 {
		return exitFailed
	}
	return exitOK
}

func cmdValidate(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	fs := newFlags("validate", stderr, "validate FILE.yaml [--data DIR] [--set key.path=value ...] [--no-commands]")
	data := fs.String("data", "", "data directory: check the spec against its datasets too (default $"+datasets.DataDirEnv+"; unset: the spec alone)")
	noCommands := fs.Bool("no-commands", false, "refuse an experiment that runs external programs (command methods)")
	var sets multiFlag
	fs.Var(&sets, "set", "override a spec field")
	arg, ok := parseOne(fs, args)
	if !ok {
		return exitUsage
	}
	if *data != "" {
		if fi, err := os.Stat(*data); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "repro validate: --data %s: not a directory\n", *data)
			return exitUsage
		}
	}
	spec, err := loadSpec(arg, sets, stderr)
	if err != nil {
		return exitUsage
	}
	if len(spec.Smoke) > 0 {
		// The smoke reductions must apply too: CI runs them.
		if _, err := runner.LoadSmoke(arg, spec.Smoke, sets); err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
	}
	plan, err := runner.NewPlan(spec)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", arg, err)
		return exitUsage
	}
	progs := programs(spec)
	if !checkPrograms(arg, progs, *noCommands, "validate", stderr) {
		return exitUsage
	}
	// With the data (--data or $REPRO_DATA), the datasets load as a run
	// loads them — their shapes, no fit — and what the spec asks of them
	// is checked: sizes against the pool, test sets, folds, columns.
	checked := ""
	if dir := *data; dir != "" || os.Getenv(datasets.DataDirEnv) != "" {
		dir = datasets.DataDir(dir)
		env := datasets.Env{DataDir: dir, CacheDir: filepath.Join(filepath.Dir(outDir("", spec)), ".cache")}
		infos, missing, err := runner.CheckData(ctx, spec, env)
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(stderr, "repro validate: %v\n", err)
				return exitInterrupted
			}
			fmt.Fprintln(stderr, err)
			if len(missing) > 0 {
				dataHint(stderr, missing[0], arg, *data)
			}
			return exitUsage
		}
		var shapes []string
		for _, ds := range spec.Datasets {
			if in, ok := infos[ds.ID]; ok {
				shapes = append(shapes, fmt.Sprintf("%s %d × %d", ds.ID, in.Rows, in.Cols))
			}
		}
		if len(shapes) > 0 {
			checked = fmt.Sprintf(" (checked against the data in %s: %s)", dir, strings.Join(shapes, ", "))
		}
	}
	fmt.Fprintf(stdout, "%s: valid%s\n", arg, checked)
	plan.Describe(stdout)
	printPrograms(stdout, progs)
	return exitOK
}

// startCPUProfile starts writing a CPU profile to path; the returned
// function stops it and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
