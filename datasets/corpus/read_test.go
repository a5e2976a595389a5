package corpus

import (
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var jsonFields = Fields{Text: "text", Labels: []string{"label"}}

// TestReadJSONL checks the records the JSON Lines reader accepts.
func TestReadJSONL(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		f    Fields
		want []Doc
	}{
		{"string labels, blank line, CRLF", "{\"text\": \"a b\", \"label\": \"x\"}\r\n\n{\"label\": \"y\", \"text\": \"c\", \"other\": [1]}\n", jsonFields,
			[]Doc{{"a b", "x", "", "t.jsonl:1"}, {"c", "y", "", "t.jsonl:3"}}},
		{"integer and boolean labels", `{"text": "a", "label": 3}` + "\n" + `{"text": "b", "label": true}`, jsonFields,
			[]Doc{{"a", "3", "", "t.jsonl:1"}, {"b", "true", "", "t.jsonl:2"}}},
		{"flags: the class is the field set", `{"text": "a", "corn": 1, "grain": 0}` + "\n" + `{"text": "b", "corn": false, "grain": true}`,
			Fields{Text: "text", Labels: []string{"corn", "grain"}},
			[]Doc{{"a", "corn", "", "t.jsonl:1"}, {"b", "grain", "", "t.jsonl:2"}}},
		{"split field", `{"text": "a", "label": "x", "part": "train"}` + "\n" + `{"text": "b", "label": "y", "part": "test"}`,
			Fields{Text: "text", Labels: []string{"label"}, Split: "part"},
			[]Doc{{"a", "x", "train", "t.jsonl:1"}, {"b", "y", "test", "t.jsonl:2"}}},
		{"latin-1 declared", "{\"text\": \"caf\xe9\", \"label\": \"x\"}", Fields{Text: "text", Labels: []string{"label"}, Encoding: Latin1},
			[]Doc{{"café", "x", "", "t.jsonl:1"}}},
		{"escapes and UTF-8", `{"text": "caf\u00e9 \"q\"", "label": "日本"}`, jsonFields,
			[]Doc{{`café "q"`, "日本", "", "t.jsonl:1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadJSONL(strings.NewReader(tc.in), "t.jsonl", tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestReadJSONLRefusals: each record the reader refuses, with its exact
// error at file:line.
func TestReadJSONLRefusals(t *testing.T) {
	flags := Fields{Text: "text", Labels: []string{"corn", "grain"}}
	split := Fields{Text: "text", Labels: []string{"label"}, Split: "split"}
	for _, tc := range []struct {
		name, in string
		f        Fields
		want     string
	}{
		{"empty file", "\n\n", jsonFields, "t.jsonl: no documents (want one JSON object per line)"},
		{"missing text field", `{"text": "a", "label": "x"}` + "\n" + `{"body": "b", "label": "y"}`, jsonFields,
			`t.jsonl:2: no field "text" (fields: body, label)`},
		{"missing label field", `{"text": "a"}`, jsonFields, `t.jsonl:1: no field "label" (fields: text)`},
		{"text not a string", `{"text": 12, "label": "x"}`, jsonFields,
			`t.jsonl:1: field "text": the number 12; want the document as a string`},
		{"text null", `{"text": null, "label": "x"}`, jsonFields, `t.jsonl:1: field "text": null; want the document as a string`},
		{"text an array", `{"text": ["a"], "label": "x"}`, jsonFields, `t.jsonl:1: field "text": an array; want the document as a string`},
		{"label a fraction", `{"text": "a", "label": 2.5}`, jsonFields,
			`t.jsonl:1: label field "label": the number 2.5; want a string, an integer or true/false`},
		{"label hexadecimal-looking number", `{"text": "a", "label": 1e3}`, jsonFields,
			`t.jsonl:1: label field "label": the number 1e3; want a string, an integer or true/false`},
		{"label null", `{"text": "a", "label": null}`, jsonFields,
			`t.jsonl:1: label field "label": null; want a string, an integer or true/false`},
		{"label an object", `{"text": "a", "label": {"x": 1}}`, jsonFields,
			`t.jsonl:1: label field "label": an object; want a string, an integer or true/false`},
		{"label empty", `{"text": "a", "label": ""}`, jsonFields, `t.jsonl:1: label field "label" is empty`},
		{"label with a NUL", `{"text": "a", "label": "x\u0000"}`, jsonFields,
			`t.jsonl:1: label field "label": label "x\x00" contains a NUL byte (a damaged or binary file?)`},
		{"flag not a flag", `{"text": "a", "corn": 2, "grain": 0}`, flags,
			`t.jsonl:1: label field "corn": "2"; want a flag: 0, 1, true or false (several label fields are flags, one set per row)`},
		{"no flag set", `{"text": "a", "corn": 0, "grain": false}`, flags,
			`t.jsonl:1: no label flag set (of corn, grain); want exactly one`},
		{"two flags set", `{"text": "a", "corn": 1, "grain": true}`, flags,
			`t.jsonl:1: label flags corn and grain are all set; want exactly one (for multi-label data, give one dataset entry per flag: label: corn)`},
		{"bad split", `{"text": "a", "label": "x", "split": "dev"}`, split,
			`t.jsonl:1: split field "split": the string "dev"; want "train" or "test"`},
		{"missing split", `{"text": "a", "label": "x"}`, split, `t.jsonl:1: no field "split" (fields: label, text)`},
		{"not JSON", `{"text": "a", label: "x"}`, jsonFields,
			`t.jsonl:1: not JSON: invalid character 'l' looking for beginning of object key string; want one JSON object per line`},
		{"an array", `["a", "x"]`, jsonFields, `t.jsonl:1: a JSON array; want one JSON object per line`},
		{"null", `null`, jsonFields, `t.jsonl:1: a JSON null; want one JSON object per line`},
		{"two objects on a line", `{"text": "a", "label": "x"} {"text": "b", "label": "y"}`, jsonFields,
			`t.jsonl:1: text after the JSON object; want one object per line`},
		{"object across lines", "{\"text\": \"a\",\n\"label\": \"x\"}", jsonFields,
			`t.jsonl:1: not JSON: unexpected EOF; want one JSON object per line`},
		{"not UTF-8", "{\"text\": \"a\", \"label\": \"x\"}\n{\"text\": \"caf\xe9\", \"label\": \"x\"}", jsonFields,
			`t.jsonl:2: byte 14 ("\"text\": \"caf\xe9\", ") is not valid UTF-8 (declare the corpus's encoding with encoding: latin-1, or convert it to UTF-8)`},
		{"no text field named", `{"text": "a", "label": "x"}`, Fields{Labels: []string{"label"}}, "t.jsonl: no text field given"},
		{"label field twice", `{"text": "a", "label": "x"}`, Fields{Text: "text", Labels: []string{"a", "a"}}, `t.jsonl: label field "a" listed twice`},
		{"label is the text", `{"text": "a", "label": "x"}`, Fields{Text: "text", Labels: []string{"text"}}, `t.jsonl: field "text" is both a label and the text or split field`},
		{"unknown encoding", `{"text": "a", "label": "x"}`, Fields{Text: "text", Labels: []string{"label"}, Encoding: "cp1252"}, `t.jsonl: encoding "cp1252": want utf-8 or latin-1`},
		// Issue 43: accepted silently before.
		{"label 1 and \"1\"", `{"text": "a", "label": 1}` + "\n" + `{"text": "b", "label": "2"}` + "\n" + `{"text": "c", "label": "1"}`, jsonFields,
			`t.jsonl:3: label field "label": the string "1", but t.jsonl:1 has the number 1; want one JSON type for a class (the two would be one class)`},
		{"label \"true\" and true", `{"text": "a", "label": "true"}` + "\n" + `{"text": "b", "label": true}`, jsonFields,
			`t.jsonl:2: label field "label": true, but t.jsonl:1 has the string "true"; want one JSON type for a class (the two would be one class)`},
		{"duplicate key", `{"text": "a", "label": "x", "label": "y"}`, jsonFields,
			`t.jsonl:1: field "label" appears twice in the object; want each field once (readers differ on which value counts)`},
		{"duplicate text key", `{"text": "a", "label": "x", "text": {"b": 1}}`, jsonFields,
			`t.jsonl:1: field "text" appears twice in the object; want each field once (readers differ on which value counts)`},
		{"label with a trailing space", `{"text": "a", "label": "pos"}` + "\n" + `{"text": "b", "label": "pos "}`, jsonFields,
			`t.jsonl:2: label field "label": the string "pos " has white space at its start or end; want the class name without it`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := ReadJSONL(strings.NewReader(tc.in), "t.jsonl", tc.f)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v (docs %q)\nwant  %s", err, docs, tc.want)
			}
		})
	}
}

// TestReadTable checks CSV and TSV tables: quoted texts with separators
// and line breaks, label flags, the split column, and the refusals.
func TestReadTable(t *testing.T) {
	csvIn := "id,text,label,part\n1,\"a, b\nc\",x,train\n2,d,y,test\n"
	got, err := ReadTable(strings.NewReader(csvIn), "t.csv", ',', Fields{Text: "text", Labels: []string{"label"}, Split: "part"})
	want := []Doc{{"a, b\nc", "x", "train", "t.csv:2"}, {"d", "y", "test", "t.csv:4"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("csv: %q, %v\nwant %q", got, err, want)
	}
	tsvIn := "text\tcorn\tgrain\nsaid \"x\" here\t1\t0\nb\t0\t1\n"
	got, err = ReadTable(strings.NewReader(tsvIn), "t.tsv", '\t', Fields{Text: "text", Labels: []string{"corn", "grain"}})
	want = []Doc{{`said "x" here`, "corn", "", "t.tsv:2"}, {"b", "grain", "", "t.tsv:3"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("tsv: %q, %v\nwant %q", got, err, want)
	}
	got, err = ReadTable(strings.NewReader("text,label\ncaf\xe9,x\n"), "t.csv", ',', Fields{Text: "text", Labels: []string{"label"}, Encoding: Latin1})
	if err != nil || len(got) != 1 || got[0].Text != "café" {
		t.Errorf("latin-1: %q, %v", got, err)
	}

	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "t.csv: empty file, want a header line naming the columns"},
		{"header only", "text,label\n", "t.csv: no documents after the header line"},
		{"no text column", "body,label\na,x\n", "t.csv:1: no column \"text\" (columns: body, label)"},
		{"no label column", "text,class\na,x\n", "t.csv:1: no column \"label\" (columns: text, class)"},
		{"ragged row", "text,label\na,x\nb,c,y\n", "t.csv:3: wrong number of fields (a separator inside an unquoted text? quote the field)"},
		{"unterminated quote", "text,label\n\"a,x\n", "t.csv:2: extraneous or missing \" in quoted-field"},
		{"not UTF-8", "text,label\na,x\ncaf\xe9,y\n", "t.csv:3: column \"text\": byte 4 (\"caf\\xe9\") is not valid UTF-8 (declare the corpus's encoding with encoding: latin-1, or convert it to UTF-8)"},
		{"empty label", "text,label\na,\n", "t.csv:2: label field \"label\" is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTable(strings.NewReader(tc.in), "t.csv", ',', jsonFields)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}

// writeTree writes files (path → content; a path ending in .gz is
// gzipped) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(full)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".gz") {
			z := gzip.NewWriter(f)
			z.Write([]byte(s))
			z.Close()
		} else {
			f.WriteString(s)
		}
		f.Close()
	}
}

// TestReadFolders checks both layouts: a folder per class, and train/ and
// test/ above them; gzipped files, nested folders, README files and dot
// files.
func TestReadFolders(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"README":          "not a document",
		"pos/2.txt":       "good",
		"pos/1.txt.gz":    "great",
		"pos/sub/3.txt":   "fine",
		"pos/.hidden":     "no",
		"neg/a.txt":       "bad",
		".git/neg/x.txt":  "no",
		"neg/.svn/ignore": "no",
	})
	docs, err := ReadFolders(context.Background(), dir, jsonFields)
	var got []string
	for _, d := range docs {
		rel, _ := filepath.Rel(dir, d.Where)
		got = append(got, d.Label+":"+d.Text+":"+d.Split+":"+filepath.ToSlash(rel))
	}
	want := []string{"neg:bad::neg/a.txt", "pos:great::pos/1.txt.gz", "pos:good::pos/2.txt", "pos:fine::pos/sub/3.txt"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("per class: %q, %v\nwant %q", got, err, want)
	}

	split := t.TempDir()
	writeTree(t, split, map[string]string{
		"test/pos/1.txt":  "nice",
		"train/neg/1.txt": "awful",
		"train/pos/1.txt": "lovely",
		"train/README":    "x",
	})
	docs, err = ReadFolders(context.Background(), split, jsonFields)
	got = got[:0]
	for _, d := range docs {
		got = append(got, d.Label+":"+d.Text+":"+d.Split)
	}
	want = []string{"neg:awful:train", "pos:lovely:train", "pos:nice:test"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("train/test: %q, %v\nwant %q", got, err, want)
	}

	bad := t.TempDir()
	writeTree(t, bad, map[string]string{"pos/1.txt": "fine\nline two caf\xe9\n", "neg/1.txt": "ok"})
	_, err = ReadFolders(context.Background(), bad, jsonFields)
	if want := filepath.Join(bad, "pos", "1.txt") + `:2: byte 13 ("line two caf\xe9") is not valid UTF-8 (declare the corpus's encoding with encoding: latin-1, or convert it to UTF-8)`; err == nil || err.Error() != want {
		t.Errorf("not UTF-8: %v\nwant %s", err, want)
	}
	// Issue 43: nested folders are reported, a link to a file is read,
	// a link to a folder or to nothing is an error.
	nested := t.TempDir()
	writeTree(t, nested, map[string]string{"pos/1.txt": "good", "pos/sub/2.txt": "fine", "pos/sub/deeper/3.txt": "ok", "neg/1.txt": "bad"})
	var warned []string
	fw := jsonFields
	fw.Warn = func(err error) { warned = append(warned, err.Error()) }
	if docs, err := ReadFolders(context.Background(), nested, fw); err != nil || len(docs) != 4 {
		t.Errorf("nested: %d docs, %v; want 4", len(docs), err)
	}
	if want := []string{filepath.Join(nested, "pos") + `: 2 documents in folders nested in class folder "pos" (first ` + filepath.Join(nested, "pos/sub/2.txt") +
		`) are counted into class "pos"; want the class's documents directly in its folder, or the nested folders as classes of their own`}; !reflect.DeepEqual(warned, want) {
		t.Errorf("nested: warnings %q\nwant %q", warned, want)
	}
	links := t.TempDir()
	elsewhere := t.TempDir()
	writeTree(t, links, map[string]string{"pos/1.txt": "good", "neg/1.txt": "bad"})
	writeTree(t, elsewhere, map[string]string{"x.txt": "linked"})
	if err := os.Symlink(filepath.Join(elsewhere, "x.txt"), filepath.Join(links, "neg/2.txt")); err != nil {
		t.Skip(err)
	}
	docs, err = ReadFolders(context.Background(), links, jsonFields)
	if err != nil || len(docs) != 3 || docs[1].Text != "linked" {
		t.Errorf("a link to a file: %q, %v; want it read as a document", docs, err)
	}
	for name, tc := range map[string]struct{ target, want string }{
		"neg/dir":     {elsewhere, "neg/dir: a symbolic link to a folder; want a document file (links to folders are not followed)"},
		"neg/broken":  {filepath.Join(links, "nothing"), "neg/broken: a symbolic link to nothing readable"},
		"neg/devzero": {"/dev/zero", "neg/devzero: a symbolic link to a device; want a document file"},
		"linked":      {elsewhere, "linked: a symbolic link to a folder; want the class folder itself (links to folders are not followed)"},
	} {
		link := filepath.Join(links, name)
		if err := os.Symlink(tc.target, link); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFolders(context.Background(), links, jsonFields)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(links, tc.want)) {
			t.Errorf("%s: %v\nwant %s", name, err, filepath.Join(links, tc.want))
		}
		os.Remove(link)
	}

	empty := t.TempDir()
	_, err = ReadFolders(context.Background(), empty, jsonFields)
	if want := empty + ": no class folders (want " + empty + "/<class>/<file>, or train/<class>/ and test/<class>/)"; err == nil || err.Error() != want {
		t.Errorf("empty: %v\nwant %s", err, want)
	}
}
