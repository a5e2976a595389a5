package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

func cmdValidate(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	fs := newFlags("validate", stderr, "validate FILE.yaml [--data DIR] [--set key.path=value ...] [--no-commands]")
	data := fs.String("data", "", "data directory: check the spec against its datasets too, loading them as a run does (without it the spec alone is checked, whatever $"+datasets.DataDirEnv+")")
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
	sp, err := loadSpec(arg, sets, stderr)
	if err != nil {
		return exitUsage
	}
	if len(sp.Smoke) > 0 {
		// The smoke reductions must apply too: CI runs them.
		if _, err := spec.LoadSmoke(arg, sp.Smoke, sets); err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", arg, err)
		return exitUsage
	}
	progs := programs(sp)
	if !checkPrograms(arg, progs, *noCommands, "validate", stderr) {
		return exitUsage
	}
	// With --data, the datasets load as a run loads them — corpus
	// transforms included, no fit — and what the spec asks of them is
	// checked: sizes against the pool, test sets, folds, columns. That can
	// take minutes and gigabytes (Paskov's compressed corpora), so
	// $REPRO_DATA alone does not ask for it: without --data validate reads
	// the spec and nothing else, fast enough for an editor loop and CI.
	checked := ""
	if os.Getenv(datasets.DataDirEnv) != "" && *data == "" {
		checked = " (the spec alone: add --data \"$" + datasets.DataDirEnv + "\" to check it against the data)"
	}
	if dir := *data; dir != "" {
		env := datasets.Env{DataDir: dir, CacheDir: filepath.Join(filepath.Dir(outDir("", sp)), ".cache")}
		infos, missing, err := runner.CheckData(ctx, sp, env)
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
		for _, ds := range sp.Datasets {
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
