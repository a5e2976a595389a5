package linqs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/datatest"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

func dense(m matrix.Matrix) [][]float64 { return datatest.Rows(m) }

func load(t *testing.T, dir, name string, p map[string]any) (*datasets.Dataset, error) {
	t.Helper()
	return datatest.TryLoad(t, name, dir, p)
}

func TestLoad(t *testing.T) {
	d, c, err := LoadCitations("testdata/tiny.content.gz", "testdata/tiny.cites")
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]float64{{0, 1, 0}, {1, 1, 0}, {0, 0, 1}}; !reflect.DeepEqual(dense(d.X), want) {
		t.Errorf("X = %v, want %v", dense(d.X), want)
	}
	if _, ok := d.X.(*matrix.CSR); !ok || d.X.NNZ() != 4 {
		t.Errorf("X is %T with %d non-zeros, want CSR with 4", d.X, d.X.NNZ())
	}
	if !reflect.DeepEqual(d.Classes, []string{"AI", "Theory"}) || !reflect.DeepEqual(d.Y, []float64{1, 0, 1}) {
		t.Errorf("classes %q Y %v", d.Classes, d.Y)
	}
	// Row = citing paper: p2 cites p1; p3 cites p1, p2 (twice) and itself.
	if want := [][]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 1}}; !reflect.DeepEqual(dense(c.Graph), want) {
		t.Errorf("graph = %v, want %v", dense(c.Graph), want)
	}
	wantStats := map[string]float64{"cites.edges": 4, "cites.self": 1, "cites.unknown": 1}
	if !reflect.DeepEqual(d.Stats, wantStats) || c.Lines != 6 {
		t.Errorf("stats %v lines %d, want %v and 6", d.Stats, c.Lines, wantStats)
	}
	if d.Graphs != nil {
		t.Error("the row graph must not be stored as a feature graph")
	}
	p, err := load(t, "testdata", "linqs", map[string]any{"content": "tiny.content.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "linqs" || !reflect.DeepEqual(dense(p.X), dense(d.X)) {
		t.Errorf("plugin load differs")
	}
	_, err = load(t, "testdata", "cora", nil)
	var mf *datasets.MissingFileError
	if !errors.As(err, &mf) || mf.Path != filepath.Join("testdata", "cora", "cora.content.gz") {
		t.Errorf("error %v, want MissingFileError for testdata/cora/cora.content.gz", err)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct{ name, content, cites, want string }{
		{"ragged", "a\t0\t1\tX\nb\t1\tX\n", "", ":2: 1 word values, want 2 as on the first line"},
		{"short", "a\tX\n", "", ":1: 2 fields, want: paper id, word values, class"},
		{"not binary", "a\t0\t1\tX\nb\t0\t2\tX\n", "", `:2: word 2: "2", want 0 or 1`},
		{"duplicate id", "a\t0\t1\tX\n\nA\t0\t0\tX\na\t1\t1\tY\n", "", `:4: paper id "a" already on line 1`},
		{"empty", "\n", "", "no papers"},
		{"cites fields", "a\t0\t1\tX\nb\t1\t0\tY\n", "a a\na\n", "cites:2: 1 fields, want 2"},
		{"one class", "a\t0\t1\tX\nb\t1\t0\tX\n", "", `x.content: every paper has class "X"; a classification dataset needs at least two classes`},
		{"cites three fields", "a\t0\t1\tX\nb\t1\t0\tY\n", "a b c\n", "x.cites:1: 3 fields, want 2 (cited paper id, citing paper id)"},
		{"word value 1e400", "a\t0\t1e400\tX\n", "", `x.content:1: word 2: "1e400", want 0 or 1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cp, ct := filepath.Join(dir, "x.content"), filepath.Join(dir, "x.cites")
			os.WriteFile(cp, []byte(tc.content), 0o644)
			os.WriteFile(ct, []byte(tc.cites), 0o644)
			_, _, err := LoadCitations(cp, ct)
			if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %s…%s", err, dir, tc.want)
			}
		})
	}
}

func TestCitesFor(t *testing.T) {
	for in, want := range map[string]string{"cora/cora.content.gz": "cora/cora.cites", "x.content": "x.cites"} {
		if got := CitesFor(in); got != want {
			t.Errorf("CitesFor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRealFiles(t *testing.T) {
	tests := []struct {
		name                  string
		rows, cols            int
		counts                []int
		lines, unknown, selfc int
	}{
		{"cora", 2708, 1433, []int{298, 418, 818, 426, 217, 180, 351}, 5429, 0, -1},
		// classes sort byte-wise: AI before Agents.
		{"citeseer", 3312, 3703, []int{249, 596, 701, 508, 668, 590}, 4732, -1, 124},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := datatest.Paper(t, filepath.Join(tc.name, tc.name+".content.gz"))
			d, c, err := LoadCitations(filepath.Join(dir, tc.name, tc.name+".content.gz"), filepath.Join(dir, tc.name, tc.name+".cites"))
			if err != nil {
				t.Fatal(err)
			}
			if d.Rows() != tc.rows || d.Cols() != tc.cols || !reflect.DeepEqual(d.ClassCounts(), tc.counts) {
				t.Errorf("%d×%d counts %v, want %d×%d %v", d.Rows(), d.Cols(), d.ClassCounts(), tc.rows, tc.cols, tc.counts)
			}
			if c.Lines != tc.lines || tc.unknown >= 0 && c.Unknown != tc.unknown || tc.selfc >= 0 && c.Self != tc.selfc {
				t.Errorf("cites: %d lines, %d unknown, %d self", c.Lines, c.Unknown, c.Self)
			}
			if c.Unknown == 0 && tc.name == "citeseer" {
				t.Error("citeseer: want some cites naming unknown ids (15 ids are absent)")
			}
		})
	}
}
