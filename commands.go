package main

import (
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/spec"
)

// A specProgram is an external program a method of a spec runs.
type specProgram struct {
	method string   // the method's label
	argv   []string // as written, placeholders unexpanded
	path   string   // argv[0] looked up on PATH; "" if not found
	err    error    // why it was not found
	at     spec.Pos
}

// programs returns the external programs the spec's methods run
// (methods.Plugin.Programs), each distinct argument vector of a method
// once, in spec order, with the program looked up on PATH.
func programs(sp *spec.Spec) []specProgram {
	var out []specProgram
	for _, m := range sp.Methods {
		pl, err := methods.Lookup(m.Name)
		if err != nil || pl.Programs == nil {
			continue
		}
		seen := map[string]bool{}
		for _, point := range m.Grid {
			for _, argv := range pl.Programs(point) {
				key := strings.Join(argv, "\x00")
				if len(argv) == 0 || seen[key] {
					continue
				}
				seen[key] = true
				p := specProgram{method: m.Label, argv: argv, at: m.Pos}
				p.path, p.err = exec.LookPath(argv[0])
				out = append(out, p)
			}
		}
	}
	return out
}

// quoteArgs renders an argument vector as a shell would read it back.
func quoteArgs(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]#~&;|<>()!") {
			parts[i] = a
		} else {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

// checkPrograms applies --no-commands and checks that every program the
// spec runs is found: it prints what is wrong to stderr, each at its
// method's FILE:LINE:COL, and reports whether the spec may run.
func checkPrograms(file string, progs []specProgram, noCommands bool, cmd string, stderr io.Writer) bool {
	ok := true
	for _, p := range progs {
		switch {
		case noCommands:
			fmt.Fprintf(stderr, "%s:%d:%d: method %q runs the program %s; refused by --no-commands\n", file, p.at.Line, p.at.Column, p.method, quoteArgs(p.argv))
			ok = false
		case p.err != nil:
			fmt.Fprintf(stderr, "%s:%d:%d: method %q: program %s: %v; want it installed on PATH or an absolute path\n", file, p.at.Line, p.at.Column, p.method, p.argv[0], p.err)
			ok = false
		}
	}
	if !ok && noCommands {
		fmt.Fprintf(stderr, "repro %s: %s runs external programs (command methods); without --no-commands it would run them\n", cmd, file)
	}
	return ok
}

// printPrograms lists the programs the spec runs, for `repro validate`.
func printPrograms(w io.Writer, progs []specProgram) {
	if len(progs) == 0 {
		return
	}
	fmt.Fprintln(w, "programs this experiment runs (command methods; placeholders in braces):")
	for _, p := range progs {
		fmt.Fprintf(w, "  %s: %s", p.method, quoteArgs(p.argv))
		if p.path != "" && p.path != p.argv[0] {
			fmt.Fprintf(w, "  [%s]", p.path)
		}
		fmt.Fprintln(w)
	}
}
