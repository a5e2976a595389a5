package results_test

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestLeaf checks that results, which readers of an output directory use
// on its own, depends on no other package of the module but the bottom
// contracts: not on the spec language, nor on the executor.
func TestLeaf(t *testing.T) {
	const module = "github.com/repro-ml/repro/"
	allowed := map[string]bool{"param": true, "matrix": true, "metric": true, "registry": true}
	seen := map[string]bool{}
	var walk func(dir, from string)
	walk = func(dir, from string) {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, imp := range pkg.Imports {
			rel, ok := strings.CutPrefix(imp, module)
			if !ok || seen[rel] {
				continue
			}
			seen[rel] = true
			if !allowed[rel] {
				t.Errorf("results depends on %s (through %s); want a leaf", imp, from)
				continue
			}
			walk(filepath.Join("..", rel), rel)
		}
	}
	walk(".", "results")
}
