package param_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
)

func TestConvert(t *testing.T) {
	pos := param.Decl{Name: "C", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true}
	unit := param.Decl{Name: "rho", Type: param.Float, Default: 1.0, Min: param.Bound(0), Max: param.Bound(1)}
	k := param.Decl{Name: "k", Type: param.Int, Default: 5, Min: param.Bound(1)}
	enum := param.Decl{Name: "kernel", Type: param.Enum, Default: "linear", Choices: []string{"linear", "rbf"}}
	tests := []struct {
		d       param.Decl
		in      any
		want    any
		wantErr string
	}{
		{pos, 2, 2.0, ""},
		{pos, 0.5, 0.5, ""},
		{pos, "1e-3", 1e-3, ""},
		{pos, 0.0, nil, "0 is out of range; want float in (0, +inf)"},
		{pos, -1, nil, "-1 is out of range"},
		{pos, "x", nil, `got "x", want a number`},
		{pos, []any{1.0}, nil, "got a list, want a number"},
		{unit, 1.0, 1.0, ""},
		{unit, 1.5, nil, "1.5 is out of range; want float in [0, 1]"},
		{k, 3, 3, ""},
		{k, 3.0, 3, ""},
		{k, 2.5, nil, "got 2.5, want an integer"},
		{k, 0, nil, "0 is out of range; want int in [1, +inf)"},
		{enum, "rbf", "rbf", ""},
		{enum, "poly", nil, `unknown value "poly", want one of linear, rbf`},
		{enum, "rbg", nil, `unknown value "rbg" (did you mean "rbf"?), want one of linear, rbf`},
		{param.Decl{Type: param.Float, Min: param.Bound(0), MinExclusive: true, Max: param.Bound(1)}, 0.0, nil, "0 is out of range; want float in (0, 1]"},
		{param.Decl{Type: param.Float, Check: func(any) error { return fmt.Errorf("is odd; want even") }}, 3, nil, "3 is odd; want even"},
		{param.Decl{Type: param.Bool}, true, true, ""},
		{param.Decl{Type: param.Bool}, "yes", nil, "want true or false"},
		{param.Decl{Type: param.String}, 7, "7", ""},
		{param.Decl{Type: param.FloatList}, []any{1, 2.5}, []float64{1, 2.5}, ""},
		{param.Decl{Type: param.FloatList}, 3, []float64{3}, ""},
		{param.Decl{Type: param.IntList, Min: param.Bound(0)}, []any{1, -2}, nil, "-2 is out of range"},
		{param.Decl{Type: param.StringList}, []any{"a", 1}, []string{"a", "1"}, ""},
		{param.Decl{Type: param.IntList}, []any{1, "a"}, nil, `element 1: got "a", want an integer`},
		{param.Decl{Type: param.Map}, map[string]any{"size": "a,b"}, map[string]string{"size": "a,b"}, ""},
		{param.Decl{Type: param.Map}, []any{"a"}, nil, "want a mapping"},
	}
	for i, tc := range tests {
		got, err := tc.d.Convert(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%d: Convert(%v) error %v, want %q", i, tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%d: Convert(%v) = %#v, %v; want %#v", i, tc.in, got, err, tc.want)
		}
	}
}

func TestFormatAndLabel(t *testing.T) {
	v := param.Values{"C": 0.1, "k": 25, "on": true, "kernel": "rbf", "sizes": []int{1, 2},
		"groups": map[string]string{"b": "y", "a": "x"}}
	want := "C=0.1 groups={a: x, b: y} k=25 kernel=rbf on=true sizes=[1 2]"
	if got := v.Label(); got != want {
		t.Errorf("Label = %q, want %q", got, want)
	}
}

func TestDefaultString(t *testing.T) {
	tests := []struct {
		def  any
		want string
	}{
		{nil, "required"},
		{"", `""`},
		{"feature", "feature"},
		{0.31622776601683794, "0.3162"},
		{1e-6, "1e-06"},
		{25, "25"},
		{[]float64{0.1, 0.31622776601683794, 100}, "[0.1 0.3162 100]"},
		{[]string{"a", "b"}, "[a b]"},
	}
	for _, tc := range tests {
		if got := (param.Decl{Default: tc.def}).DefaultString(); got != tc.want {
			t.Errorf("DefaultString(%v) = %q, want %q", tc.def, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	known := []string{"logreg-l1", "logreg-l2", "ridge", "lasso"}
	for in, want := range map[string]string{"logreg-12": "logreg-l2", "Ridge": "ridge", "lasoo": "lasso", "svm": ""} {
		if got := param.Closest(in, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		d    param.Decl
		want string
	}{
		{param.Decl{Type: param.Float}, "float"},
		{param.Decl{Type: param.Float, Min: param.Bound(0), MinExclusive: true}, "float in (0, +inf)"},
		{param.Decl{Type: param.Int, Min: param.Bound(1), Max: param.Bound(10)}, "int in [1, 10]"},
		{param.Decl{Type: param.Enum, Choices: []string{"a", "b"}}, "enum (one of a, b)"},
	}
	for _, tc := range tests {
		if got := tc.d.Range(); got != tc.want {
			t.Errorf("Range = %q, want %q", got, tc.want)
		}
	}
}

func ExampleDecl_Convert() {
	c := param.Decl{Name: "C", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true}
	v, err := c.Convert(10)
	fmt.Println(v, err)
	_, err = c.Convert(-1)
	fmt.Println(err)
	// Output:
	// 10 <nil>
	// -1 is out of range; want float in (0, +inf)
}
