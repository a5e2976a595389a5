package main

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

// Every experiment's stored spec reads back without the plugin registries
// (spec.ReadSpec) to the same plan, trial key for trial key, as the
// experiment itself: a results directory stays reportable after its
// plugins are gone.
func TestReadSpecExperiments(t *testing.T) {
	files, err := filepath.Glob("experiments/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no experiments: %v", err)
	}
	files = append(files, "testdata/iris.yaml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := spec.Load(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := runner.WriteSpec(dir, s); err != nil {
				t.Fatal(err)
			}
			s2, err := spec.ReadSpec(dir)
			if err != nil {
				t.Fatal(err)
			}
			if k1, k2 := trialKeys(t, s), trialKeys(t, s2); !reflect.DeepEqual(k1, k2) {
				t.Errorf("%d trial keys, %d after WriteSpec and ReadSpec; or they differ", len(k1), len(k2))
			}
			for i := range s.Methods {
				if a, b := s.Methods[i].Varying, s2.Methods[i].Varying; !reflect.DeepEqual(a, b) {
					t.Errorf("method %s varies %v, %v after ReadSpec", s.Methods[i].Label, a, b)
				}
			}
		})
	}
}

func trialKeys(t *testing.T, s *spec.Spec) []string {
	t.Helper()
	p, err := spec.NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(p.Trials))
	for i, tr := range p.Trials {
		keys[i] = tr.Key
	}
	return keys
}
