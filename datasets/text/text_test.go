package text

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"don't stop-me now2day", []string{"don", "t", "stop", "me", "now", "day"}},
		{"caf\xc3\xa9 na\xefve", []string{"caf", "na", "ve"}}, // non-ASCII bytes separate
		{"  \r\n\t", nil},
		{"ABC\rdef", []string{"abc", "def"}},
		{"x", []string{"x"}},
	}
	for _, tt := range tests {
		if got := Tokenize(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// matrixOf returns the rows of m as term→value maps using vocab.
func matrixOf(m *matrix.CSR, vocab []string) []map[string]float64 {
	out := make([]map[string]float64, m.R)
	for i := range out {
		out[i] = map[string]float64{}
		m.Row(i, func(j int, v float64) { out[i][vocab[j]] = v })
	}
	return out
}

func TestVectorizer(t *testing.T) {
	docs := []string{
		"The cat sat on the mat. The cat!",
		"A dog sat on a log",
		"the CAT and the dog",
	}
	stop := map[string]bool{"the": true, "a": true, "on": true, "and": true}
	tests := []struct {
		name  string
		opt   Options
		vocab []string
		rows  []map[string]float64
	}{
		{
			name:  "counts, all words",
			opt:   Options{Weighting: Count},
			vocab: []string{"a", "and", "cat", "dog", "log", "mat", "on", "sat", "the"},
			rows: []map[string]float64{
				{"the": 3, "cat": 2, "sat": 1, "on": 1, "mat": 1},
				{"a": 2, "dog": 1, "sat": 1, "on": 1, "log": 1},
				{"the": 2, "cat": 1, "and": 1, "dog": 1},
			},
		},
		{
			name:  "log weighting, stop words, min_df 2",
			opt:   Options{StopWords: stop, MinDF: 2},
			vocab: []string{"cat", "dog", "sat"},
			rows: []map[string]float64{
				{"cat": math.Log(3), "sat": math.Log(2)},
				{"dog": math.Log(2), "sat": math.Log(2)},
				{"cat": math.Log(2), "dog": math.Log(2)},
			},
		},
		{
			name:  "bigrams after stop words, binary",
			opt:   Options{StopWords: stop, NGrams: 2, Weighting: Binary},
			vocab: []string{"cat", "cat_dog", "cat_sat", "dog", "dog_sat", "log", "mat", "mat_cat", "sat", "sat_log", "sat_mat"},
			rows: []map[string]float64{
				{"cat": 1, "sat": 1, "mat": 1, "cat_sat": 1, "sat_mat": 1, "mat_cat": 1},
				{"dog": 1, "sat": 1, "log": 1, "dog_sat": 1, "sat_log": 1},
				{"cat": 1, "dog": 1, "cat_dog": 1},
			},
		},
		{
			name:  "trigrams",
			opt:   Options{StopWords: stop, NGrams: 3, Weighting: Count, MinDF: 1, Keep: func(s string) bool { return strings.Count(s, "_") == 2 }},
			vocab: []string{"cat_sat_mat", "dog_sat_log", "sat_mat_cat"},
			rows: []map[string]float64{
				{"cat_sat_mat": 1, "sat_mat_cat": 1},
				{"dog_sat_log": 1},
				{},
			},
		},
		{
			name: "min_count and max_features",
			opt:  Options{MinCount: 2, MaxFeatures: 3, Weighting: Count},
			// count ≥ 2: the, cat, sat, on, dog (df 2) and a (df 1); the 3 in
			// most documents, ties alphabetical.
			vocab: []string{"cat", "dog", "on"},
			rows: []map[string]float64{
				{"cat": 2, "on": 1},
				{"dog": 1, "on": 1},
				{"cat": 1, "dog": 1},
			},
		},
	}
	for _, tt := range tests {
		v := NewVectorizer(tt.opt)
		for _, d := range docs {
			v.AddText(d)
		}
		m, vocab, err := v.Build()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if err := m.Check(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(vocab, tt.vocab) {
			t.Errorf("%s: vocabulary %q, want %q", tt.name, vocab, tt.vocab)
		}
		if got := matrixOf(m, vocab); fmt.Sprint(got) != fmt.Sprint(tt.rows) {
			t.Errorf("%s: rows %v, want %v", tt.name, got, tt.rows)
		}
	}
}

func TestVectorizerCountsAndReference(t *testing.T) {
	v := NewVectorizer(Options{MinDF: 2, Weighting: Count})
	v.AddCounts([]string{"good", "bad", "good"}, []float64{1, 2, 3})
	v.AddReference([]string{"bad", "movie"}, []float64{1, 1})
	v.AddCounts([]string{"movie", "zero"}, []float64{2, 0})
	m, vocab, err := v.Build()
	if err != nil {
		t.Fatal(err)
	}
	// The reference document makes bad and movie reach min_df 2 but is not a row.
	want := []map[string]float64{{"bad": 2}, {"movie": 2}}
	if got := matrixOf(m, vocab); v.Docs() != 2 || fmt.Sprint(got) != fmt.Sprint(want) || !slices.Equal(vocab, []string{"bad", "movie"}) {
		t.Errorf("rows %v vocab %q, want %v", got, vocab, want)
	}
	if _, _, err := NewVectorizer(Options{MinDF: 5}).Build(); err == nil {
		t.Error("empty vocabulary: no error")
	}
}

func TestParseACLLine(t *testing.T) {
	tests := []struct {
		in      string
		terms   []string
		counts  []float64
		label   string
		wantErr bool
	}{
		{"great_product:2 great:1 #label#:positive", []string{"great_product", "great"}, []float64{2, 1}, "positive", false},
		{"a:b:3 #label#:negative", []string{"a:b"}, []float64{3}, "negative", false},
		{"word:1", []string{"word"}, []float64{1}, "", false},
		{"word #label#:positive", nil, nil, "", true},
		{"word:x", nil, nil, "", true},
		{"word:-1", nil, nil, "", true},
		{"word:0x1p3", nil, nil, "", true},
		{"word:1_0", nil, nil, "", true},
		{"caf\xe9:1", nil, nil, "", true},
	}
	for _, tt := range tests {
		terms, counts, label, err := ParseACLLine(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseACLLine(%q): error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && (!slices.Equal(terms, tt.terms) || !slices.Equal(counts, tt.counts) || label != tt.label) {
			t.Errorf("ParseACLLine(%q) = %q %v %q", tt.in, terms, counts, label)
		}
	}
}

func TestStripHeaders(t *testing.T) {
	tests := []struct{ in, want string }{
		{"From: a\nSubject: b\n\nbody\n\nmore", "body\n\nmore"},
		{"From: a\r\n\r\nbody", "body"},
		{"no headers at all", "no headers at all"},
	}
	for _, tt := range tests {
		if got := StripHeaders(tt.in); got != tt.want {
			t.Errorf("StripHeaders(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// newsFixture is a tiny 20news-bydate collection: path → message.
var newsFixture = map[string]string{
	"20news-bydate-train/sci.space/1":        "From: ann@nasa\nSubject: orbit\n\nThe shuttle orbit and the moon.\n",
	"20news-bydate-train/sci.space/2":        "From: bob@nasa\nSubject: moon\n\nMoon landing, shuttle launch!\n",
	"20news-bydate-train/rec.autos/10":       "From: cid@cars\nSubject: engine\n\nMy engine and the car.\n",
	"20news-bydate-test/sci.space/3":         "From: dee@nasa\nSubject: launch\n\nLaunch the shuttle to orbit.\n",
	"20news-bydate-test/rec.autos/11":        "From: eve@cars\nSubject: car\n\nThe car engine, the car.\n",
	"20news-bydate-test/rec.autos/.DS_Store": "junk junk",
}

func writeNewsTar(t *testing.T, path string) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	dirs := map[string]bool{}
	names := make([]string, 0, len(newsFixture))
	for n := range newsFixture {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		for d := filepath.Dir(n); d != "."; d = filepath.Dir(d) {
			if !dirs[d] {
				dirs[d] = true
				if err := tw.WriteHeader(&tar.Header{Name: d + "/", Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
					t.Fatal(err)
				}
			}
		}
		body := newsFixture[n]
		if err := tw.WriteHeader(&tar.Header{Name: n, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeNewsDir(t *testing.T, root string) {
	for n, body := range newsFixture {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNewsgroupsFixture(t *testing.T) {
	dir := t.TempDir()
	writeNewsTar(t, filepath.Join(dir, "20news-bydate.tar.gz"))
	writeNewsDir(t, filepath.Join(dir, "unpacked"))
	type want struct {
		classes []string
		y       []float64
		split   []datasets.Part
		vocab   []string
	}
	all := want{
		classes: []string{"rec.autos", "sci.space"},
		// Order: train then test, by group then file name.
		y:     []float64{0, 1, 1, 0, 1},
		split: []datasets.Part{0, 0, 0, 1, 1},
		vocab: []string{"car", "engine", "launch", "moon", "orbit", "shuttle"},
	}
	tests := []struct {
		name string
		over param.Values
		want want
	}{
		{"tar.gz, headers stripped", param.Values{"min_df": 2, "strip_headers": true}, all},
		{"directory, headers stripped", param.Values{"file": "unpacked", "min_df": 2, "strip_headers": true}, all},
		{"headers kept", param.Values{"min_df": 2}, want{all.classes, all.y, all.split,
			// "subject" is in every header ("from" is a stop word); nasa and cars in the addresses.
			[]string{"car", "cars", "engine", "launch", "moon", "nasa", "orbit", "shuttle", "subject"}}},
	}
	for _, tt := range tests {
		d := load(t, "20news", dir, tt.over)
		if !slices.Equal(d.Classes, tt.want.classes) || !slices.Equal(d.Y, tt.want.y) || !slices.Equal(d.Split, tt.want.split) || !slices.Equal(d.Features, tt.want.vocab) {
			t.Errorf("%s: classes %v y %v split %v vocab %q; want %+v", tt.name, d.Classes, d.Y, d.Split, d.Features, tt.want)
		}
	}
	// One group is one class: refused at load (issue 31), not left to
	// fail every trial.
	_, err := loadWith("20news", dir, param.Values{"groups": []string{"rec.autos"}})
	if want := `20news: every message is in newsgroup "rec.autos"; a classification dataset needs at least two classes (list two or more in groups) (in ` + filepath.Join(dir, "20news-bydate.tar.gz") + ")"; err == nil || err.Error() != want {
		t.Errorf("one group: error %v\nwant %s", err, want)
	}
	// Values: log(1+count); message rec.autos/11 (row 3) has "car" twice.
	d := load(t, "20news", dir, param.Values{"min_df": 2, "strip_headers": true, "keep_text": true})
	car := slices.Index(d.Features, "car")
	if got := d.X.At(3, car); math.Abs(got-math.Log(3)) > 1e-15 {
		t.Errorf("x[car] = %v, want log 3", got)
	}
	if len(d.Text) != 5 || !strings.Contains(d.Text[3], "The car engine") {
		t.Errorf("Text not kept: %q", d.Text)
	}
	// Errors: a missing file names where it comes from; an unknown group.
	l, _ := datasets.Lookup("20news")
	p := param.Defaults(l.Params)
	p["file"] = "nope.tar.gz"
	if _, err := l.Load(context.Background(), datasets.Env{DataDir: dir}, p); err == nil || !strings.Contains(err.Error(), "Rennie") {
		t.Errorf("missing file: %v", err)
	}
	p = param.Defaults(l.Params)
	p["groups"] = []string{"comp.graphics"}
	if _, err := l.Load(context.Background(), datasets.Env{DataDir: dir}, p); err == nil {
		t.Error("unknown group: no error")
	}
}

func writeGz(t *testing.T, path, body string) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(body))
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProcessedACLFixture(t *testing.T) {
	dir := t.TempDir()
	kd := filepath.Join(dir, "amazon", "processed_acl", "kitchen")
	if err := os.MkdirAll(kd, 0o755); err != nil {
		t.Fatal(err)
	}
	writeGz(t, filepath.Join(kd, "positive.review.gz"),
		"great:2 great_blender:1 the_blender:1 blender:1 #label#:positive\ngreat:1 works:1 #label#:positive\n")
	// Plain file for negative.
	os.WriteFile(filepath.Join(kd, "negative.review"), []byte("broken:1 the_blender:1 blender:2 #label#:negative\n"), 0o644)
	tests := []struct {
		name  string
		over  param.Values
		vocab []string
		x     []map[string]float64
	}{
		{"unigrams and bigrams, counts", param.Values{"domain": "kitchen", "weighting": "count"},
			[]string{"blender", "broken", "great", "great_blender", "the_blender", "works"},
			[]map[string]float64{{"broken": 1, "the_blender": 1, "blender": 2}, {"great": 2, "great_blender": 1, "the_blender": 1, "blender": 1}, {"great": 1, "works": 1}}},
		{"unigrams, min_df 2, binary", param.Values{"domain": "kitchen", "ngrams": 1, "min_df": 2, "weighting": "binary"},
			[]string{"blender", "great"},
			[]map[string]float64{{"blender": 1}, {"great": 1, "blender": 1}, {"great": 1}}},
		{"stop words drop bigrams with a stop word", param.Values{"domain": "kitchen", "stop_words": "default", "weighting": "count"},
			[]string{"blender", "broken", "great", "great_blender", "works"},
			[]map[string]float64{{"broken": 1, "blender": 2}, {"great": 2, "great_blender": 1, "blender": 1}, {"great": 1, "works": 1}}},
		{"bing lexicon vocabulary", param.Values{"domain": "kitchen", "vocabulary": "lexicon:bing", "weighting": "count"},
			[]string{"broken", "great", "works"},
			[]map[string]float64{{"broken": 1}, {"great": 2}, {"great": 1, "works": 1}}},
	}
	for _, tt := range tests {
		d := load(t, "processed-acl", dir, tt.over)
		if !slices.Equal(d.Y, []float64{0, 1, 1}) || !slices.Equal(d.Classes, []string{"negative", "positive"}) {
			t.Errorf("%s: y %v classes %v", tt.name, d.Y, d.Classes)
		}
		if !slices.Equal(d.Features, tt.vocab) {
			t.Errorf("%s: vocabulary %q, want %q", tt.name, d.Features, tt.vocab)
		}
		if got := matrixOf(d.X.(*matrix.CSR), d.Features); fmt.Sprint(got) != fmt.Sprint(tt.x) {
			t.Errorf("%s: rows %v, want %v", tt.name, got, tt.x)
		}
	}
	// Unlabelled reviews count towards min_df only.
	writeGz(t, filepath.Join(kd, "unlabeled.review.gz"), "works:1 #label#:positive\n")
	d := load(t, "processed-acl", dir, param.Values{"domain": "kitchen", "ngrams": 1, "min_df": 2})
	if d.Rows() != 3 || !slices.Equal(d.Features, []string{"blender", "great", "works"}) || d.Stats["reviews.unlabeled"] != 1 {
		t.Errorf("with unlabeled: %d rows, vocabulary %q, stats %v", d.Rows(), d.Features, d.Stats)
	}
	// A label in the wrong file is an error.
	os.WriteFile(filepath.Join(kd, "negative.review"), []byte("bad:1 #label#:positive\n"), 0o644)
	l, _ := datasets.Lookup("processed-acl")
	p := param.Defaults(l.Params)
	p["domain"] = "kitchen"
	if _, err := l.Load(context.Background(), datasets.Env{DataDir: dir}, p); err == nil {
		t.Error("wrong label: no error")
	}
	p["domain"] = "books"
	if _, err := l.Load(context.Background(), datasets.Env{DataDir: dir}, p); err == nil || !strings.Contains(err.Error(), "Blitzer") {
		t.Errorf("missing domain: %v", err)
	}
}

func ExampleVectorizer() {
	v := NewVectorizer(Options{NGrams: 2, Weighting: Count})
	v.AddText("Good movie, good plot.")
	v.AddText("Bad movie!")
	x, vocab, _ := v.Build()
	fmt.Println(vocab)
	fmt.Println(x.Ptr, x.Ind, x.Val)
	// Output:
	// [bad bad_movie good good_movie good_plot movie movie_good plot]
	// [0 6 9] [2 3 4 5 6 7 0 1 5] [2 1 1 1 1 1 1 1 1]
}

func ExampleTokenize() {
	fmt.Println(Tokenize("It's 20 Newsgroups' best-known corpus!"))
	// Output: [it s newsgroups best known corpus]
}

func ExampleParseACLLine() {
	terms, counts, label, _ := ParseACLLine("great_blender:1 great:2 #label#:positive")
	fmt.Println(terms, counts, label)
	// Output: [great_blender great] [1 2] positive
}

func ExampleStripHeaders() {
	fmt.Printf("%q\n", StripHeaders("From: ann@nasa.gov\nSubject: orbit\n\nThe shuttle.\n"))
	// Output: "The shuttle.\n"
}

// TestNewsgroupsRefusals: a newsgroup folder whose name is not UTF-8 is
// refused, not made a class (issue 31).
func TestNewsgroupsRefusals(t *testing.T) {
	dir := t.TempDir()
	raw := rawTar(t, "20news-bydate-train/rec.autos/1", "car engine", "20news-bydate-train/caf\xe9/2", "coffee cup")
	if err := os.WriteFile(filepath.Join(dir, "20news-bydate.tar.gz"), gz(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadWith("20news", dir, nil)
	want := `20news: newsgroup folder: label "caf\xe9" is not valid UTF-8 (a damaged or binary file?) (in ` + filepath.Join(dir, "20news-bydate.tar.gz") + ")"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}
