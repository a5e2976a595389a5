package conformance_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// blankImports returns the sorted paths that file imports as _.
func blankImports(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, im := range f.Imports {
		if im.Name == nil || im.Name.Name != "_" {
			continue
		}
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			t.Fatalf("%s: import %s: %v", file, im.Path.Value, err)
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// TestImportsMatchPlugins fails when imports_test.go does not link in
// exactly the plugin packages of the root's plugins.go: a plugin package
// added to the build must be added to the suite too.
func TestImportsMatchPlugins(t *testing.T) {
	build := blankImports(t, filepath.Join("..", "..", "plugins.go"))
	suite := blankImports(t, "imports_test.go")
	if len(build) == 0 {
		t.Fatal("../../plugins.go has no blank imports; has the build's plugin list moved?")
	}
	for _, p := range build {
		if _, ok := slices.BinarySearch(suite, p); !ok {
			t.Errorf("plugins.go links in %s but the conformance suite does not: add _ %q to internal/conformance/imports_test.go", p, p)
		}
	}
	for _, p := range suite {
		if _, ok := slices.BinarySearch(build, p); !ok {
			t.Errorf("internal/conformance/imports_test.go links in %s, which plugins.go does not: remove it or add it to the build", p)
		}
	}
}
