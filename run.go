package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

func cmdRun(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	fs := newFlags("run", stderr, "run FILE.yaml [-j N] [-o DIR] [--data DIR] [--set key.path=value ...] [--mem-limit SIZE] [--fresh] [--cold] [--smoke] [--check] [--no-commands] [-q] [--shard I/N]")
	workers := fs.Int("j", runtime.NumCPU(), "number of trials run at once")
	out := fs.String("o", "", "output directory (default out/<experiment name>)")
	data := fs.String("data", "", "data directory (default $"+datasets.DataDirEnv+", else the user cache directory)")
	fresh := fs.Bool("fresh", false, "discard stored results and run every trial again")
	cold := fs.Bool("cold", false, "start cold, as a first run would: the corpus-level transforms' and PCA's caches (DIR/../.cache, shared with other runs) are neither read nor written; the run caches in a directory of its own, removed when it ends. With --fresh, for timing a run from scratch")
	quiet := fs.Bool("q", false, "no progress output")
	memLimit := fs.String("mem-limit", os.Getenv(runner.MemLimitEnv), "memory the fits running at once may need by their estimates, beside the datasets loaded, e.g. 8GB, or off: a fit estimated to need more alone fails, and the run goes on; fits that need more together wait for each other, and a dataset that does not fit beside those loaded waits for their trials (default $"+runner.MemLimitEnv+", else "+runner.FormatBytes(runner.DefaultMemLimit())+", half the memory the process may use: the smallest of the physical memory, the cgroup's limit and what RLIMIT_AS leaves)")
	noCommands := fs.Bool("no-commands", false, "refuse an experiment that runs external programs (command methods)")
	smoke := fs.Bool("smoke", false, "run only the first trial at the smallest size of every dataset and method (into DIR default out/<name>-smoke), to check an experiment end to end; no expectations are checked")
	check := fs.Bool("check", false, "exit 1 when an expectation fails, after writing the reports (as repro check would); without it the check table is printed and only failed trials make the exit status 1")
	var sets multiFlag
	fs.Var(&sets, "set", "override a spec field, e.g. --set curve.trials=1 (repeatable)")
	var shard results.Shard
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to `FILE` (read it with go tool pprof)")
	fs.Func("shard", "run only shard I (from 0) of N of the trials, e.g. --shard 2/4 (in a job array: --shard $SLURM_ARRAY_TASK_ID/4)", func(v string) (err error) {
		shard, err = results.ParseShard(v)
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
	if os.Getenv("GOMEMLIMIT") == "" {
		// The collector keeps the heap, garbage included, near the
		// limit the fits and datasets are held to by their estimates,
		// not near the machine's memory (main).
		heap := limit
		if heap == 0 {
			heap = runner.DefaultMemLimit()
		}
		if was := debug.SetMemoryLimit(-1); heap > 0 && heap < was {
			debug.SetMemoryLimit(heap)
			defer debug.SetMemoryLimit(was)
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
	sp, err := loadSpec(arg, sets, stderr)
	if err != nil {
		return exitUsage
	}
	if !checkPrograms(arg, programs(sp), *noCommands, "run", stderr) {
		return exitUsage
	}
	if *smoke && len(sp.Smoke) > 0 {
		// The experiment's own smoke reductions, then the command line's.
		if sp, err = spec.LoadSmoke(arg, sp.Smoke, sets); err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
	}
	dir := outDir(*out, sp)
	if *smoke && *out == "" {
		dir += "-smoke"
	}
	// The lock is held through the reports, so that a report run
	// concurrently never overwrites this run's with an older one.
	unlock, err := lockRun(dir, shard)
	if err != nil {
		fmt.Fprintf(stderr, "repro: %s: %v\n", arg, err)
		return exitError
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
		opts.Only = smokeTrial(sp)
	}
	if *cold {
		tmp, err := os.MkdirTemp("", "repro-cold-")
		if err != nil {
			fmt.Fprintf(stderr, "repro run: --cold: %v\n", err)
			return exitError
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
	sum, err := runner.Run(ctx, sp, opts)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "repro: %s: %v\n", arg, err)
			return exitInterrupted
		}
		// The spec asks what the data cannot give (checked before any
		// trial ran): an invalid spec, as validate reports it.
		var se *spec.SpecError
		if errors.As(err, &se) {
			fmt.Fprintln(stderr, se)
			return exitUsage
		}
		fmt.Fprintf(stderr, "repro: %s: %v\n", arg, err)
		dataHint(stderr, err, arg, *data)
		// A dataset that does not load is refused input, as validate
		// --data refuses it; anything else is the machine's (a results
		// file that cannot be written).
		var de *runner.DataError
		if errors.As(err, &de) {
			return exitUsage
		}
		return exitError
	}
	if shard.N > 0 {
		return shardDone(stdout, stderr, dir, sum, shard)
	}
	// Render from the resolved spec stored in dir, as repro report does,
	// so that both write the same files.
	if stored, err := loadDir(dir, nil); err != nil {
		fmt.Fprintf(stderr, "warning: reading back %s: %v\n", filepath.Join(dir, spec.SpecFile), err)
	} else {
		sp = stored
	}
	if err := reports.Write(dir, sp, sum.Results); err != nil {
		fmt.Fprintf(stderr, "repro: writing the reports in %s: %v\n", dir, err)
		return exitError
	}
	if *smoke {
		fmt.Fprintf(stdout, "%s (smoke run of %d of its %d trials): %d ran now, %d already done, %d failed\n",
			sp.Name, sum.Ran+sum.Skipped, len(sum.Plan.Trials), sum.Ran, sum.Skipped, sum.Failed)
	} else {
		fmt.Fprintf(stdout, "%s: %d trials: %d ran now, %d already done, %d failed\n",
			sp.Name, len(sum.Plan.Trials), sum.Ran, sum.Skipped, sum.Failed)
	}
	fmt.Fprintf(stdout, "report: %s\n", filepath.Join(dir, "report.md"))
	// What the report flags for action (a grid to widen, fits at their
	// iteration cap) is repeated where it will be seen.
	for _, w := range reports.Warnings(sp, sum.Results) {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if sum.Interrupted {
		fmt.Fprintf(stderr, "interrupted: %d of %d trials finished; run the same command again to resume\n",
			len(sum.Results), len(sum.Plan.Trials))
		return exitInterrupted
	}
	failedChecks := 0
	if len(sp.Expect) > 0 && !*smoke {
		fmt.Fprintln(stdout)
		failedChecks = reports.WriteCheck(stdout, reports.CheckDir(dir, sp, sum.Results))
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
func smokeTrial(sp *spec.Spec) func(*spec.Trial) bool {
	smallest := 0.0
	for i, s := range sp.Curve.Sizes {
		// A fraction and a count are not comparable without the data: the
		// smallest count, else the smallest fraction.
		if i == 0 || (s > 1) == (smallest > 1) && s < smallest || s > 1 && smallest <= 1 {
			smallest = s
		}
	}
	return func(t *spec.Trial) bool {
		return t.Index == 0 && (t.Size == 0 || t.Size == smallest)
	}
}

// printFailures lists the first failed trials. A trial that failed before
// its training set was drawn has no size; the plan gives the size the spec
// asked for.
func printFailures(w io.Writer, plan *spec.Plan, recs []results.Result) {
	specSize := map[string]float64{}
	for _, t := range plan.Trials {
		specSize[t.Key] = t.Size
	}
	n := 0
	for _, r := range recs {
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
		fmt.Fprintf(w, "failed: %s / %s / size %s / trial %d: %s\n", r.Dataset, spec.SeriesName(r.Method, r.Variant), size, r.Trial, msg)
	}
	if n > 5 {
		fmt.Fprintf(w, "… and %d more failed trials (see results.jsonl)\n", n-5)
	}
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
