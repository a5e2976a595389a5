package plugintest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/plugintest"
	"github.com/repro-ml/repro/param"
)

type fake struct{}

func (fake) Fit(context.Context, *datasets.Dataset, *methods.Env) (methods.Model, error) {
	return nil, errors.New("not fitted")
}

// The fake plugin "plugintest-words" takes a list of words, each of which
// must be lower case, and a count of at most the number of words.
func init() {
	methods.Register("plugintest-words", &methods.Plugin{
		Params: []param.Decl{
			{Name: "words", Type: param.StringList, Default: []string{"a"}},
			{Name: "count", Type: param.Int, Default: 1, Min: param.Bound(0)},
		},
		New: func(p param.Values) (methods.Method, error) {
			if p.Int("count") == 7 {
				return nil, errors.New("seven")
			}
			return fake{}, nil
		},
		Validate: func(p param.Values) error {
			var errs []error
			for i, w := range p.Strings("words") {
				if w == "panic" {
					return errors.New("not an InvalidError")
				}
				if w != strings.ToLower(w) {
					errs = append(errs, param.InvalidElem("words", i, "%q has capitals; want lower case", w))
				}
			}
			if n := len(p.Strings("words")); p.Int("count") > n {
				errs = append(errs, errors.Join(param.Invalid("count", "%d is more than the %d words; want at most %d", p.Int("count"), n, n)))
			}
			return errors.Join(errs...)
		},
	})
}

func TestRun(t *testing.T) {
	plugintest.Run(t, "plugintest-words", []plugintest.Case{
		{Name: "defaults"},
		{Name: "declaration", Set: map[string]any{"count": -1, "words": "x"}, Want: []string{"count"}},
		{Name: "two bad words and a nested join", Set: map[string]any{"words": []any{"A", "b", "C"}, "count": 4},
			Want: []string{"words[0]", "words[2]", "count"}, Msg: `words[0]: "A" has capitals`},
		{Name: "New fails on a grid point that validates", Set: map[string]any{"count": 7, "words": []any{"a", "b", "c", "d", "e", "f", "g"}},
			Want: []string{"(New)"}, Msg: "seven"},
	})
}

func TestCheckErrors(t *testing.T) {
	tests := []struct {
		name   string
		plugin string
		set    map[string]any
		want   string
	}{
		{"unknown plugin", "plugintest-nope", nil, "plugintest-nope"},
		{"unknown parameter", "plugintest-words", map[string]any{"size": 1}, `no parameter "size"`},
		{"hook returns another error", "plugintest-words", map[string]any{"words": []any{"panic"}}, "not a *param.InvalidError"},
	}
	for _, tt := range tests {
		_, err := plugintest.Check(tt.plugin, tt.set)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func ExampleCheck() {
	errs, err := plugintest.Check("plugintest-words", map[string]any{"words": []any{"Go", "is", "FUN"}})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(plugintest.Places(errs))
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// [words[0] words[2]]
	// words[0]: "Go" has capitals; want lower case
	// words[2]: "FUN" has capitals; want lower case
}
