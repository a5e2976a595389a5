package corpus_test

import (
	"fmt"
	"strings"

	"github.com/repro-ml/repro/datasets/corpus"
	"github.com/repro-ml/repro/datasets/text"
)

func ExampleReadJSONL() {
	in := `{"text": "Corn prices rose.", "corn": 1, "grain": 0, "split": "train"}
{"text": "Wheat and barley harvests fell.", "corn": 0, "grain": 1, "split": "train"}
{"text": "Corn exports to Japan.", "corn": true, "grain": false, "split": "test"}
`
	f := corpus.Fields{Text: "text", Labels: []string{"corn", "grain"}, Split: "split"}
	docs, err := corpus.ReadJSONL(strings.NewReader(in), "news.jsonl", f)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range docs {
		fmt.Println(d.Where, d.Label, d.Split)
	}
	d, _ := corpus.Build(docs, text.Options{}, true)
	fmt.Println(d.Classes, d.Rows(), "×", d.Cols())

	_, err = corpus.ReadJSONL(strings.NewReader(`{"text": 3, "corn": 1, "grain": 0}`), "bad.jsonl", f)
	fmt.Println(err)
	// Output:
	// news.jsonl:1 corn train
	// news.jsonl:2 grain train
	// news.jsonl:3 corn test
	// [corn grain] 3 × 11
	// bad.jsonl:1: field "text": the number 3; want the document as a string
}
