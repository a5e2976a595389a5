package compress_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

func textDataset() *datasets.Dataset {
	docs := []string{"the cat sat on the mat", "the dog sat on the log", "", "a cat and a dog", "the cat sat"}
	return &datasets.Dataset{Name: "pets", X: matrix.NewDense(len(docs), 1, nil), Y: []float64{0, 1, 0, 1, 0},
		Classes: []string{"cat", "dog"}, Text: docs, Split: []datasets.Part{0, 0, 1, 1, 1},
		Groups: []datasets.Group{{Name: "g", Columns: []int{0}}}}
}

// TestTransforms runs each transform plugin as an experiment would and
// checks what it keeps, what it records and its error without text.
func TestTransforms(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		stats  []string
	}{
		{"compress", map[string]any{"k": 5, "lambda": 0.03}, []string{"compress.dictionary", "compress.objective.relaxed", "compress.objective.binary", "compress.objective.ratio", "compress.admm_iterations.round1", "compress.admm_iterations.round3", "compress.seconds"}},
		{"kgrams", map[string]any{"k": 2}, []string{"kgrams.features"}},
		{"lz77", map[string]any{"order": "alternating"}, []string{"lz77.features"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := datasets.LookupTransform(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			p := param.Defaults(tr.Params)
			for k, v := range tt.params {
				decl, _ := param.Find(tr.Params, k)
				if p[k], err = decl.Convert(v); err != nil {
					t.Fatal(err)
				}
			}
			in := textDataset()
			out, err := tr.Apply(context.Background(), datasets.Env{}, in, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := out.Validate(); err != nil {
				t.Fatal(err)
			}
			if out.Rows() != in.Rows() || len(out.Text) != len(in.Text) || out.Split[2] != datasets.SplitTest || out.Groups != nil {
				t.Errorf("rows, text, split kept and groups dropped: %d rows, %d docs, split %v, groups %v", out.Rows(), len(out.Text), out.Split, out.Groups)
			}
			if out.Rows() > 2 && out.X.NNZ() > 0 {
				out.X.Row(2, func(j int, v float64) { t.Errorf("the empty document has feature %s = %v", out.Features[j], v) })
			}
			for _, k := range tt.stats {
				if _, ok := out.Stats[k]; !ok {
					t.Errorf("Stats lack %s: %v", k, out.Stats)
				}
			}
			if in.Stats != nil || in.X.(*matrix.Dense) == nil {
				t.Error("input modified")
			}
			noText := textDataset()
			noText.Text = nil
			if _, err := tr.Apply(context.Background(), datasets.Env{}, noText, p); err == nil || !strings.Contains(err.Error(), "keep_text") {
				t.Errorf("without text: error %v; want one saying keep_text", err)
			}
		})
	}
}

// TestCompressLengthStats checks the dictionary and pointers by string
// length that compress records: they add up to the dictionary's size and
// to the pointers, and each string's length is its words (the names join
// words with "_"), on documents where λ makes longer strings pay.
func TestCompressLengthStats(t *testing.T) {
	docs := []string{
		"the quick brown fox jumps over the lazy dog",
		"the quick brown fox jumps over the lazy cat",
		"a quick brown fox and the lazy dog again",
		"the lazy dog sleeps while the quick brown fox jumps",
	}
	d := &datasets.Dataset{Name: "fox", X: matrix.NewDense(len(docs), 1, nil), Y: []float64{0, 1, 0, 1},
		Classes: []string{"a", "b"}, Text: docs, Split: []datasets.Part{0, 0, 1, 1}}
	tr, err := datasets.LookupTransform("compress")
	if err != nil {
		t.Fatal(err)
	}
	p := param.Defaults(tr.Params)
	p["k"], p["lambda"] = 5, 0.1
	out, err := tr.Apply(context.Background(), datasets.Env{}, d, p)
	if err != nil {
		t.Fatal(err)
	}
	st := out.Stats
	var strs, ptrs, long float64
	for n := 1; n <= 5; n++ {
		strs += st[fmt.Sprintf("compress.dictionary.k%d", n)]
		ptrs += st[fmt.Sprintf("compress.pointers.k%d", n)]
		if n > 1 {
			long += st[fmt.Sprintf("compress.dictionary.k%d", n)]
		}
	}
	if strs != st["compress.dictionary"] || ptrs != st["compress.pointers"] {
		t.Errorf("by length: %v strings, %v pointers; want %v, %v", strs, ptrs, st["compress.dictionary"], st["compress.pointers"])
	}
	var want [6]float64
	for _, f := range out.Features {
		want[strings.Count(f, "_")+1]++
	}
	for n := 1; n <= 5; n++ {
		if got := st[fmt.Sprintf("compress.dictionary.k%d", n)]; got != want[n] {
			t.Errorf("compress.dictionary.k%d = %v, want %v (features %v)", n, got, want[n], out.Features)
		}
	}
	if long == 0 {
		t.Errorf("no string longer than a word at λ = 0.1: %v", out.Features)
	}
}
