package uci_test

import (
	"fmt"

	"github.com/repro-ml/repro/datasets/uci"
)

func ExampleLoadSplice() {
	d, err := uci.LoadSplice("testdata/splice.data", []string{"EI", "IE"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Rows(), d.Cols(), d.Classes, d.Features[:4])
	fmt.Println(d.X.At(1, 0), d.X.At(1, 1), d.X.At(1, 2), d.X.At(1, 3)) // N at position 1 of the IE row
	// Output:
	// 2 240 [EI IE] [p01=A p01=C p01=G p01=T]
	// 0.25 0.25 0.25 0.25
}

func ExampleAbaloneOptions() {
	o := uci.AbaloneOptions()
	fmt.Println(o.Label, o.Categorical, o.GroupOrder)
	// Output: rings [sex] [sex size weight]
}
