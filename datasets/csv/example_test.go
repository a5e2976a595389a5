package csv_test

import (
	"fmt"
	"strings"

	"github.com/repro-ml/repro/datasets/csv"
)

func ExampleRead() {
	table := "M,0.455,0.365,15\nF,0.53,0.42,9\nI,0.33,0.255,7\n"
	o := csv.DefaultOptions()
	o.Header = false
	o.Columns = []string{"sex", "length", "diameter", "rings"}
	o.Label = "rings"
	o.Categorical = []string{"sex"}
	o.Groups = map[string]string{"size": "length,diameter"}
	d, err := csv.Read(strings.NewReader(table), "abalone.data", o)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Features)
	fmt.Println(d.Groups)
	fmt.Println(d.Y, d.IsClassification())
	// Output:
	// [sex=F sex=I sex=M length diameter]
	// [{sex [0 1 2]} {size [3 4]}]
	// [15 9 7] false
}
