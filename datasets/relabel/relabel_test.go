package relabel

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

func groups() *datasets.Dataset {
	classes := []string{"alt.atheism", "comp.graphics", "talk.politics.guns", "talk.politics.misc", "talk.religion.misc"}
	X := matrix.NewDense(10, 2, nil)
	y := make([]float64, 10)
	for i := range y {
		y[i] = float64(i % 5)
		X.Set(i, 0, float64(i))
	}
	return &datasets.Dataset{Name: "g", X: X, Y: y, Classes: classes}
}

func TestRelabel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		classes map[string]string
		rest    string
		want    []string // classes
		rows    int
		labels  []float64 // of the first rows
		err     string
	}{
		{"nova", map[string]string{"talk.politics.*": "politics+religion", "talk.religion.*": "politics+religion"}, "other",
			[]string{"other", "politics+religion"}, 10, []float64{0, 0, 1, 1, 1, 0}, ""},
		{"one against another, the rest dropped", map[string]string{"alt.atheism": "A", "comp.graphics": "G"}, "",
			[]string{"A", "G"}, 4, []float64{0, 1, 0, 1}, ""},
		{"one class left", map[string]string{"alt.*": "A"}, "", nil, 0, nil, "want at least two"},
		{"conflict", map[string]string{"talk.*": "T", "talk.politics.*": "P"}, "x", nil, 0, nil, "matches patterns for both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := apply(context.Background(), datasets.Env{}, groups(), params{Classes: tc.classes, Rest: tc.rest})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v; want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(out.Classes, tc.want) || out.Rows() != tc.rows || !slices.Equal(out.Y[:len(tc.labels)], tc.labels) {
				t.Errorf("classes %v, %d rows, labels %v; want %v, %d, %v", out.Classes, out.Rows(), out.Y, tc.want, tc.rows, tc.labels)
			}
			if err := out.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRelabelLeavesInput(t *testing.T) {
	d := groups()
	y := slices.Clone(d.Y)
	if _, err := apply(context.Background(), datasets.Env{}, d, params{Classes: map[string]string{"alt.*": "A", "comp.*": "B"}, Rest: "C"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Y, y) || len(d.Classes) != 5 {
		t.Error("relabel modified its input")
	}
}

func TestValidate(t *testing.T) {
	if err := validate(params{Classes: map[string]string{"[": "x"}}); err == nil {
		t.Error("a bad glob validated")
	}
	if err := validate(params{Classes: map[string]string{}}); err == nil {
		t.Error("no pattern validated")
	}
}
