package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/datatest"
)

// loadText loads the text plugin with params given as a spec gives them.
func loadText(t *testing.T, dir string, params map[string]any) (*datasets.Dataset, error) {
	t.Helper()
	return datatest.TryLoad(t, "text", dir, params)
}

// TestPlugin loads one small corpus in each format through the plugin:
// the same documents give the same rows, classes, split and features.
func TestPlugin(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"c.jsonl": `{"text": "The cat sat.", "label": "pets", "split": "train"}` + "\n" +
			`{"text": "Stocks fell; the market sat still.", "label": "money", "split": "train"}` + "\n" +
			`{"text": "A dog and a cat.", "label": "pets", "split": "test"}` + "\n",
		"c.csv.gz":            "text,label,split\nThe cat sat.,pets,train\n\"Stocks fell; the market sat still.\",money,train\nA dog and a cat.,pets,test\n",
		"c.tsv":               "split\ttext\tlabel\ntrain\tThe cat sat.\tpets\ntrain\tStocks fell; the market sat still.\tmoney\ntest\tA dog and a cat.\tpets\n",
		"f/train/pets/1.txt":  "The cat sat.",
		"f/train/money/1.txt": "Stocks fell; the market sat still.",
		"f/test/pets/1.txt":   "A dog and a cat.",
	})
	wantX := map[string][]string{ // the terms of each row, in the order of the rows
		"pets/train":  {"cat", "sat", "the"},
		"money/train": {"fell", "market", "sat", "still", "stocks", "the"},
		"pets/test":   {"a", "and", "cat", "dog"},
	}
	for _, tc := range []struct {
		name string
		over map[string]any
		rows []string // class/split of each row
	}{
		{"jsonl", map[string]any{"file": "c.jsonl", "split": "split"}, []string{"pets/train", "money/train", "pets/test"}},
		{"csv.gz", map[string]any{"file": "c.csv.gz", "split": "split"}, []string{"pets/train", "money/train", "pets/test"}},
		{"tsv", map[string]any{"file": "c.tsv", "split": "split"}, []string{"pets/train", "money/train", "pets/test"}},
		{"folders", map[string]any{"file": "f"}, []string{"money/train", "pets/train", "pets/test"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := loadText(t, dir, tc.over)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.Classes, []string{"money", "pets"}) || len(d.Text) != 3 || len(d.Split) != 3 {
				t.Fatalf("classes %q, %d texts, %d split entries", d.Classes, len(d.Text), len(d.Split))
			}
			for i, want := range tc.rows {
				got := d.Classes[d.Label(i)] + "/" + map[datasets.Part]string{datasets.SplitTrain: "train", datasets.SplitTest: "test"}[d.Split[i]]
				var terms []string
				d.X.Row(i, func(j int, v float64) { terms = append(terms, d.Features[j]) })
				if got != want || !slices.Equal(terms, wantX[want]) {
					t.Errorf("row %d: %s with terms %q; want %s with %q", i, got, terms, want, wantX[want])
				}
			}
		})
	}

	// The pipeline params work as in 20news and imdb.
	d, err := loadText(t, dir, map[string]any{"file": "c.jsonl", "stop_words": "default", "ngrams": 2, "weighting": "count", "keep_text": false})
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != nil || d.Split != nil || !slices.Contains(d.Features, "cat_sat") || slices.Contains(d.Features, "the") {
		t.Errorf("pipeline params: text %v, split %v, features %q", d.Text != nil, d.Split, d.Features)
	}
}

// TestPluginRefusals: what the plugin refuses beyond a record's errors.
func TestPluginRefusals(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"one.jsonl":   `{"text": "a cat", "label": "pets"}` + "\n" + `{"text": "a dog", "label": "pets"}` + "\n",
		"mixed.jsonl": `{"text": "a cat", "label": "x", "s": "train"}` + "\n" + `{"text": "a dog", "label": "y"}` + "\n",
		"c.txt":       "text,label\n",
		"f/pets/1":    "cat",
		"case.jsonl":  `{"text": "a cat", "label": "pos"}` + "\n" + `{"text": "a dog", "label": "neg"}` + "\n" + `{"text": "a cow", "label": "Pos"}` + "\n",
		"case.csv":    "text,label\na cat,neg\na dog,\"very  good\"\na cow,Very Good\n",
	})
	for _, tc := range []struct {
		name string
		over map[string]any
		want string
	}{
		{"one class", map[string]any{"file": "one.jsonl"}, filepath.Join(dir, "one.jsonl") + `: every row has class "pets"; a classification dataset needs rows of at least two classes`},
		{"one class folder", map[string]any{"file": "f"}, filepath.Join(dir, "f") + `: every row has class "pets"; a classification dataset needs rows of at least two classes`},
		{"unknown extension", map[string]any{"file": "c.txt"}, "format: auto cannot tell the format of " + filepath.Join(dir, "c.txt") + " from its name; want format: jsonl, csv, tsv or folders"},
		{"case variants", map[string]any{"file": "case.jsonl"}, filepath.Join(dir, "case.jsonl") + `:3: class "Pos" and ` + filepath.Join(dir, "case.jsonl") + `:1: class "pos" differ only in case or white space; want one spelling of a class`},
		{"case and space variants", map[string]any{"file": "case.csv"}, filepath.Join(dir, "case.csv") + `:4: class "Very Good" and ` + filepath.Join(dir, "case.csv") + `:3: class "very  good" differ only in case or white space; want one spelling of a class`},
		{"split field on folders", map[string]any{"file": "f", "split": "s"}, `split: "s": a folder corpus takes its split from train/ and test/ folders; want no split field`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadText(t, dir, tc.over)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
	_, err := loadText(t, dir, map[string]any{"file": "mixed.jsonl", "split": "s"})
	if want := filepath.Join(dir, "mixed.jsonl") + `:2: no field "s" (fields: label, text)`; err == nil || err.Error() != want {
		t.Errorf("split missing on a row: %v\nwant %s", err, want)
	}
	_, err = loadText(t, dir, map[string]any{"file": "nope.jsonl"})
	var miss *datasets.MissingFileError
	if !errors.As(err, &miss) || miss.Path != filepath.Join(dir, "nope.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

// TestAustenCorpus loads the example corpus of docs/examples/austen:
// 400 paragraphs of two novels in JSON Lines, with the given split, and
// the dialogue flag as a second task.
func TestAustenCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "docs", "examples", "austen")
	if _, err := os.Stat(filepath.Join(dir, "austen.jsonl")); err != nil {
		t.Fatal(err)
	}
	d, err := loadText(t, dir, map[string]any{"file": "austen.jsonl", "label": "book", "split": "split"})
	if err != nil {
		t.Fatal(err)
	}
	train, test := d.SplitRows()
	if d.Rows() != 400 || len(train) != 280 || len(test) != 120 || !slices.Equal(d.Classes, []string{"persuasion", "prideprejudice"}) ||
		!slices.Equal(d.ClassCounts(), []int{200, 200}) || !strings.Contains(d.Text[0], "universally acknowledged") && !strings.Contains(d.Text[0], "neighbourhood") {
		t.Errorf("%d rows (%d train, %d test), classes %q %v; first text %.60q", d.Rows(), len(train), len(test), d.Classes, d.ClassCounts(), d.Text[0])
	}
	flags, err := loadText(t, dir, map[string]any{"file": "austen.jsonl", "label": "dialogue"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(flags.Classes, []string{"false", "true"}) || flags.Split != nil {
		t.Errorf("dialogue: classes %q, split %v", flags.Classes, flags.Split)
	}
	t.Logf("austen: %d × %d; dialogue %v", d.Rows(), d.Cols(), flags.ClassCounts())
}

// classes: keeps the documents of the classes given, in that class order,
// before the vocabulary is built: min_df counts the documents kept, and a
// word of the dropped classes alone is not a feature (issue 42).
func TestPluginClasses(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"c.jsonl": `{"text": "apple pear", "label": "a"}
{"text": "apple plum", "label": "b"}
{"text": "zebra plum", "label": "c"}
{"text": "zebra pear", "label": "c"}
{"text": "apple zebra", "label": "a"}
`})
	all, err := loadText(t, dir, map[string]any{"file": "c.jsonl", "min_df": 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"apple", "pear", "plum", "zebra"}; !slices.Equal(all.Features, want) {
		t.Errorf("all classes: features %q; want %q", all.Features, want)
	}
	d, err := loadText(t, dir, map[string]any{"file": "c.jsonl", "min_df": 2, "classes": []any{"b", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b", "a"}; !slices.Equal(d.Classes, want) {
		t.Errorf("classes %q; want %q, the order given", d.Classes, want)
	}
	if want := []float64{1, 0, 1}; !slices.Equal(d.Y, want) {
		t.Errorf("labels %v; want %v (rows a, b, a in the file's order)", d.Y, want)
	}
	// In the three documents kept only apple occurs twice.
	if want := []string{"apple"}; !slices.Equal(d.Features, want) {
		t.Errorf("features %q; want %q, the vocabulary of the documents kept", d.Features, want)
	}
	if want := []string{"apple pear", "apple plum", "apple zebra"}; !slices.Equal(d.Text, want) {
		t.Errorf("documents %q; want %q", d.Text, want)
	}
	for _, tc := range []struct {
		classes []any
		want    string
	}{
		{[]any{"a", "d"}, `classes: class "d" has no documents; the classes present: a, b, c`},
		{[]any{"a", "a"}, `classes: "a" is listed twice; want each class once`},
	} {
		_, err := loadText(t, dir, map[string]any{"file": "c.jsonl", "classes": tc.classes})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("classes %v: %v; want %q", tc.classes, err, tc.want)
		}
	}
}
