package conformance_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/repro-ml/repro/param"
)

// resolve returns the values a spec that sets only given would hand the
// plugin what: every declared default, then given converted and range
// checked by its declaration, as the runner does. It fails t on a default
// its own declaration rejects or that is not already of the declared Go
// type (a Default of 1 for a float), on a name that is not declared, and on
// a required parameter given has no value for.
func resolve(t *testing.T, what string, decls []param.Decl, given map[string]any) param.Values {
	t.Helper()
	out := param.Values{}
	for _, d := range decls {
		if d.Required() {
			continue
		}
		v, err := d.Convert(asYAML(d.Default))
		if err != nil {
			t.Errorf("%s: param %s: declared default %s is rejected by its own declaration: %v", what, d.Name, param.Format(d.Default), err)
			continue
		}
		if reflect.TypeOf(v) != reflect.TypeOf(d.Default) {
			t.Errorf("%s: param %s: declared default is a %T, want a %T (the declared type %s)", what, d.Name, d.Default, v, d.Type)
		}
		out[d.Name] = v
	}
	for k, x := range given {
		d, ok := param.Find(decls, k)
		if !ok {
			t.Fatalf("%s: the suite sets param %q, which is not declared (declared: %v)", what, k, param.Names(decls))
		}
		v, err := d.Convert(asYAML(x))
		if err != nil {
			t.Fatalf("%s: the suite's value of param %s: %v", what, k, err)
		}
		out[k] = v
	}
	for _, d := range decls {
		if _, ok := out[d.Name]; !ok && d.Required() {
			t.Fatalf("%s: required param %s (%s) has no value: add one to the conformance suite's table for %s", what, d.Name, d.Range(), what)
		}
	}
	return out
}

// variants returns valid values of d other than cur, for checking that a
// plugin accepts every declared parameter: the other choices of an enum,
// the negation of a bool, a neighbour of a number inside the declared range,
// a list without its last element. A string or a map has no generic valid
// alternative (a file name, a graph name) and gets none.
func variants(d param.Decl, cur any) []any {
	var cands []any
	switch d.Type {
	case param.Bool:
		cands = []any{!cur.(bool)}
	case param.Enum:
		for _, c := range d.Choices {
			cands = append(cands, c)
		}
	case param.Int:
		x := cur.(int)
		cands = []any{x + 1, x - 1}
	case param.Float:
		x := cur.(float64)
		cands = []any{x / 2, 2 * x, x + 1, x - 1}
	case param.FloatList, param.IntList, param.StringList:
		if n := reflect.ValueOf(cur).Len(); n >= 2 {
			cands = []any{reflect.ValueOf(cur).Slice(0, n-1).Interface()}
		}
	}
	var out []any
	for _, c := range cands {
		v, err := d.Convert(asYAML(c))
		if err != nil || reflect.DeepEqual(v, cur) || slices.ContainsFunc(out, func(o any) bool { return reflect.DeepEqual(o, v) }) {
			continue
		}
		out = append(out, v)
		if d.Type != param.Enum {
			break // one neighbour is enough
		}
	}
	return out
}

// variantName labels a subtest "name=value".
func variantName(name string, v any) string { return fmt.Sprintf("%s=%s", name, param.Format(v)) }

// asYAML returns v as the YAML decoder would give it to Decl.Convert: a
// typed slice becomes a []any.
func asYAML(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return v
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out
}
