package conformance_test

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

// cloneMatrix returns a deep copy of m, of the same concrete type when it is
// a *matrix.Dense or a *matrix.CSR.
func cloneMatrix(m matrix.Matrix) matrix.Matrix {
	switch x := m.(type) {
	case nil:
		return nil
	case *matrix.Dense:
		r, c := x.Dims()
		return matrix.NewDense(r, c, slices.Clone(x.RawData()))
	case *matrix.CSR:
		return cloneCSR(x)
	}
	return matrix.ToDense(m)
}

func cloneCSR(m *matrix.CSR) *matrix.CSR {
	if m == nil {
		return nil
	}
	return &matrix.CSR{R: m.R, C: m.C, Ptr: slices.Clone(m.Ptr), Ind: slices.Clone(m.Ind), Val: slices.Clone(m.Val)}
}

// cloneDataset returns a deep copy of d: every slice, map and matrix is new.
func cloneDataset(d *datasets.Dataset) *datasets.Dataset {
	out := *d
	out.X = cloneMatrix(d.X)
	out.Y = slices.Clone(d.Y)
	out.Classes = slices.Clone(d.Classes)
	out.Features = slices.Clone(d.Features)
	out.Groups = nil
	for _, g := range d.Groups {
		out.Groups = append(out.Groups, datasets.Group{Name: g.Name, Columns: slices.Clone(g.Columns)})
	}
	out.Split = slices.Clone(d.Split)
	if d.Graphs != nil {
		out.Graphs = make(map[string]*matrix.CSR, len(d.Graphs))
		for k, g := range d.Graphs {
			out.Graphs[k] = cloneCSR(g)
		}
	}
	out.Text = slices.Clone(d.Text)
	out.Stats = maps.Clone(d.Stats)
	out.Notes = slices.Clone(d.Notes)
	return &out
}

// sameFloats reports whether a and b hold the same values bit for bit (so
// NaN equals NaN and 0 differs from −0).
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// diffMatrix describes how b differs from a, or returns "".
func diffMatrix(a, b matrix.Matrix) string {
	if (a == nil) != (b == nil) {
		return fmt.Sprintf("%T, want %T", b, a)
	}
	if a == nil {
		return ""
	}
	if fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
		return fmt.Sprintf("%T, want %T", b, a)
	}
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return fmt.Sprintf("%d×%d, want %d×%d", br, bc, ar, ac)
	}
	switch x := a.(type) {
	case *matrix.Dense:
		if !sameFloats(x.RawData(), b.(*matrix.Dense).RawData()) {
			return "different values"
		}
		return ""
	case *matrix.CSR:
		y := b.(*matrix.CSR)
		if !slices.Equal(x.Ptr, y.Ptr) || !slices.Equal(x.Ind, y.Ind) || !sameFloats(x.Val, y.Val) {
			return "different entries"
		}
		return ""
	}
	if !sameFloats(matrix.ToDense(a).RawData(), matrix.ToDense(b).RawData()) {
		return "different values"
	}
	return ""
}

// diffDataset lists the fields in which b differs from a; ignore names
// fields left out of the comparison.
func diffDataset(a, b *datasets.Dataset, ignore ...string) []string {
	var out []string
	add := func(field string, differ bool, how string) {
		if differ && !slices.Contains(ignore, field) {
			out = append(out, field+": "+how)
		}
	}
	add("Name", a.Name != b.Name, fmt.Sprintf("%q, want %q", b.Name, a.Name))
	if s := diffMatrix(a.X, b.X); s != "" {
		add("X", true, s)
	}
	add("Y", !sameFloats(a.Y, b.Y), "different targets")
	add("Classes", !slices.Equal(a.Classes, b.Classes), fmt.Sprintf("%q, want %q", b.Classes, a.Classes))
	add("Features", !slices.Equal(a.Features, b.Features), "different names")
	add("Groups", !slices.EqualFunc(a.Groups, b.Groups, func(g, h datasets.Group) bool {
		return g.Name == h.Name && slices.Equal(g.Columns, h.Columns)
	}), fmt.Sprintf("%v, want %v", b.Groups, a.Groups))
	add("Split", !slices.Equal(a.Split, b.Split), "different parts")
	if !maps.EqualFunc(a.Graphs, b.Graphs, func(g, h *matrix.CSR) bool { return diffMatrix(g, h) == "" }) {
		add("Graphs", true, "different graphs")
	}
	add("Text", !slices.Equal(a.Text, b.Text), "different documents")
	add("Stats", !maps.EqualFunc(untimed(a.Stats), untimed(b.Stats), func(x, y float64) bool { return sameFloats([]float64{x}, []float64{y}) }),
		fmt.Sprintf("%v, want %v", b.Stats, a.Stats))
	add("Notes", !slices.Equal(a.Notes, b.Notes), fmt.Sprintf("%q, want %q", b.Notes, a.Notes))
	return out
}

// nonFinite returns the index of the first NaN or infinite value of xs, or -1.
func nonFinite(xs []float64) int {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return i
		}
	}
	return -1
}

// matrixValues returns the stored values of m (all of them when dense).
func matrixValues(m matrix.Matrix) []float64 {
	switch x := m.(type) {
	case *matrix.Dense:
		return x.RawData()
	case *matrix.CSR:
		return x.Val
	}
	return matrix.ToDense(m).RawData()
}

// untimed returns stats without the wall-clock times (keys ending in
// ".seconds"), which a deterministic plugin may still record.
func untimed(stats map[string]float64) map[string]float64 {
	out := maps.Clone(stats)
	maps.DeleteFunc(out, func(k string, _ float64) bool { return strings.HasSuffix(k, ".seconds") })
	return out
}
