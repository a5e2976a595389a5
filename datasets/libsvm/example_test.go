package libsvm_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/repro-ml/repro/datasets/libsvm"
)

func ExampleRead() {
	d, err := libsvm.Read(strings.NewReader("+1 1:0.5 3:2\n-1 2:1 # a comment\n"), "tiny.svm", libsvm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Rows(), d.Cols(), d.Classes, d.Y)
	// Output: 2 3 [-1 1] [1 0]
}

func ExampleWrite() {
	d, _ := libsvm.Read(strings.NewReader("3.5 2:1 4:-0.25\n"), "tiny.svm", libsvm.Options{})
	if err := libsvm.Write(os.Stdout, d.X, d.Y); err != nil {
		fmt.Println(err)
	}
	// Output: 3.5 2:1 4:-0.25
}
