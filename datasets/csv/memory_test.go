package csv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/param"
)

// TestLoadMemory: the csv loader's estimate (Loader.Memory, from the
// file's size) covers its live peak, so that a table far beyond
// --mem-limit is refused before it is read (issue 43: a 54 MB CSV loaded
// under --mem-limit 50MB, peak 287 MB; under an address-space limit it
// took the process down in csv.read).
func TestLoadMemory(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		row  func(i int) string
	}{
		{"short numbers", func(i int) string {
			return fmt.Sprintf("%d,%d,%d,%d,%d,%d,%d,%d,%d", i%7, i%3, i%5, i%11, i%13, i%2, i%9, i%4, i%2)
		}},
		{"long numbers", func(i int) string {
			return fmt.Sprintf("%.9f,%.9f,%.9f,%.9f,%d", float64(i)/7, float64(i)/3, float64(i)/11, float64(i)/13, i%2)
		}},
	} {
		var b strings.Builder
		n := strings.Count(tc.row(0), ",")
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "x%d,", j)
		}
		b.WriteString("y\n")
		for i := 0; b.Len() < 1<<20; i++ {
			b.WriteString(tc.row(i))
			b.WriteByte('\n')
		}
		file := strings.ReplaceAll(tc.name, " ", "-") + ".csv"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		_, peak := datatest.CheckLoadMemory(t, "csv", dir, tc.name, param.Values{"file": file, "label": "y"})
		t.Logf("%s: %d bytes, %.1f live per byte", tc.name, b.Len(), float64(peak)/float64(b.Len()))
	}
}
