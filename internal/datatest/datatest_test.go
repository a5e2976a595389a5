package datatest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/repro-ml/repro/datasets"
)

func TestPaperDirFromEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(datasets.DataDirEnv, dir)
	if got := PaperDir(); got != dir {
		t.Errorf("PaperDir = %q, want $%s = %q", got, datasets.DataDirEnv, dir)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Paper(t, "x.csv"); got != dir {
		t.Errorf("Paper = %q, want %q", got, dir)
	}
}

func TestPaperSkipsWhenAbsent(t *testing.T) {
	t.Setenv(datasets.DataDirEnv, t.TempDir())
	skipped := true
	t.Run("inner", func(t *testing.T) {
		Paper(t, "no/such/file")
		skipped = false
	})
	if !skipped {
		t.Error("Paper did not skip for a missing file")
	}
}

func TestModuleRoot(t *testing.T) {
	root := moduleRoot()
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Errorf("moduleRoot = %q has no go.mod", root)
	}
}
