package registry_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/repro-ml/repro/registry"
)

func TestRegistry(t *testing.T) {
	r := registry.New[int]("widget")
	r.Register("logreg-l1", 1)
	r.Register("logreg-l2", 2)
	r.Register("lasso", 3)
	if got := r.Names(); !slices.Equal(got, []string{"lasso", "logreg-l1", "logreg-l2"}) {
		t.Errorf("Names() = %v", got)
	}
	for _, tc := range []struct {
		name    string
		want    int
		suggest string // "" and ok: found
		ok      bool
	}{
		{"lasso", 3, "", true},
		{"logreg-l3", 0, "logreg-l1", false},
		{"laso", 0, "lasso", false},
		{"zzzzzzzzzz", 0, "", false},
	} {
		v, err := r.Lookup(tc.name)
		if tc.ok {
			if err != nil || v != tc.want {
				t.Errorf("Lookup(%q) = %d, %v; want %d", tc.name, v, err, tc.want)
			}
			continue
		}
		var ue *registry.UnknownError
		if !errors.As(err, &ue) {
			t.Fatalf("Lookup(%q) error %v, want *UnknownError", tc.name, err)
		}
		if ue.Kind != "widget" || ue.Suggest != tc.suggest || len(ue.Known) != 3 {
			t.Errorf("Lookup(%q) = %+v; want kind widget, suggestion %q, 3 known", tc.name, ue, tc.suggest)
		}
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	r := registry.New[string]("thing")
	r.Register("a", "x")
	for _, name := range []string{"a", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			r.Register(name, "y")
		}()
	}
}

func ExampleRegistry() {
	formats := registry.New[string]("format")
	formats.Register("csv", "comma-separated values")
	formats.Register("libsvm", "sparse label index:value lines")
	_, err := formats.Lookup("cvs")
	fmt.Println(err)
	// Output: unknown format "cvs" (did you mean "csv"?); registered: [csv libsvm]
}
