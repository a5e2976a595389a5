package methods_test

import (
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const (
	module      = "github.com/repro-ml/repro"
	methodsPath = module + "/methods"
	fixturePath = module + "/internal/fakeplugin" // and the packages under it
)

// isFixture reports whether the package at import path ip is a test
// fixture: fakeplugin or a package under it.
func isFixture(ip string) bool {
	return ip == fixturePath || strings.HasPrefix(ip, fixturePath+"/")
}

// listedPackage is a non-test package of the module.
type listedPackage struct {
	ImportPath, Name, Dir string
	GoFiles, Imports      []string
}

// listModule returns the non-test packages of the module, read with
// go/build (so that go test's cache sees every file and directory read).
func listModule(t *testing.T) []listedPackage {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	var pkgs []listedPackage
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(path, 0)
		var none *build.NoGoError
		if errors.As(err, &none) {
			return nil
		} else if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		ip := module
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		pkgs = append(pkgs, listedPackage{ImportPath: ip, Name: bp.Name, Dir: path, GoFiles: bp.GoFiles, Imports: bp.Imports})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// registersMethods reports whether a non-test file of p calls
// methods.Register or methods.RegisterTyped.
func registersMethods(t *testing.T, p listedPackage) bool {
	t.Helper()
	fset := token.NewFileSet()
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := ""
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == methodsPath {
				local = "methods"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			continue
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return !found
			}
			fun := call.Fun
			if ix, ok := fun.(*ast.IndexExpr); ok { // methods.RegisterTyped[T](…)
				fun = ix.X
			}
			if sel, ok := fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Register" || sel.Sel.Name == "RegisterTyped") {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
					found = true
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// TestPluginPackagesAreLeaves checks that a package registering methods is
// imported by no other package but a command's and package plugins (plugins/plugins.go), so that
// importing shared code never registers sibling plugins as a side effect:
// what two plugins share belongs in a library package that registers
// nothing (lsq, logistic, kernel, optim). It also checks that the command
// imports every such package, the "forgotten import" of database/sql.
func TestPluginPackagesAreLeaves(t *testing.T) {
	const linker = "github.com/repro-ml/repro/plugins" // links every plugin for the command and the conformance suite
	pkgs := listModule(t)
	plugins := map[string]bool{}
	for _, p := range pkgs {
		if registersMethods(t, p) && !isFixture(p.ImportPath) { // TestFixturesOnlyInTests
			plugins[p.ImportPath] = true
		}
	}
	if len(plugins) == 0 {
		t.Fatal("found no package calling methods.Register")
	}
	imported := map[string]bool{}
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			if !plugins[imp] {
				continue
			}
			if p.Name == "main" || p.ImportPath == linker {
				imported[imp] = true
				continue
			}
			t.Errorf("%s imports %s, which registers methods: move what they share into a library package that registers nothing", p.ImportPath, imp)
		}
	}
	var missing []string
	for p := range plugins {
		if !imported[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		t.Errorf("%s registers methods but nothing links it: add a blank import to plugins/plugins.go", p)
	}
}

// TestFixturesOnlyInTests checks that the fake plugins of package
// fakeplugin (and the packages under it), which register in init, are
// linked only into tests: no non-test file of another package imports
// them, so that neither the command nor a library lists a fake-… plugin.
func TestFixturesOnlyInTests(t *testing.T) {
	found := false
	for _, p := range listModule(t) {
		if isFixture(p.ImportPath) {
			found = found || p.ImportPath == fixturePath
			continue
		}
		for _, imp := range p.Imports {
			if isFixture(imp) {
				t.Errorf("%s imports the test fixture %s in a non-test file; import it only from _test.go files", p.ImportPath, imp)
			}
		}
	}
	if !found {
		t.Errorf("package %s not found", fixturePath)
	}
}

// TestReadersDoNotImportExecutor checks the split of the experiment code
// in three: the experiment language (spec) and the contract between
// running and reading (results) sit below the executor (runner), and what
// reads an output directory — package reports and the command's report,
// diff and check — imports spec and results, never runner, directly or
// not (the way benchstat reads benchfmt).
func TestReadersDoNotImportExecutor(t *testing.T) {
	const executor = module + "/runner"
	pkgs := listModule(t)
	imports := map[string][]string{}
	for _, p := range pkgs {
		imports[p.ImportPath] = p.Imports
	}
	// path returns a chain of imports from p to executor, or nil.
	var path func(p string, seen map[string]bool) []string
	path = func(p string, seen map[string]bool) []string {
		if p == executor {
			return []string{p}
		}
		if seen[p] {
			return nil
		}
		seen[p] = true
		for _, imp := range imports[p] {
			if chain := path(imp, seen); chain != nil {
				return append([]string{p}, chain...)
			}
		}
		return nil
	}
	for _, reader := range []string{"spec", "results", "reports"} {
		ip := module + "/" + reader
		if _, ok := imports[ip]; !ok {
			t.Errorf("package %s not found", ip)
			continue
		}
		if chain := path(ip, map[string]bool{}); chain != nil {
			t.Errorf("%s imports the executor: %s", ip, strings.Join(chain, " → "))
		}
	}
	// The command is one package; its reading subcommands are files that
	// import no executor themselves.
	for _, p := range pkgs {
		if p.ImportPath != module {
			continue
		}
		for _, name := range []string{"report.go", "diff.go", "check.go"} {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == executor {
					t.Errorf("%s (repro %s) imports %s; read through packages spec and results", name, strings.TrimSuffix(name, ".go"), executor)
				}
			}
		}
	}
}
