package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

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

func outDir(flagDir string, sp *spec.Spec) string {
	if flagDir != "" {
		return flagDir
	}
	return filepath.Join("out", sp.Name)
}

// loadSpec loads the experiment file path with the --set overrides, and
// prints why it cannot on stderr.
func loadSpec(path string, sets []string, stderr io.Writer) (*spec.Spec, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		err := fmt.Errorf("%s is a directory; want an experiment FILE.yaml", path)
		fmt.Fprintf(stderr, "repro: %v\n", err)
		return nil, err
	}
	sp, err := spec.Load(path, sets)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, err
	}
	return sp, nil
}

// errNotOutput reports a directory that holds no run of an experiment.
func errNotOutput(dir string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: no such directory", dir)
	}
	return fmt.Errorf("%s is not a repro output directory (it has no %s)", dir, spec.SpecFile)
}

// loadDir reads the spec stored in an output directory. Without --set
// overrides it does not consult the plugin registries (spec.ReadSpec),
// so a directory stays reportable after its plugins are gone; overrides
// are validated against the plugins as for a spec file.
func loadDir(dir string, sets []string) (*spec.Spec, error) {
	specPath := filepath.Join(dir, spec.SpecFile)
	if fi, err := os.Stat(specPath); err != nil || fi.IsDir() {
		return nil, errNotOutput(dir)
	}
	if len(sets) == 0 {
		return spec.ReadSpec(dir)
	}
	return spec.Load(specPath, sets)
}

// loadResults reads the results of spec's plan stored in dir — in
// results.jsonl and every shard's file (runner.ReadAllResults) — reporting
// torn and corrupt lines on stderr and, for a sharded run, the trials each
// shard still misses.
func loadResults(dir string, sp *spec.Spec, stderr io.Writer) ([]results.Result, error) {
	recs, warns, found, err := results.ReadAllResults(dir)
	if err != nil {
		return nil, err
	}
	if !found {
		if _, err := os.Stat(filepath.Join(dir, spec.SpecFile)); err != nil {
			return nil, errNotOutput(dir)
		}
		return nil, fmt.Errorf("%s: no results yet", dir)
	}
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	return planResults(dir, sp, recs, stderr)
}

// planResults returns the latest result of each trial of sp's plan among
// recs, the results read from dir, in plan order, and says on stderr which
// shards of dir have not finished.
func planResults(dir string, sp *spec.Spec, recs []results.Result, stderr io.Writer) ([]results.Result, error) {
	plan, err := spec.NewPlan(sp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	printShards(stderr, dir, plan, recs)
	return spec.ForPlan(plan, recs), nil // the latest result of each key
}
