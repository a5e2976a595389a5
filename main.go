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
//	repro data mirror OUT [FILE.yaml] [--data DIR]
//	repro calibrate [--seeds N] [--flip F] [-j N] [--designs TEXT]
//
// Exit codes, one per kind of failure and the same at every command:
//
//	0    success
//	1    a verdict failed: failed trials (run), a failed expectation (check,
//	     run --check), a regression or runs that cannot be compared (diff),
//	     a data file missing or not verifying (data list, data verify), a
//	     source not fetched (data fetch)
//	2    the input was refused before anything ran: bad usage, an invalid
//	     spec, or data the spec cannot use (a dataset that does not load,
//	     sizes, folds or columns the data cannot give) — at validate --data
//	     and at run alike
//	3    the machine stood in the way: the output directory in use by
//	     another run, a file that cannot be written, a job not submitted
//	130  interrupted (rerun to resume)
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/repro-ml/repro/runner"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1   // a verdict failed
	exitUsage       = 2   // usage, spec or data refused
	exitError       = 3   // the machine stood in the way
	exitInterrupted = 130 // a signal; rerun to resume
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
        check the spec and print the plan (runs nothing); with --data DIR (not $REPRO_DATA alone),
        load the datasets (no fits) and check the spec against them: sizes, test sets, folds, columns;
        print every external program its command methods would run (--no-commands refuses them,
        as it does for run)
  repro list [methods|datasets|transforms|metrics]
        print the registered plugins and their parameters
  repro data list|fetch|verify FILE.yaml [--data DIR] [--mirror URL]
        list where the experiment's data files come from, download the missing ones
        (checked against their checksums), or verify those present (repro data help)
  repro data mirror OUT [FILE.yaml] [--data DIR]
        write the tree a mirror serves for fetch --mirror from the data directory's files
  repro calibrate [--seeds N] [--flip F] [-j N] [--designs TEXT]
        measure the paired tests' Type I error and power on every design of experiments/ by
        simulation on the embedded data (docs/statistics.md); exit 1 if the default misses its acceptance
  repro version

Exit codes (every command):
  0    success
  1    a verdict failed: failed trials (run), a failed expectation (check, run --check), a
       regression (diff), a data file missing or not verifying (data list|verify|fetch)
  2    refused before anything ran: bad usage, an invalid spec, data the spec cannot use
       (a dataset that does not load, sizes or folds the data cannot give; validate --data and run)
  3    the machine stood in the way: the output directory in use, a file not written, a job not submitted
  130  interrupted (the same command resumes)
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
	case "calibrate":
		return cmdCalibrate(ctx, stdout, stderr, rest)
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
