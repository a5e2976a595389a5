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
		pool    int
		want    []string
	}{
		{"fits", `{name: logreg-l2, label: a}`, 10, 10, nil},
		{"protocol over", `{name: logreg-l2, label: a}`, 10, 9,
			[]string{"protocol.initial: 10 initial labelled rows, but pool of 9; want at most 9"}},
		{"method over, protocol fits", `{name: logreg-l2, label: a, protocol: {initial: 20, budget: 30}}`, 5, 9,
			[]string{"methods[0].protocol.initial: 20 initial labelled rows, but pool of 9; want at most 9"}},
		{"method fits, protocol over", `{name: logreg-l2, label: a, protocol: {initial: 2}}`, 10, 9,
			[]string{"protocol.initial: 10 initial labelled rows, but pool of 9; want at most 9"}},
		{"method on another dataset", `{name: logreg-l2, label: a, datasets: [other], protocol: {initial: 20, budget: 30}}`, 5, 9, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(`name: t
datasets:
  - {name: iris, id: d}
  - {name: iris, id: other}
methods:
  - %s
protocol: {name: active, initial: %d, budget: 40}
metrics: [accuracy]
`, tc.methods, tc.initial)
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
