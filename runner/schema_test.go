package runner

import (
	"os"
	"testing"

	"github.com/repro-ml/repro/param"
)

func TestMain(m *testing.M) {
	registerStandIns()
	os.Exit(m.Run())
}

// registerStandIns registers the split kinds, select rules and protocols
// the spec tests name, with the declarations of the real ones, where no
// plugin of that name is compiled in. It runs after every init, so a real
// plugin always wins.
func registerStandIns() {
	counts := func(v any) error {
		if f, _ := v.(float64); f >= 1 && f != float64(int64(f)) {
			return errorString("is not a whole number of rows; want a count ≥ 1 or a fraction in (0, 1)")
		}
		return nil
	}
	splits := map[string]*Splitter{
		"given": {Doc: "the dataset's own split"},
		"holdout": {Doc: "a random test set per trial", Params: []param.Decl{
			{Name: "test", Type: param.Float, Min: param.Bound(0), MinExclusive: true, Check: counts, Doc: "the test set size: a count ≥ 1 or a fraction in (0, 1) of the rows"},
			{Name: "stratify", Type: param.Bool, Default: false, Doc: "draw the test set in proportion to the classes"},
		}},
		"rest":  {Doc: "every row not trained on"},
		"train": {Doc: "the training rows (in-sample)"},
		"kfold": {Doc: "k folds × r repeats", Params: []param.Decl{
			{Name: "folds", Type: param.Int, Default: 10, Min: param.Bound(2), Doc: "folds"},
			{Name: "repeats", Type: param.Int, Default: 1, Min: param.Bound(1), Doc: "repeats"},
			{Name: "stratify", Type: param.Bool, Default: true, Doc: "folds stratified by class"},
		}, Replicates: func(p param.Values) int { return p.Int("folds") * p.Int("repeats") }},
	}
	for name, s := range splits {
		if _, err := Splitters.Lookup(name); err != nil {
			Splitters.Register(name, s)
		}
	}
	for name, s := range map[string]*Selector{"fixed": {}, "cv": {Chooses: true}, "test": {Chooses: true, Oracle: true}} {
		if _, err := Selectors.Lookup(name); err != nil {
			Selectors.Register(name, s)
		}
	}
	if _, err := Protocols.Lookup("curve"); err != nil {
		Protocols.Register("curve", &Protocol{Doc: "training-size curve", PerSize: true})
	}
	Protocols.Register("fake-active", &Protocol{Doc: "a pool-based loop (test fixture)", Params: []param.Decl{
		{Name: "initial", Type: param.Int, Default: 10, Min: param.Bound(1), Doc: "initial labelled rows"},
		{Name: "batch", Type: param.Int, Default: 5, Min: param.Bound(1), Doc: "rows per query"},
		{Name: "budget", Type: param.Int, Min: param.Bound(1), Doc: "labels to spend"},
	}})
}

type errorString string

func (e errorString) Error() string { return string(e) }
