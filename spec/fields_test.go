package spec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
)

// The types below stand for sections of a spec, each declaring its keys as
// the spec's types do; their docs are given in testDocs.

type goodSection struct {
	Kind  string         `yaml:"kind" spec:"tag" enum:"a|b"`
	Size  int            `yaml:"size,omitempty" range:"[1, maxTrials]" default:"DefaultFolds" elem:"size"`
	Rate  *float64       `yaml:"rate,omitempty" spec:"optional" range:"(0, 1)"`
	Names []string       `yaml:"names" spec:"nonempty,unique" check:"id" want:"some names"`
	Sub   goodSub        `yaml:"sub" default:"{mode: x}"`
	Items []goodSub      `yaml:"items,omitempty" spec:"optional"`
	Args  map[string]any `yaml:"args" spec:"grid"`
	Pos   Pos            `yaml:"-"`
	skip  bool
}

type goodSub struct {
	Mode string `yaml:"mode" enum:"x|y"`
}

type badKey struct {
	A string `yaml:"a" defualt:"x"`
}

type badOption struct {
	A string `yaml:"a" spec:"optinal"`
}

type badRange struct {
	A int `yaml:"a" range:"[1, lots]"`
}

type badDefault struct {
	A int `yaml:"a" default:"many"`
}

type badEnumDefault struct {
	A string `yaml:"a" enum:"x|y" default:"z"`
}

type badCheck struct {
	A string `yaml:"a" check:"nope"`
}

type badHook struct {
	A string `yaml:"a" hook:"nope"`
}

type undocumented struct {
	B string `yaml:"b"`
}

type badType struct {
	A complex128 `yaml:"a"`
}

type twoTags struct {
	A string `yaml:"a" spec:"tag"`
	B string `yaml:"b" spec:"tag"`
}

type badSectionDefault struct {
	Sub goodSub `yaml:"sub" default:"{mode: z}"`
}

var testDocs = map[string]fieldDoc{
	"goodSection.Kind":  {"The kind.", ""},
	"goodSection.Size":  {"The size.", ""},
	"goodSection.Rate":  {"The rate.", "`none`"},
	"goodSection.Names": {"The names.", ""},
	"goodSection.Sub":   {"A section.", ""},
	"goodSection.Items": {"A list.", ""},
	"goodSection.Args":  {"A grid.", ""},
	"goodSub.Mode":      {"The mode.", ""},

	"badKey.A": {"A.", ""}, "badOption.A": {"A.", ""}, "badRange.A": {"A.", ""},
	"badDefault.A": {"A.", ""}, "badEnumDefault.A": {"A.", ""}, "badCheck.A": {"A.", ""},
	"badHook.A": {"A.", ""}, "badType.A": {"A.", ""}, "twoTags.A": {"A.", ""}, "twoTags.B": {"B.", ""},
	"badSectionDefault.Sub": {"A section.", ""},
}

// withTestDocs runs f with testDocs added to fieldDocs (no test of the
// package runs in parallel).
func withTestDocs(t *testing.T, f func()) {
	t.Helper()
	for k, v := range testDocs {
		fieldDocs[k] = v
	}
	defer func() {
		for k := range testDocs {
			delete(fieldDocs, k)
		}
	}()
	f()
}

func TestSectionOf(t *testing.T) {
	withTestDocs(t, func() {
		d := sectionOf(reflect.TypeFor[goodSection](), false)
		if d.Tag != "kind" {
			t.Errorf("tag %q, want kind", d.Tag)
		}
		if got := param.Names(d.Fields); strings.Join(got, " ") != "kind size rate names sub items args" {
			t.Fatalf("fields %v, want the keyed fields in order", got)
		}
		kind, size, rate, names, sub, items, args := d.Fields[0], d.Fields[1], d.Fields[2], d.Fields[3], d.Fields[4], d.Fields[5], d.Fields[6]
		if kind.Type != param.Enum || strings.Join(kind.Choices, "|") != "a|b" || !kind.Required() || kind.Doc != "The kind." {
			t.Errorf("kind: %+v", kind)
		}
		if size.Type != param.Int || size.Range() != "int in [1, 100000]" || size.Default != DefaultFolds || size.Elem != "size" {
			t.Errorf("size: %v %s default %v elem %q", size.Type, size.Range(), size.Default, size.Elem)
		}
		if rate.Type != param.Float || rate.Range() != "float in (0, 1)" || !rate.Optional || rate.DefaultText() != "`none`" {
			t.Errorf("rate: %s optional %v default %q", rate.Range(), rate.Optional, rate.DefaultText())
		}
		if names.Type != param.StringList || !names.NonEmpty || !names.Unique || names.Check == nil || names.Want != "some names" {
			t.Errorf("names: %+v", names)
		} else if err := names.Check("a/b"); err == nil {
			t.Errorf("names: check id accepts a/b")
		}
		if sub.Type != param.Section || len(sub.Fields) != 1 || !reflect.DeepEqual(sub.Default, map[string]any{"mode": "x"}) {
			t.Errorf("sub: %+v", sub)
		}
		if items.Type != param.SectionList || len(items.Fields) != 1 || !items.Optional {
			t.Errorf("items: %+v", items)
		}
		if args.Type != param.Params || !args.Grid {
			t.Errorf("args: %+v", args)
		}
	})
}

// A malformed declaration panics when the schema is derived, naming the
// type, the field and what is wrong.
func TestSectionOfPanics(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[badKey](), `spec.badKey.A: unknown tag key "defualt"`},
		{reflect.TypeFor[badOption](), `spec.badOption.A: unknown spec option "optinal"`},
		{reflect.TypeFor[badRange](), `spec.badRange.A: range "[1, lots]"`},
		{reflect.TypeFor[badDefault](), `spec.badDefault.A: default "many"`},
		{reflect.TypeFor[badEnumDefault](), `spec.badEnumDefault.A: default "z"`},
		{reflect.TypeFor[badCheck](), `spec.badCheck.A: no check "nope"`},
		{reflect.TypeFor[badHook](), `spec.badHook.A: no hook "nope"`},
		{reflect.TypeFor[undocumented](), `spec.undocumented.B: no doc comment`},
		{reflect.TypeFor[badType](), `spec.badType.A: unsupported type complex128`},
		{reflect.TypeFor[twoTags](), `spec.twoTags.B: a second tag field`},
		{reflect.TypeFor[badSectionDefault](), `spec.badSectionDefault.Sub: default "{mode: z}": z is not one of x, y`},
	} {
		t.Run(tc.typ.Name(), func(t *testing.T) {
			withTestDocs(t, func() {
				defer func() {
					r := recover()
					if msg, _ := r.(string); !strings.Contains(msg, tc.want) {
						t.Errorf("panic %v, want one containing %q", r, tc.want)
					}
				}()
				sectionOf(tc.typ, false)
			})
		})
	}
}
