package methods_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// typedMethod is a method whose parameters are its own tagged fields.
type typedMethod struct {
	C    float64           `param:"C" range:"(0, +inf)" default:"1" doc:"strength"`
	Argv []string          `param:"argv,nonempty" doc:"a program"`
	Vars map[string]string `param:",free" doc:"a grid value"`
}

func (m *typedMethod) Fit(context.Context, *datasets.Dataset, *methods.Env) (methods.Model, error) {
	return nil, errors.New("not fitted")
}

// TestTyped: a Typed plugin's Params and Free come from its struct, and
// New, Validate, Memory and Programs receive a grid point as the struct
// (undeclared names in its free field; a missing value zero except for
// New, which refuses it).
func TestTyped(t *testing.T) {
	p := methods.Typed[typedMethod]{
		Doc:   "a test method",
		Kinds: methods.Classification,
		New:   func(p typedMethod) (methods.Method, error) { return &p, nil },
		Validate: func(p typedMethod) error {
			if len(p.Argv) == 0 {
				return param.Invalid("argv", "empty")
			}
			return nil
		},
		Memory:   func(s methods.Shape, p typedMethod) int64 { return int64(float64(s.Rows) * p.C) },
		Programs: func(p typedMethod) [][]string { return [][]string{p.Argv} },
	}.Plugin()
	s := param.Of[typedMethod]()
	if !reflect.DeepEqual(p.Params, s.Params) || p.Free != s.Free || p.Doc != "a test method" || p.Kinds != methods.Classification {
		t.Fatalf("Plugin: %+v", p)
	}
	m, err := p.New(param.Values{"C": 2.0, "argv": []string{"prog", "{x}"}, "x": "7"})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*typedMethod); got.C != 2 || !reflect.DeepEqual(got.Argv, []string{"prog", "{x}"}) || !reflect.DeepEqual(got.Vars, map[string]string{"x": "7"}) {
		t.Errorf("New received %+v", got)
	}
	if _, err := p.New(param.Values{"C": 2.0}); err == nil {
		t.Error("New without the required argv: no error")
	}
	var inv *param.InvalidError
	if err := p.Validate(param.Values{"C": 2.0}); !errors.As(err, &inv) || inv.Param != "argv" {
		t.Errorf("Validate without argv = %v; want the hook's error on argv", err)
	}
	if got := p.Memory(methods.Shape{Rows: 10}, param.Values{"C": 3.0}); got != 30 {
		t.Errorf("Memory = %d, want 30", got)
	}
	if got := p.Programs(param.Values{"argv": []string{"a", "b"}}); !reflect.DeepEqual(got, [][]string{{"a", "b"}}) {
		t.Errorf("Programs = %v", got)
	}
}
