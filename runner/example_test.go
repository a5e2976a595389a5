package runner

import (
	"fmt"
	"os"

	"github.com/repro-ml/repro/spec"
)

func ExampleParse() {
	sp, err := spec.Parse("quickstart.yaml", []byte(`name: quickstart
datasets: [{name: fake-blobs, split: {kind: holdout, test: 60}}]
methods:
  - {name: fake-centroid, label: centroid, params: {shrink: [0, 0.5]}}
  - {name: fake-centroid, label: cv, params: {shrink: [0, 0.5]}, select: {rule: cv}}
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
	// dataset fake-blobs: fake-blobs {classes=3 d=5 given=false n=300 spread=1}, split holdout (test 60 rows, random)
	// method centroid: fake-centroid, 2 grid points, select fixed, varying shrink
	// method cv: fake-centroid, 2 grid points, select cv (5 folds by accuracy), varying shrink
	// 1 dataset × 2 methods (4 grid points) × 2 sizes × 2 trials = 12 trials, 52 fits
}

func ExampleSpecError() {
	_, err := spec.Parse("quickstart.yaml", []byte(`name: quickstart
datasets: [{name: fake-blobs}]
methods:
  - {name: fake-centroid, params: {shrink: -1}}
curve: {sizes: [20], trials: 0}
metrics: [accuracy]
report: {x_transform: neglog}
`), nil)
	fmt.Println(err)
	// Output:
	// quickstart.yaml:4:44: methods[0].params.shrink: -1 is out of range; want float in [0, 1]
	// quickstart.yaml:5:30: curve.trials: 0 is out of range; want int in [1, 100000]
	// quickstart.yaml:7:23: report.x_transform: applies to a param on the x axis, but x is size; want report.x set to a param, or no x_transform
}
