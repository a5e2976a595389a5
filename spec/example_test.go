package spec_test

import (
	"fmt"
	"os"

	_ "github.com/repro-ml/repro/plugins" // the method and dataset plugins, and the active protocol
	_ "github.com/repro-ml/repro/runner"  // the split kinds, select rules and the curve protocol
	"github.com/repro-ml/repro/spec"
)

func ExampleParse() {
	sp, err := spec.Parse("quickstart.yaml", []byte(`name: quickstart
datasets: [{name: iris, split: {kind: holdout, test: 50}}]
methods:
  - {name: logreg-l2, label: l2, params: {C: [0.1, 1]}}
  - {name: logreg-l2, label: cv, params: {C: [0.1, 1]}, select: {rule: cv}}
curve: {sizes: [20, 0.5], trials: 3}
metrics: [accuracy]
`), []string{"curve.trials=2"})
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		fmt.Println(err)
		return
	}
	plan.Describe(os.Stdout)
	// Output:
	// experiment quickstart: 1 dataset × 2 methods, 2 sizes × 2 trials (seed 1)
	// sizes: 20, 50%
	// sampling: random (training rows drawn uniformly from the pool)
	// dataset iris: iris, split holdout (test 50 rows, random)
	// method l2: logreg-l2, 2 grid points, select fixed, varying C
	// method cv: logreg-l2, 2 grid points, select cv (5 folds by accuracy), varying C
	// 1 dataset × 2 methods (4 grid points) × 2 sizes × 2 trials = 12 trials, 52 fits
}

func ExampleSpecError() {
	_, err := spec.Parse("quickstart.yaml", []byte(`name: quickstart
datasets: [{name: iris}]
methods:
  - {name: logreg-l2, params: {C: -1}}
curve: {sizes: [20], trials: 0}
metrics: [accuracy]
report: {x_transform: neglog}
`), nil)
	fmt.Println(err)
	// Output:
	// quickstart.yaml:4:35: methods[0].params.C: -1 is out of range; want float in (0, +inf)
	// quickstart.yaml:5:30: curve.trials: 0 is out of range; want int in [1, 100000]
	// quickstart.yaml:7:23: report.x_transform: applies to a param on the x axis, but x is size; want report.x set to a param, or no x_transform
}

// A method's grid built in Go, as a params: block with lists expands to:
// the last param varies fastest.
func ExampleProduct() {
	grid := spec.Product([]string{"shrink", "noise"}, map[string][]any{
		"shrink": {0.0, 0.5},
		"noise":  {0.1, 0.2},
	})
	for _, p := range grid {
		fmt.Println("shrink", p["shrink"], "noise", p["noise"])
	}
	// Output:
	// shrink 0 noise 0.1
	// shrink 0 noise 0.2
	// shrink 0.5 noise 0.1
	// shrink 0.5 noise 0.2
}
