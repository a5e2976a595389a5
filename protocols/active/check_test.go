package active

import (
	"fmt"
	"slices"
	"testing"

	_ "github.com/repro-ml/repro/datasets/embedded"
	_ "github.com/repro-ml/repro/methods/linear"
	"github.com/repro-ml/repro/spec"
)

// TestCheckPool checks the data check of the initial labelled rows against
// a dataset's pool: the protocol's value once, a method's own value where
// the method runs on the dataset, each reported at the key that sets it.
func TestCheckPool(t *testing.T) {
	for _, tc := range []struct {
		name    string
		methods string // the methods section's entries
		initial int    // the protocol's initial
		budget  int    // the protocol's budget
		pool    int
		want    []string
	}{
		{"fits", `{name: logreg-l2, label: a}`, 10, 10, 10, nil},
		{"protocol over", `{name: logreg-l2, label: a}`, 10, 10, 9,
			[]string{"protocol.initial: 10 initial labelled rows, but pool of 9; want at most 9",
				"protocol.budget: a budget of 10 labels, but pool of 9; want at most 9 (budgets: {d: N} sets one dataset's)"}},
		{"method over, protocol fits", `{name: logreg-l2, label: a, protocol: {initial: 20, budget: 30}}`, 5, 9, 9,
			[]string{"methods[0].protocol.initial: 20 initial labelled rows, but pool of 9; want at most 9",
				"methods[0].protocol.budget: a budget of 30 labels, but pool of 9; want at most 9 (budgets: {d: N} sets one dataset's)"}},
		{"method fits, protocol over", `{name: logreg-l2, label: a, protocol: {initial: 2}}`, 10, 10, 9,
			[]string{"protocol.initial: 10 initial labelled rows, but pool of 9; want at most 9",
				"protocol.budget: a budget of 10 labels, but pool of 9; want at most 9 (budgets: {d: N} sets one dataset's)"}},
		{"method on another dataset", `{name: logreg-l2, label: a, datasets: [other], protocol: {initial: 20, budget: 30}}`, 5, 9, 9, nil},
		// Issue 43: a budget beyond the pool was capped in silence.
		{"budget over", `{name: logreg-l2, label: a}`, 5, 100000, 100,
			[]string{"protocol.budget: a budget of 100000 labels, but pool of 100; want at most 100 (budgets: {d: N} sets one dataset's)"}},
		{"budgets entry over", `{name: logreg-l2, label: a, protocol: {budgets: {d: 200}}}`, 5, 50, 100,
			[]string{"methods[0].protocol.budgets.d: a budget of 200 labels, but pool of 100; want at most 100"}},
		{"budgets entry fits", `{name: logreg-l2, label: a, protocol: {budgets: {d: 100}}}`, 5, 50, 100, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(`name: t
datasets:
  - {name: iris, id: d}
  - {name: iris, id: other}
methods:
  - %s
protocol: {name: active, initial: %d, budget: %d}
metrics: [accuracy]
`, tc.methods, tc.initial, tc.budget)
			sp, err := spec.Parse("t.yaml", []byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			checkPool(sp, &sp.Datasets[0], tc.pool, fmt.Sprintf("pool of %d", tc.pool), func(path, format string, args ...any) {
				got = append(got, path+": "+fmt.Sprintf(format, args...))
			})
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
