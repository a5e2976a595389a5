package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// csrOf builds a CSR matrix from dense rows.
func csrOf(c int, rows ...[]float64) *matrix.CSR {
	b := matrix.NewBuilder(c)
	for _, r := range rows {
		for j, v := range r {
			if v != 0 {
				b.Add(j, v)
			}
		}
		b.EndRow()
	}
	return b.Build()
}

func applyErr(name string, d *datasets.Dataset, over param.Values) (*datasets.Dataset, error) {
	tr, err := datasets.LookupTransform(name)
	if err != nil {
		return nil, err
	}
	p := param.Defaults(tr.Params)
	for k, v := range over {
		p[k] = v
	}
	return tr.Apply(context.Background(), datasets.Env{}, d, p)
}

// TestDegenerateInputs runs the graph builders on corpora at the edge: a
// feature in no document, a single document, k above the feature count, no
// features at all; each must give a well-formed graph equal to the brute
// force (or the stated empty graph), never a panic.
func TestDegenerateInputs(t *testing.T) {
	tests := []struct {
		name string
		x    *matrix.CSR
		k    int
	}{
		{"feature 1 in no document", csrOf(3, []float64{1, 0, 1}, []float64{1, 0, 0}, []float64{0, 0, 2}), 2},
		{"a single document", csrOf(4, []float64{1, 2, 0, 1}), 3},
		{"k larger than the feature count", csrOf(3, []float64{1, 1, 0}, []float64{0, 1, 1}), 50},
		{"no documents", csrOf(3), 2},
		{"no features", csrOf(0, []float64{}, []float64{}), 2},
		{"one feature", csrOf(1, []float64{1}, []float64{0}), 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Cooccurrence(context.Background(), tc.x, tc.k, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Check(); err != nil || w.R != tc.x.C || w.C != tc.x.C {
				t.Fatalf("cooccurrence graph %d×%d: %v", w.R, w.C, err)
			}
			want := bruteCooccurrence(tc.x, tc.k, 0)
			got := dense(w)
			for j := range want {
				for l := range want[j] {
					if abs(got[j][l]-want[j][l]) > 1e-12 {
						t.Fatalf("W[%d][%d] = %v, want %v", j, l, got[j][l], want[j][l])
					}
				}
			}
			if tc.x.C == 0 {
				return
			}
			lw, err := LexiconCorrelation(context.Background(), tc.x, []int{0}, tc.k, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := lw.Check(); err != nil || lw.R != tc.x.C {
				t.Fatalf("lexicon graph %d×%d: %v", lw.R, lw.C, err)
			}
			for j := 0; j < lw.R; j++ {
				if lw.At(j, j) != 0 {
					t.Fatalf("self-link at %d", j)
				}
				for l := 0; l < lw.R; l++ {
					if lw.At(j, l) != lw.At(l, j) {
						t.Fatalf("not symmetric at %d,%d", j, l)
					}
				}
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestNoLexiconWord checks that both lexicon transforms fail with a clear
// error on a corpus none of whose words is in the lexicon.
func TestNoLexiconWord(t *testing.T) {
	d := &datasets.Dataset{Name: "tiny", X: csrOf(3, []float64{1, 0, 1}, []float64{0, 1, 1}), Y: []float64{0, 1},
		Classes: []string{"a", "b"}, Features: []string{"qzx", "vvk", "zzq"}}
	for _, tc := range []struct {
		name string
		over param.Values
		want string
	}{
		{"lexicon-correlation", param.Values{"min_count": 1}, "lexicon-correlation: no bing lexicon word is among the features in ≥ 1 documents"},
		{"lexicon-classes", nil, `lexicon-classes: no feature of dataset "tiny" is a word of the bing lexicon's classes positive, negative`},
	} {
		if _, err := applyErr(tc.name, d, tc.over); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	d.Features = nil
	for _, name := range []string{"lexicon-correlation", "lexicon-classes"} {
		if _, err := applyErr(name, d, nil); err == nil || !strings.Contains(err.Error(), "no feature names") {
			t.Errorf("%s without feature names: error %v", name, err)
		}
	}
}

// FuzzCooccurrence builds small 0/1/2 matrices from bytes and checks the
// co-occurrence graph against the brute force for any k and threshold.
func FuzzCooccurrence(f *testing.F) {
	f.Add([]byte{3, 4, 1, 0, 2, 1, 0, 0, 1, 1, 2, 0, 0, 1}, uint8(2), uint8(10))
	f.Add([]byte{1, 5, 1, 1, 0, 0, 1}, uint8(9), uint8(0))
	f.Add([]byte{0, 3}, uint8(1), uint8(50))
	f.Fuzz(func(t *testing.T, data []byte, k, th uint8) {
		if len(data) < 2 {
			return
		}
		r, c := int(data[0]%9), int(data[1]%9)
		rows := make([][]float64, r)
		for i := range rows {
			rows[i] = make([]float64, c)
			for j := range rows[i] {
				if n := 2 + i*c + j; n < len(data) {
					rows[i][j] = float64(data[n] % 3)
				}
			}
		}
		x := csrOf(c, rows...)
		kk, tt := int(k%12)+1, float64(th%101)/100
		w, err := Cooccurrence(context.Background(), x, kk, tt)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		want := bruteCooccurrence(x, kk, tt)
		got := dense(w)
		for j := range want {
			for l := range want[j] {
				if abs(got[j][l]-want[j][l]) > 1e-12 {
					t.Fatalf("W[%d][%d] = %v, want %v", j, l, got[j][l], want[j][l])
				}
			}
		}
	})
}
