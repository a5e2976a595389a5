package reduce_test

import (
	"context"
	"fmt"

	"github.com/repro-ml/repro/datasets/reduce"
	"github.com/repro-ml/repro/matrix"
)

// Points along the line y = 2x, slightly off it: one component carries
// almost all the variance.
func ExampleFitPCA() {
	X := matrix.NewDense(4, 2, []float64{
		0, 0.1,
		1, 1.9,
		2, 4.1,
		3, 5.9,
	})
	p, err := reduce.FitPCA(context.Background(), X, reduce.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("variances %.3f\n", p.Variances)
	fmt.Printf("first component (%.3f, %.3f)\n", p.Components.At(0, 0), p.Components.At(1, 0))
	Z := p.Project(X)
	fmt.Printf("first row projected (%.3f, %.3f)\n", Z.At(0, 0), Z.At(0, 1))
	// Output:
	// variances [8.078 0.002]
	// first component (0.454, 0.891)
	// first row projected (-3.265, -0.020)
}
