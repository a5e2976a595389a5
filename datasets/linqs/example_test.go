package linqs_test

import (
	"fmt"

	"github.com/repro-ml/repro/datasets/linqs"
)

func ExampleLoadCitations() {
	d, c, err := linqs.LoadCitations("testdata/tiny.content.gz", "testdata/tiny.cites")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Rows(), d.Cols(), d.Classes, d.Y)
	fmt.Println(c.Graph.NNZ(), "edges;", c.Unknown, "line with an unknown id;", c.Self, "self-citation")
	// Output:
	// 3 3 [AI Theory] [1 0 1]
	// 4 edges; 1 line with an unknown id; 1 self-citation
}
