package embedded_test

import (
	"fmt"

	"github.com/repro-ml/repro/datasets/embedded"
)

func ExampleDNASplice() {
	d, err := embedded.DNASplice([]string{"ei", "ie"}, embedded.EncodingOneHot)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Rows(), d.Cols(), d.Classes, d.ClassCounts(), d.Features[:4])
	// Output: 1532 240 [ei ie] [767 765] [p01=A p01=C p01=G p01=T]
}
