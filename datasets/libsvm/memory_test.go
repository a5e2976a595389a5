package libsvm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/param"
)

// TestLoadMemory: the libsvm loader's estimate (Loader.Memory, from the
// file's size, entries and rows) covers its live peak, so that a file far
// beyond --mem-limit is refused before it is read (issue 43).
func TestLoadMemory(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		row  func(i int) string
	}{
		{"short entries", func(i int) string {
			return fmt.Sprintf("%d 1:%d 2:%d 3:%d 5:%d 8:%d 13:%d", i%2, i%7, i%3, i%5, i%11, i%13, i%4)
		}},
		{"long entries", func(i int) string {
			return fmt.Sprintf("%d %d:%.9f %d:%.9f %d:%.9f", i%2, 1+i%1000, float64(i)/7, 1001+i%1000, float64(i)/3, 2001+i%5000, float64(i)/11)
		}},
		{"dense rows", func(i int) string {
			var b strings.Builder
			fmt.Fprintf(&b, "%d", i%2)
			for j := 1; j <= 20; j++ {
				fmt.Fprintf(&b, " %d:%d", j, (i*j)%10)
			}
			return b.String()
		}},
	} {
		var b strings.Builder
		for i := 0; b.Len() < 1<<20; i++ {
			b.WriteString(tc.row(i))
			b.WriteByte('\n')
		}
		file := strings.ReplaceAll(tc.name, " ", "-") + ".svm"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		_, peak := datatest.CheckLoadMemory(t, "libsvm", dir, tc.name, param.Values{"file": file})
		t.Logf("%s: %d bytes, %.1f live per byte", tc.name, b.Len(), float64(peak)/float64(b.Len()))
	}
}
