package text

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/internal/tabio"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/param"
)

// imdbFixture is a synthetic IMDb archive: name, content pairs in the
// layout of aclImdb_v1.tar.gz, with the README and vocabulary files that
// are not reviews.
var imdbFixture = []string{
	"aclImdb/README", "Large Movie Review Dataset v1.0 (synthetic fixture)",
	"aclImdb/imdb.vocab", "the\nmovie\n",
	"aclImdb/train/pos/10_9.txt", "A wonderful film.<br /><br />Loved every minute of the film.",
	"aclImdb/train/pos/2_8.txt", "Great acting, great story; a great movie.",
	"aclImdb/train/neg/3_1.txt", "Boring. The plot was dull and the acting was bad.",
	"aclImdb/train/neg/7_2.txt", "A bad, bad movie.",
	"aclImdb/test/pos/1_10.txt", "Excellent film, a great story.",
	"aclImdb/test/neg/0_3.txt", "Dull plot.<br />Bad film.",
	"aclImdb/test/neg/4_4.txt", "Not great: boring and dull.",
	"aclImdb/train/unsup/5_0.txt", "unlabelled reviews are not rows",
}

// writeIMDb writes the fixture as dir/imdb/aclImdb_labeled.tar.gz.
func writeIMDb(tb testing.TB, dir string, files ...string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "imdb"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "imdb", "aclImdb_labeled.tar.gz"), gz(rawTar(tb, files...)), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func TestIMDbFixture(t *testing.T) {
	dir := t.TempDir()
	writeIMDb(t, dir, imdbFixture...)
	d, err := loadWith("imdb", dir, param.Values{"keep_text": true, "weighting": "count"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tabio.Check(d); err != nil {
		t.Fatal(err)
	}
	// Train neg (3, 7), train pos (2, 10), test neg (0, 4), test pos (1).
	wantY := []float64{0, 0, 1, 1, 0, 0, 1}
	wantSplit := []datasets.Part{0, 0, 0, 0, 1, 1, 1}
	if !reflect.DeepEqual(d.Y, wantY) || !reflect.DeepEqual(d.Split, wantSplit) || !reflect.DeepEqual(d.Classes, []string{"neg", "pos"}) {
		t.Errorf("Y %v split %v classes %v; want %v %v [neg pos]", d.Y, d.Split, d.Classes, wantY, wantSplit)
	}
	if got := d.Text[3]; got != "A wonderful film.\n\nLoved every minute of the film." {
		t.Errorf("review 10 kept as %q", got)
	}
	for _, f := range d.Features {
		if f == "br" {
			t.Error("<br /> tags became the token br")
		}
	}
	col := map[string]int{}
	for j, f := range d.Features {
		col[f] = j
	}
	if got := d.X.At(1, col["bad"]); got != 2 {
		t.Errorf("count of bad in review 7 = %v; want 2", got)
	}
	if d.Stats["docs.train"] != 4 || d.Stats["docs.test"] != 3 {
		t.Errorf("stats %v", d.Stats)
	}
	noText, err := loadWith("imdb", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if noText.Text != nil {
		t.Error("Text kept without keep_text")
	}
}

func TestIMDbHostile(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string
	}{
		{"no reviews", []string{"aclImdb/README", "x"}, "no reviews"},
		{"climbs out", []string{"aclImdb/../../etc/train/pos/1_1.txt", "x"}, `".."`},
		{"twice", []string{"aclImdb/train/neg/2_1.txt", "z", "aclImdb/train/pos/1_1.txt", "x", "other/train/pos/1_2.txt", "y"}, "twice"},
		{"only numbers", []string{"aclImdb/train/neg/2_1.txt", "7", "aclImdb/train/pos/1_1.txt", "123 456"}, "empty vocabulary"},
		{"one class", []string{"aclImdb/train/pos/1_1.txt", "good", "aclImdb/test/pos/2_9.txt", "fine"},
			"aclImdb_labeled.tar.gz: every review is in a pos/ folder, none in neg/; a classification dataset needs at least two classes"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeIMDb(t, dir, tt.files...)
		_, err := loadWith("imdb", dir, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "aclImdb_labeled.tar.gz") {
			t.Errorf("%s: error %v; want one naming the archive and saying %q", tt.name, err, tt.want)
		}
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "imdb"), 0o755)
	os.WriteFile(filepath.Join(dir, "imdb", "aclImdb_labeled.tar.gz"), []byte("not gzip"), 0o644)
	if _, err := loadWith("imdb", dir, nil); err == nil {
		t.Error("not a gzip file: no error")
	}
	if _, err := loadWith("imdb", t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "Maas") {
		t.Errorf("missing file: error %v; want one saying where it comes from", err)
	}
}

// FuzzIMDbTar gzips an arbitrary tar and loads it as IMDb: no panic, and
// either a valid dataset or an error naming the archive.
func FuzzIMDbTar(f *testing.F) {
	f.Add(rawTar(f, imdbFixture...))
	f.Add(rawTar(f, "aclImdb/test/neg/-1_3.txt", "x", "aclImdb/test/neg/x_3.txt", "y"))
	f.Add([]byte("not a tar"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d := loadTar(t, "imdb", "imdb/aclImdb_labeled.tar.gz", raw, param.Values{"keep_text": true})
		if d != nil && (len(d.Split) != d.Rows() || len(d.Text) != d.Rows()) {
			t.Fatalf("%d split entries, %d documents for %d rows", len(d.Split), len(d.Text), d.Rows())
		}
	})
}

// TestRealIMDb loads the paper's copy: 25,000 train and 25,000 test
// reviews, half positive.
func TestRealIMDb(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: loads 50,000 reviews")
	}
	dir := datatest.Paper(t, "imdb/aclImdb_labeled.tar.gz")
	d := datatest.Load(t, "imdb", dir, param.Values{"min_df": 5})
	train, test := d.SplitRows()
	if len(train) != 25000 || len(test) != 25000 {
		t.Errorf("%d train, %d test; want 25,000 each", len(train), len(test))
	}
	if c := d.ClassCounts(); c[0] != 25000 || c[1] != 25000 {
		t.Errorf("class counts %v; want 25,000 each", c)
	}
	t.Logf("%d rows, %d features (min_df 5)", d.Rows(), d.Cols())
}

// TestWriteIMDbFixture writes the fixture the conformance suite loads,
// when REPRO_WRITE_FIXTURES is set.
func TestWriteIMDbFixture(t *testing.T) {
	if os.Getenv("REPRO_WRITE_FIXTURES") == "" {
		t.Skip("set REPRO_WRITE_FIXTURES=1 to rewrite testdata/imdb/aclImdb_labeled.tar.gz")
	}
	writeIMDb(t, "testdata", imdbFixture...)
}
