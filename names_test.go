package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/repro-ml/repro/protocols/active"
	"github.com/repro-ml/repro/spec"
)

// nameDirs are the parts of the repository that read a spec, and so could
// branch on the name of a split kind, select rule, protocol or query
// strategy: the experiment language, the executor, the result store, the
// reports, the protocol packages and the command. Methods, datasets and
// transforms never see a spec (methods/layering_test.go); their "train"
// and "test" are file names of their data.
var nameDirs = []string{".", "spec", "runner", "results", "reports", "protocols"}

// notBranches are the string literals equal to a registered name, outside
// the file that registers it, that are not a branch on the kind: file
// (slash-separated, from the repository root) → literal → how many times it
// occurs there and why. A literal added to such a file fails the test as
// one in any other file does.
var notBranches = map[string]map[string]struct {
	n   int
	why string
}{
	"spec/spec.go": {
		"train": {1, "the value fit: train of a transform (FitTrain), not the split kind"},
	},
	"spec/validate.go": {
		"curve": {4, "the curve: section of a spec (a YAML key), not the protocol"},
	},
	"runner/datacheck.go": {
		"curve": {2, "the curve: section of a spec (curve.sampling, curve.sizes), not the protocol"},
	},
	"runner/split.go": {
		"test": {2, "the key of the holdout split's param test in its data check's complaints, not the select rule"},
	},
	"runner/trial.go": {
		"train": {1, "the seed domain of the training sample (spec.Derive), not the split kind"},
	},
	"diff.go": {
		"test": {1, "the flag -test of repro diff, not the select rule"},
	},
	"calibrate.go": {
		"train": {1, "the seed domain of the training sample (spec.Derive), as runner/trial.go's, not the split kind"},
	},
}

// pendingBranches are the branches on a registered name that are still to
// move into the kind's registration: the test fails when one is gone, so
// that the list only shrinks. None is left.
var pendingBranches = map[string]map[string]int{}

// registeredNames returns every registered split kind, select rule,
// protocol and query strategy.
func registeredNames() []string {
	var names []string
	names = append(names, spec.Splitters.Names()...)
	names = append(names, spec.Selectors.Names()...)
	names = append(names, spec.Protocols.Names()...)
	names = append(names, active.Strategies.Names()...)
	return names
}

// registeringFiles returns, for each name, the files that register it: a
// call X.Register("name", …), or a function that calls X.Register(expr, …)
// with a name it computes (a loop over a table of names), which then
// registers every string literal in it.
func registeringFiles(files map[string]*ast.File) map[string][]string {
	reg := map[string][]string{}
	add := func(lit *ast.BasicLit, path string) {
		if s, err := strconv.Unquote(lit.Value); err == nil && lit.Kind == token.STRING {
			reg[s] = append(reg[s], path)
		}
	}
	for path, f := range files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			computed := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Register" {
					return true
				}
				if lit, ok := call.Args[0].(*ast.BasicLit); ok {
					add(lit, path)
				} else {
					computed = true
				}
				return true
			})
			if computed {
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if lit, ok := n.(*ast.BasicLit); ok {
						add(lit, path)
					}
					return true
				})
			}
		}
	}
	return reg
}

// parseSources parses the non-test Go files under dirs (the root directory
// itself only, not its subdirectories, for ".").
func parseSources(t *testing.T, dirs []string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if path != dir && (dir == "." || e.Name() == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			files[filepath.ToSlash(path)] = f
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return fset, files
}

// nameLiterals returns, per file and name, the positions of string
// literals equal to a name of names outside the files that register it.
// Struct tags are not string literals of the code and are skipped.
func nameLiterals(fset *token.FileSet, files map[string]*ast.File, names []string) map[string]map[string][]string {
	reg := registeringFiles(files)
	found := map[string]map[string][]string{}
	for path, f := range files {
		tags := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if field, ok := n.(*ast.Field); ok && field.Tag != nil {
				tags[field.Tag] = true
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || tags[lit] {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !slices.Contains(names, s) || slices.Contains(reg[s], path) {
				return true
			}
			if found[path] == nil {
				found[path] = map[string][]string{}
			}
			found[path][s] = append(found[path][s], fset.Position(lit.Pos()).String())
			return true
		})
	}
	return found
}

// TestNoNameBranches checks that no code outside the file that registers a
// split kind, select rule, protocol or query strategy names it in a string
// literal: what is about a kind — its checks, its words in plans and
// reports, how its trials are keyed — is in its registration (spec.Splitter,
// spec.Selector, spec.Protocol, runner.Splitter, runner.Protocol,
// active.Strategy), not in a switch on its name elsewhere.
func TestNoNameBranches(t *testing.T) {
	names := registeredNames()
	if len(names) < 12 {
		t.Fatalf("registered names %v: want the split kinds, select rules, protocols and strategies linked in", names)
	}
	fset, files := parseSources(t, nameDirs)
	found := nameLiterals(fset, files, names)
	for _, path := range sortedKeys(found) {
		for _, name := range sortedKeys(found[path]) {
			at := found[path][name]
			want := notBranches[path][name].n + pendingBranches[path][name]
			if len(at) != want {
				t.Errorf("%s: %d string literals %q, want %d: a branch on the registered name %s belongs in its registration (%s)",
					path, len(at), name, want, name, strings.Join(at, ", "))
			}
		}
	}
	// The lists say what the code has: no entry for a literal that is gone.
	for _, list := range []map[string]map[string]int{counts(notBranches), pendingBranches} {
		for path, byName := range list {
			for name, n := range byName {
				if n > 0 && len(found[path][name]) == 0 {
					t.Errorf("%s: no string literal %q, but the test lists %d: remove the entry", path, name, n)
				}
			}
		}
	}
}

// TestNoNameBranchesFails checks that the test sees a branch: a switch on
// a split kind's name in a file of package reports.
func TestNoNameBranchesFails(t *testing.T) {
	src := `package reports
func f(kind string) bool { return kind == "holdout" }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "reports/branch.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := nameLiterals(fset, map[string]*ast.File{"reports/branch.go": f}, registeredNames())
	if got := found["reports/branch.go"]["holdout"]; len(got) != 1 {
		t.Errorf("a branch on holdout in reports/branch.go: found %v, want one literal", got)
	}
}

func counts(m map[string]map[string]struct {
	n   int
	why string
}) map[string]map[string]int {
	out := map[string]map[string]int{}
	for path, byName := range m {
		out[path] = map[string]int{}
		for name, e := range byName {
			if e.why == "" && e.n > 0 {
				panic(fmt.Sprintf("notBranches[%q][%q] has no reason", path, name))
			}
			out[path][name] = e.n
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
