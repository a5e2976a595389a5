package corpus

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// located matches an error of ReadJSONL: the file, then a line number or
// a message about the whole file.
var located = regexp.MustCompile(`^f\.jsonl(:\d+)?: `)

// FuzzReadJSONL feeds arbitrary bytes to the JSON Lines reader, with one
// label field or two flags and an optional split field: no panic; an
// error names the file (and the line when there is one); documents hold
// valid UTF-8 text and a label, and the split of each is empty, train or
// test as the fields ask.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"text": "a b", "label": "x", "split": "train"}`+"\n"+`{"text": "c", "label": 3, "split": "test"}`), false, true)
	f.Add([]byte(`{"text": "a", "corn": 1, "grain": false}`+"\n\n"+`{"text": "b", "corn": 0, "grain": true}`), true, false)
	f.Add([]byte("{\"text\": \"caf\xe9\", \"label\": \"x\"}"), false, false)
	f.Add([]byte(`{"text": ["a"], "label": null}`+"\r\n"+`[1, 2]`), false, false)
	f.Add([]byte(`{"text": "a", "label": "x"} trailing`), false, false)
	f.Add([]byte("\ufeff{\"text\": \"\\u00e9\\ud800\", \"label\": \"\\u0000\"}"), false, false)
	f.Fuzz(func(t *testing.T, data []byte, useFlags, useSplit bool) {
		fields := Fields{Text: "text", Labels: []string{"label"}}
		if useFlags {
			fields.Labels = []string{"corn", "grain"}
		}
		if useSplit {
			fields.Split = "split"
		}
		docs, err := ReadJSONL(strings.NewReader(string(data)), "f.jsonl", fields)
		if err != nil {
			if docs != nil || !located.MatchString(err.Error()) {
				t.Fatalf("docs %q, error %v", docs, err)
			}
			return
		}
		if len(docs) == 0 {
			t.Fatal("no documents and no error")
		}
		for _, d := range docs {
			if !utf8.ValidString(d.Text) || !utf8.ValidString(d.Label) || d.Label == "" {
				t.Fatalf("document %q", d)
			}
			if useFlags && d.Label != "corn" && d.Label != "grain" {
				t.Fatalf("flags gave class %q", d.Label)
			}
			if useSplit != (d.Split == Train || d.Split == Test) || !useSplit && d.Split != "" {
				t.Fatalf("split %q with split field %v", d.Split, useSplit)
			}
			if !strings.HasPrefix(d.Where, "f.jsonl:") {
				t.Fatalf("where %q", d.Where)
			}
		}
	})
}
