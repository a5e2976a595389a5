package methods_test

import (
	"fmt"

	"github.com/repro-ml/repro/methods"
)

func ExampleState() {
	var s methods.State
	if _, ok := methods.Load[int](&s, "components"); !ok {
		fmt.Println("first fit: start from the smallest size")
	}
	methods.Store(&s, "components", 30)
	k, _ := methods.Load[int](&s, "components")
	_, wrongType := methods.Load[string](&s, "components")
	fmt.Println("next fit starts from", k, wrongType)
	// Output:
	// first fit: start from the smallest size
	// next fit starts from 30 false
}
