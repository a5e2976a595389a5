package param_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
)

// every declares one parameter of each kind the tags express.
type every struct {
	C       float64           `param:"C" range:"(0, +inf)" default:"1" doc:"inverse regularization strength"`
	Rho     float64           `param:"rho" range:"(0, 1]" default:"0.5" doc:"mixing"`
	Tol     float64           `param:"tol" range:"(0, +inf)" default:"1e-10" doc:"tolerance"`
	Shift   float64           `param:"shift" doc:"required, unbounded"`
	K       int               `param:"k" range:"[1, 10)" default:"5" doc:"neighbours"`
	Neg     int               `param:"neg" range:"(-inf, 0]" default:"-3" doc:"at most zero"`
	On      bool              `param:"on" default:"true" doc:"switch"`
	Name    string            `param:"name" default:"" doc:"empty by default" elem:"label"`
	Word    string            `param:"word,omitdefault" default:"abc" doc:"a word"`
	Kernel  string            `param:"kernel" enum:"linear|rbf" default:"linear" doc:"the kernel"`
	Sizes   []float64         `param:"sizes" range:"[0, 1]" default:"[0.25 0.5 1]" doc:"fractions"`
	Counts  []int             `param:"counts,nonempty,unique" default:"[1 2]" doc:"counts"`
	Words   []string          `param:"words" default:"[]" doc:"none by default"`
	Groups  map[string]string `param:"groups" default:"{}" doc:"column groups"`
	Free    map[string]string `param:",free" doc:"a grid value"`
	private int               // no tag: not a parameter
}

func TestOf(t *testing.T) {
	s := param.Of[every]()
	want := []param.Decl{
		{Name: "C", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true, Doc: "inverse regularization strength"},
		{Name: "rho", Type: param.Float, Default: 0.5, Min: param.Bound(0), MinExclusive: true, Max: param.Bound(1), Doc: "mixing"},
		{Name: "tol", Type: param.Float, Default: 1e-10, Min: param.Bound(0), MinExclusive: true, Doc: "tolerance"},
		{Name: "shift", Type: param.Float, Doc: "required, unbounded"},
		{Name: "k", Type: param.Int, Default: 5, Min: param.Bound(1), Max: param.Bound(10), MaxExclusive: true, Doc: "neighbours"},
		{Name: "neg", Type: param.Int, Default: -3, Max: param.Bound(0), Doc: "at most zero"},
		{Name: "on", Type: param.Bool, Default: true, Doc: "switch"},
		{Name: "name", Type: param.String, Default: "", Doc: "empty by default", Elem: "label"},
		{Name: "word", Type: param.String, Default: "abc", Doc: "a word", OmitDefault: true},
		{Name: "kernel", Type: param.Enum, Default: "linear", Choices: []string{"linear", "rbf"}, Doc: "the kernel"},
		{Name: "sizes", Type: param.FloatList, Default: []float64{0.25, 0.5, 1}, Min: param.Bound(0), Max: param.Bound(1), Doc: "fractions"},
		{Name: "counts", Type: param.IntList, Default: []int{1, 2}, NonEmpty: true, Unique: true, Doc: "counts"},
		{Name: "words", Type: param.StringList, Default: []string{}, Doc: "none by default"},
		{Name: "groups", Type: param.Map, Default: map[string]string{}, Doc: "column groups"},
	}
	if len(s.Params) != len(want) {
		t.Fatalf("%d params, want %d: %v", len(s.Params), len(want), param.Names(s.Params))
	}
	for i := range want {
		if !reflect.DeepEqual(s.Params[i], want[i]) {
			t.Errorf("param %d:\n got %#v\nwant %#v", i, s.Params[i], want[i])
		}
	}
	if s.Free == nil || !reflect.DeepEqual(*s.Free, param.Decl{Type: param.String, Doc: "a grid value"}) {
		t.Errorf("Free = %#v, want a String declaration with the doc", s.Free)
	}
	if param.Of[every]() != s {
		t.Error("Of derived the declarations twice")
	}
	// What `repro list` prints of them.
	for _, c := range []struct{ name, rng, def string }{
		{"C", "float in (0, +inf)", "1"},
		{"rho", "float in (0, 1]", "0.5"},
		{"shift", "float", "required"},
		{"k", "int in [1, 10)", "5"},
		{"neg", "int in (-inf, 0]", "-3"},
		{"name", "string", `""`},
		{"kernel", "enum (one of linear, rbf)", "linear"},
		{"sizes", "[]float in [0, 1]", "[0.25 0.5 1]"},
		{"words", "[]string", "[]"},
	} {
		d, _ := param.Find(s.Params, c.name)
		if d.Range() != c.rng || d.DefaultString() != c.def {
			t.Errorf("%s: Range %q, default %q; want %q, %q", c.name, d.Range(), d.DefaultString(), c.rng, c.def)
		}
	}
}

func TestOfEmbedded(t *testing.T) {
	type common struct {
		Tol float64 `param:"tol" default:"1e-6" doc:"tolerance"`
	}
	type plugin struct {
		Lambda float64 `param:"lambda" default:"1" doc:"penalty"`
		common
		Iter int `param:"max_iter" default:"100" doc:"cap"`
	}
	got := param.Names(param.Of[plugin]().Params)
	if want := []string{"lambda", "tol", "max_iter"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	x, err := param.Decode[plugin](param.Values{"tol": 0.5})
	if err != nil || x.Tol != 0.5 || x.Lambda != 1 || x.Iter != 100 {
		t.Errorf("Decode = %+v, %v; want tol 0.5 and the defaults", x, err)
	}
}

// Each malformed struct is refused when its declarations are derived,
// with a message naming the struct's field and what is wrong.
type (
	badKey struct {
		C float64 `param:"C" dflt:"1"`
	}
	badNoName struct {
		C float64 `param:"" doc:"x"`
	}
	badNoParam struct {
		C float64 `doc:"x"`
	}
	badType struct {
		C float32 `param:"C"`
	}
	badUnexported struct {
		c float64 `param:"C"`
	}
	badRange struct {
		C float64 `param:"C" range:"0, 1"`
	}
	badRangeInf struct {
		C float64 `param:"C" range:"[-inf, 1]"`
	}
	badRangeEmpty struct {
		C float64 `param:"C" range:"[2, 1]"`
	}
	badRangeType struct {
		C string `param:"C" range:"[0, 1]"`
	}
	badDefault struct {
		C float64 `param:"C" default:"one"`
	}
	badDefaultRange struct {
		C float64 `param:"C" range:"(0, +inf)" default:"0"`
	}
	badDefaultEnum struct {
		K string `param:"kernel" enum:"linear|rbf" default:"poly"`
	}
	badDefaultEmpty struct {
		K float64 `param:"x" default:""`
	}
	badDefaultList struct {
		K []int `param:"ks" default:"1 2"`
	}
	badEnumType struct {
		K int `param:"k" enum:"1|2"`
	}
	badOption struct {
		K []int `param:"ks,sorted"`
	}
	badOptionScalar struct {
		K int `param:"k,unique"`
	}
	badOmitRequired struct {
		K int `param:"k,omitdefault"`
	}
	badDuplicate struct {
		A float64 `param:"a"`
		B float64 `param:"a"`
	}
	badFreeType struct {
		F map[string]any `param:",free"`
	}
)

func TestOfPanics(t *testing.T) {
	tests := []struct {
		of   func()
		want string
	}{
		{func() { param.Of[badKey]() }, `param_test.badKey.C: unknown tag key "dflt"`},
		{func() { param.Of[badNoName]() }, `badNoName.C: param tag "" has no name`},
		{func() { param.Of[badNoParam]() }, `badNoParam.C: tag doc:"x" has no param key`},
		{func() { param.Of[badType]() }, "badType.C: unsupported type float32"},
		{func() { param.Of[badUnexported]() }, "badUnexported.c: a parameter's field must be exported"},
		{func() { param.Of[badRange]() }, `badRange.C: range "0, 1": want [lo, hi]`},
		{func() { param.Of[badRangeInf]() }, "badRangeInf.C: range \"[-inf, 1]\": -inf is an open bound"},
		{func() { param.Of[badRangeEmpty]() }, "badRangeEmpty.C: range \"[2, 1]\": empty range"},
		{func() { param.Of[badRangeType]() }, "badRangeType.C: range tag on a string"},
		{func() { param.Of[badDefault]() }, `badDefault.C: default "one": "one" is not a number`},
		{func() { param.Of[badDefaultRange]() }, `badDefaultRange.C: default "0": 0 is out of range; want float in (0, +inf)`},
		{func() { param.Of[badDefaultEnum]() }, `badDefaultEnum.K: default "poly": unknown value "poly"`},
		{func() { param.Of[badDefaultEmpty]() }, `badDefaultEmpty.K: default "": "" is not a number`},
		{func() { param.Of[badDefaultList]() }, `badDefaultList.K: default "1 2": want a list [a b c]`},
		{func() { param.Of[badEnumType]() }, "badEnumType.K: enum tag on a int"},
		{func() { param.Of[badOption]() }, `badOption.K: unknown param option "sorted"`},
		{func() { param.Of[badOptionScalar]() }, "badOptionScalar.K: option unique is for a list, not a int"},
		{func() { param.Of[badOmitRequired]() }, "badOmitRequired.K: option omitdefault without a default tag"},
		{func() { param.Of[badDuplicate]() }, `badDuplicate: two fields declare parameter "a"`},
		{func() { param.Of[badFreeType]() }, "badFreeType.F: a free field is a map[string]string"},
		{func() { param.Of[int]() }, "parameters of int: not a struct"},
	}
	for _, tc := range tests {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			tc.of()
			return ""
		}()
		if !strings.HasPrefix(msg, "param: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("panic %q, want it to contain %q", msg, tc.want)
		}
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		in      param.Values
		check   func(every) bool
		wantErr string
	}{
		{"defaults", param.Values{"shift": 0.0}, func(x every) bool {
			return x.C == 1 && x.Rho == 0.5 && x.Tol == 1e-10 && x.K == 5 && x.Neg == -3 && x.On && x.Name == "" &&
				x.Word == "abc" && x.Kernel == "linear" && reflect.DeepEqual(x.Sizes, []float64{0.25, 0.5, 1}) &&
				reflect.DeepEqual(x.Counts, []int{1, 2}) && x.Words != nil && len(x.Words) == 0 &&
				x.Groups != nil && len(x.Groups) == 0 && x.Free == nil
		}, ""},
		{"values", param.Values{"shift": -2.5, "C": 3.0, "k": 9, "on": false, "kernel": "rbf", "words": []string{"a"},
			"sizes": []float64{0}, "groups": map[string]string{"g": "a,b"}}, func(x every) bool {
			return x.Shift == -2.5 && x.C == 3 && x.K == 9 && !x.On && x.Kernel == "rbf" && x.Words[0] == "a" &&
				x.Sizes[0] == 0 && x.Groups["g"] == "a,b"
		}, ""},
		{"as YAML decodes them", param.Values{"shift": 1, "C": "0.5", "k": 2.0, "counts": []any{3, 4.0}, "sizes": 1},
			func(x every) bool {
				return x.Shift == 1 && x.C == 0.5 && x.K == 2 && reflect.DeepEqual(x.Counts, []int{3, 4}) &&
					reflect.DeepEqual(x.Sizes, []float64{1})
			}, ""},
		{"free values", param.Values{"shift": 0.0, "gamma": "2", "C0": 7}, func(x every) bool {
			return reflect.DeepEqual(x.Free, map[string]string{"gamma": "2", "C0": "7"})
		}, ""},
		{"missing required", param.Values{}, nil, `missing required parameter "shift"`},
		{"out of range", param.Values{"shift": 0.0, "C": 0.0}, nil, `parameter "C": 0 is out of range; want float in (0, +inf)`},
		{"upper bound excluded", param.Values{"shift": 0.0, "k": 10}, nil, `parameter "k": 10 is out of range; want int in [1, 10)`},
		{"list element out of range", param.Values{"shift": 0.0, "sizes": []float64{0.5, 2}}, nil, `parameter "sizes": 2 is out of range`},
		{"not a choice", param.Values{"shift": 0.0, "kernel": "rbg"}, nil, `parameter "kernel": unknown value "rbg" (did you mean "rbf"?)`},
		{"wrong type", param.Values{"shift": 0.0, "on": "yes"}, nil, `parameter "on": got "yes", want true or false`},
		{"not finite", param.Values{"shift": math.Inf(1)}, nil, `parameter "shift": +Inf is not allowed`},
	}
	for _, tc := range tests {
		x, err := param.Decode[every](tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !tc.check(x) {
			t.Errorf("%s: Decode = %+v, %v", tc.name, x, err)
		}
	}

	type closed struct {
		C float64 `param:"C" default:"1"`
	}
	if _, err := param.Decode[closed](param.Values{"c": 1.0}); err == nil || err.Error() != `unknown parameter "c"` {
		t.Errorf("undeclared value without a free field: error %v", err)
	}
	x, err := param.DecodeLax[every](param.Values{"k": 3})
	if err != nil || x.Shift != 0 || x.K != 3 || x.C != 0 || x.Sizes != nil {
		t.Errorf("DecodeLax = %+v, %v; want k 3 and zero values elsewhere", x, err)
	}
}

func TestDecodeCopies(t *testing.T) {
	a, _ := param.Decode[every](param.Values{"shift": 0.0})
	a.Sizes[0], a.Groups["x"] = 9, "y"
	b, _ := param.Decode[every](param.Values{"shift": 0.0})
	if b.Sizes[0] != 0.25 || len(b.Groups) != 0 {
		t.Errorf("a decoded default shares memory with the declaration: %v %v", b.Sizes, b.Groups)
	}
	in := param.Values{"shift": 0.0, "counts": []int{1}}
	c, _ := param.Decode[every](in)
	c.Counts[0] = 5
	if in["counts"].([]int)[0] != 1 {
		t.Error("a decoded list shares memory with the Values")
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	s := param.Of[every]()
	for _, in := range []param.Values{
		param.Defaults(s.Params).Clone(),
		{"C": 2.0, "rho": 1.0, "tol": 1e-3, "shift": -1.0, "k": 1, "neg": 0, "on": false, "name": "n", "word": "w",
			"kernel": "rbf", "sizes": []float64{0, 1}, "counts": []int{7}, "words": []string{"a", "b"},
			"groups": map[string]string{"a": "x"}, "gamma": "0.5"},
	} {
		if _, ok := in["shift"]; !ok {
			in["shift"] = 0.25
		}
		x, err := param.Decode[every](in)
		if err != nil {
			t.Fatal(err)
		}
		out := param.Encode(x)
		if !reflect.DeepEqual(out, in) {
			t.Errorf("Values → struct → Values:\n got %v\nwant %v", out.Label(), in.Label())
		}
		y, err := param.Decode[every](out)
		if err != nil || !reflect.DeepEqual(x, y) {
			t.Errorf("struct → Values → struct: %+v, %v; want %+v", y, err, x)
		}
		if !reflect.DeepEqual(param.Encode(&x), out) {
			t.Error("Encode of a pointer differs from Encode of the struct")
		}
	}
}

// pipeline is embedded with other defaults by TestOfEmbeddedDefaults.
type pipeline struct {
	Stop   string   `param:"stop_words" enum:"none|smart" default:"smart" doc:"stop words"`
	NGrams int      `param:"ngrams" range:"[1, 5]" default:"1" doc:"n-grams"`
	Words  []string `param:"words" default:"[a]" doc:"words"`
}

func TestOfEmbeddedDefaults(t *testing.T) {
	type loader struct {
		File     string `param:"file" doc:"the file"`
		pipeline `defaults:"stop_words=none; ngrams=2; words=[b c]"`
	}
	type plain struct {
		pipeline
	}
	ds := param.Of[loader]().Params
	if got := param.Defaults(ds); !reflect.DeepEqual(got, param.Values{"stop_words": "none", "ngrams": 2, "words": []string{"b", "c"}}) {
		t.Errorf("defaults %v; want those of the defaults tag", got.Label())
	}
	if got := param.Defaults(param.Of[plain]().Params); !reflect.DeepEqual(got, param.Values{"stop_words": "smart", "ngrams": 1, "words": []string{"a"}}) {
		t.Errorf("plain embedding: defaults %v; want the embedded struct's own", got.Label())
	}
	x, err := param.Decode[loader](param.Values{"file": "f"})
	if err != nil || x.Stop != "none" || x.NGrams != 2 || x.File != "f" {
		t.Errorf("Decode = %+v, %v", x, err)
	}
}

type (
	badDefaultsName struct {
		pipeline `defaults:"stopwords=none"`
	}
	badDefaultsValue struct {
		pipeline `defaults:"ngrams=9"`
	}
	badDefaultsSyntax struct {
		pipeline `defaults:"ngrams"`
	}
	badDefaultsKey struct {
		pipeline `param:"p"`
	}
)

func TestOfEmbeddedDefaultsPanics(t *testing.T) {
	for _, tc := range []struct {
		of   func()
		want string
	}{
		{func() { param.Of[badDefaultsName]() }, `badDefaultsName.pipeline: defaults "stopwords=none": the embedded struct declares no parameter "stopwords"; want one of stop_words, ngrams, words`},
		{func() { param.Of[badDefaultsValue]() }, `badDefaultsValue.pipeline: defaults "ngrams=9": ngrams: 9 is out of range; want int in [1, 5]`},
		{func() { param.Of[badDefaultsSyntax]() }, `badDefaultsSyntax.pipeline: defaults "ngrams": "ngrams" is not name=value`},
		{func() { param.Of[badDefaultsKey]() }, `badDefaultsKey.pipeline: an embedded struct takes no tag but defaults`},
	} {
		if msg := panicOf(tc.of); !strings.Contains(msg, tc.want) {
			t.Errorf("panic %q, want it to contain %q", msg, tc.want)
		}
	}
}

// checked has a parameter with a check beyond its range: a whole number.
type checked struct {
	N float64 `param:"n" range:"(0, +inf)" check:"Whole" doc:"a count"`
}

func (checked) Whole(v any) error {
	if f := v.(float64); f != float64(int64(f)) {
		return errors.New("is not a whole number")
	}
	return nil
}

type badCheckMissing struct {
	N float64 `param:"n" check:"Whole" doc:"a count"`
}

type badCheckSignature struct {
	N float64 `param:"n" check:"Whole" doc:"a count"`
}

func (badCheckSignature) Whole(v float64) error { return nil }

func TestOfCheck(t *testing.T) {
	d := param.Of[checked]().Params[0]
	if d.Check == nil {
		t.Fatal("check tag: Decl.Check is nil")
	}
	if err := d.Check(3.0); err != nil {
		t.Errorf("Check(3) = %v, want nil", err)
	}
	if err := d.Check(2.5); err == nil || err.Error() != "is not a whole number" {
		t.Errorf("Check(2.5) = %v, want the method's error", err)
	}
	if _, err := param.Decode[checked](param.Values{"n": 2.5}); err == nil || !strings.Contains(err.Error(), "is not a whole number") {
		t.Errorf("Decode of n=2.5: %v, want the check's error", err)
	}
	for _, tc := range []struct {
		of   func()
		want string
	}{
		{func() { param.Of[badCheckMissing]() }, `badCheckMissing.N: check "Whole": param_test.badCheckMissing has no method Whole`},
		{func() { param.Of[badCheckSignature]() }, `badCheckSignature.N: check "Whole": method Whole is func(param_test.badCheckSignature, float64) error; want func(v any) error`},
	} {
		if msg := panicOf(tc.of); !strings.Contains(msg, tc.want) {
			t.Errorf("panic %q, want it to contain %q", msg, tc.want)
		}
	}
}

// twoCounts has two parameters, one with a default.
type twoCounts struct {
	K int     `param:"k" range:"[2, +inf)" default:"10" doc:"a count"`
	N float64 `param:"n" check:"Whole" doc:"a whole number"`
}

func (twoCounts) Whole(v any) error { return checked{}.Whole(v) }

func TestDecodeValid(t *testing.T) {
	tests := []struct {
		in   param.Values
		want twoCounts
	}{
		{param.Values{"k": 3, "n": 4.0}, twoCounts{K: 3, N: 4}},
		{param.Values{}, twoCounts{}},                                   // missing: zero, not the default
		{param.Values{"k": 1, "n": 4.0}, twoCounts{N: 4}},               // out of range
		{param.Values{"k": 3, "n": 2.5}, twoCounts{K: 3}},               // refused by the check
		{param.Values{"k": "three", "n": 4.0, "x": 1}, twoCounts{N: 4}}, // the wrong type; an unknown key
	}
	for _, tc := range tests {
		if got := param.DecodeValid[twoCounts](tc.in); got != tc.want {
			t.Errorf("DecodeValid(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// panicOf returns what f panics with, or "" if it returns.
func panicOf(f func()) (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	f()
	return ""
}
