// Package plugintest helps test method plugins' parameter checks: Check
// runs a plugin's declarations and Validate hook on one grid point as the
// spec decoder does, Places names what they reject, and Run checks a table
// of grid points. It registers nothing.
package plugintest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// Check resolves set against the declarations of the method plugin name —
// its defaults, overridden by set's values as decoded from YAML (numbers,
// strings, booleans, []any for lists), each converted and range-checked by
// its declaration — and runs the plugin's Validate hook on the result, as
// the spec decoder does for one grid point. It returns every problem found:
// a declaration's rejection as a *param.InvalidError for the whole value,
// and what Validate returns, unjoined. When it finds none it also calls the
// plugin's New and returns New's error as a problem: a New that fails on a
// grid point that validates is a bug in the hook. An unknown plugin or
// parameter name is an error.
func Check(name string, set map[string]any) ([]*param.InvalidError, error) {
	pl, err := methods.Lookup(name)
	if err != nil {
		return nil, err
	}
	p := param.Defaults(pl.Params)
	var out []*param.InvalidError
	for _, k := range slices.Sorted(maps.Keys(set)) {
		v := set[k]
		d, ok := param.Find(pl.Params, k)
		if !ok {
			return nil, fmt.Errorf("plugintest: method %q has no parameter %q", name, k)
		}
		c, err := d.Convert(v)
		if err != nil {
			out = append(out, &param.InvalidError{Param: k, Elem: -1, Err: err})
			continue
		}
		p[k] = c
	}
	if out != nil {
		return out, nil
	}
	if pl.Validate != nil {
		if err := pl.Validate(p); err != nil {
			return Invalids(err)
		}
	}
	if _, err := pl.New(p); err != nil {
		return []*param.InvalidError{{Param: "(New)", Elem: -1, Err: err}}, nil
	}
	return nil, nil
}

// Invalids returns the *param.InvalidErrors that err is or joins. Any other
// error in it is returned as the error, as a Validate hook must not return
// one.
func Invalids(err error) ([]*param.InvalidError, error) {
	if err == nil {
		return nil, nil
	}
	if ie, ok := err.(*param.InvalidError); ok {
		return []*param.InvalidError{ie}, nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil, fmt.Errorf("plugintest: Validate returned %T, not a *param.InvalidError: %w", err, err)
	}
	var out []*param.InvalidError
	for _, e := range joined.Unwrap() {
		sub, err := Invalids(e)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

// Places returns where each error points: "name" for a whole value,
// "name[i]" for element i of a list.
func Places(errs []*param.InvalidError) []string {
	var out []string
	for _, e := range errs {
		s := e.Param
		if e.Elem >= 0 {
			s += "[" + strconv.Itoa(e.Elem) + "]"
		}
		out = append(out, s)
	}
	return out
}

// Case is one grid point of a plugin's validation table.
type Case struct {
	Name string
	Set  map[string]any // values as decoded from YAML; nil: the defaults
	Want []string       // Places of the errors, in order; nil: it validates
	Msg  string         // if set, a substring of the first error
}

// Run checks every case against the method plugin name with Check.
func Run(t testing.TB, name string, cases []Case) {
	t.Helper()
	for _, c := range cases {
		errs, err := Check(name, c.Set)
		if err != nil {
			t.Errorf("%s: %s: %v", name, c.Name, err)
			continue
		}
		if got := Places(errs); !slices.Equal(got, c.Want) {
			t.Errorf("%s: %s: errors at %q, want %q (%v)", name, c.Name, got, c.Want, errs)
			continue
		}
		if c.Msg != "" && !strings.Contains(errs[0].Error(), c.Msg) {
			t.Errorf("%s: %s: error %q, want it to contain %q", name, c.Name, errs[0], c.Msg)
		}
	}
}
