package compress_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/repro-ml/repro/datasets/compress"
)

// The paper's LZ77 example (§2), on words: the features depend on the
// order the documents are concatenated in.
func ExampleLZ77() {
	docs := []string{"a b c d", "c e a b", "b c e"}
	for _, order := range [][]int{{0, 1, 2}, {1, 2, 0}} {
		_, phrases, err := compress.LZ77(context.Background(), docs, order, 5)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(order, phrases)
	}
	// Output:
	// [0 1 2] [a a_b b b_c c d e]
	// [1 2 0] [a a_b b c c_e d e]
}

// Compressing two documents that share a sentence: with pointers of
// moderate cost the shared phrase becomes one dictionary string.
func ExampleCompress() {
	docs := []string{
		"the quick brown fox jumps over the lazy dog",
		"a quick brown fox jumps over a sleeping cat",
	}
	res, err := compress.Compress(context.Background(), docs, compress.Options{K: 5, Lambda: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(res.Dictionary, " "))
	fmt.Println("pointers:", res.Pointers, "storage cost:", res.Binary)
	// Output:
	// a a_sleeping_cat quick_brown_fox_jumps_over the the_lazy_dog
	// pointers: 6 storage cost: 19
}
