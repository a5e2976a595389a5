package corpus

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/internal/tabio"
	"github.com/repro-ml/repro/datasets/text"
	"github.com/repro-ml/repro/param"
)

// The formats of the text plugin.
const (
	FormatAuto    = "auto"
	FormatJSONL   = "jsonl"
	FormatCSV     = "csv"
	FormatTSV     = "tsv"
	FormatFolders = "folders"
)

func init() {
	datasets.RegisterTyped("text", datasets.TypedLoader[params]{
		Doc:   "your own labelled documents: JSON Lines, a CSV/TSV with a text column, or a folder per class (optionally under train/ and test/); text pipeline params",
		Files: func(p params) []string { return []string{p.File} },
		Load:  load,
	})
}

// params are the parameters of the text loader; the choices of format
// and encoding are the Format constants, UTF8 and Latin1.
type params struct {
	File          string   `param:"file" doc:"a .jsonl/.ndjson, .csv or .tsv file (.gz read transparently), or a directory of class folders; relative to the data dir"`
	Format        string   `param:"format" enum:"auto|jsonl|csv|tsv|folders" default:"auto" doc:"auto: a directory is folders, else by the file's extension"`
	Text          string   `param:"text" default:"text" doc:"the field (JSON Lines) or column (CSV/TSV) holding each document"`
	Label         []string `param:"label" default:"[label]" doc:"label field: its values are the classes; several fields are 0/1 flags, one set per row, the class being the flag's name (not used by folders)"`
	Split         string   `param:"split" default:"" doc:"field holding \"train\" or \"test\": the given split (folders: train/ and test/ give it)"`
	Encoding      string   `param:"encoding" enum:"utf-8|latin-1" default:"utf-8" doc:"the files' encoding; text that is not valid UTF-8 is an error at its line unless latin-1 is declared"`
	KeepText      bool     `param:"keep_text" default:"true" doc:"keep the documents in Dataset.Text, for kgrams, compress and lz77"`
	Classes       []string `param:"classes,omitdefault" default:"[]" doc:"keep only the documents of these classes, in this class order, before the vocabulary is built (min_df and max_features count the documents kept)"`
	text.Pipeline `defaults:"stop_words=none"`
}

// formatOf resolves format auto for path.
func formatOf(path, format string) (string, error) {
	if format != FormatAuto {
		return format, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return FormatFolders, nil
	}
	name := strings.ToLower(strings.TrimSuffix(path, ".gz"))
	switch {
	case strings.HasSuffix(name, ".jsonl"), strings.HasSuffix(name, ".ndjson"), strings.HasSuffix(name, ".json"):
		return FormatJSONL, nil
	case strings.HasSuffix(name, ".csv"):
		return FormatCSV, nil
	case strings.HasSuffix(name, ".tsv"), strings.HasSuffix(name, ".tab"):
		return FormatTSV, nil
	}
	return "", param.Invalid("format", "auto cannot tell the format of %s from its name; want format: jsonl, csv, tsv or folders", path)
}

func load(ctx context.Context, env datasets.Env, p params) (*datasets.Dataset, error) {
	path, err := env.Path(p.File, "the experiment's text file parameter")
	if err != nil {
		return nil, err
	}
	format, err := formatOf(path, p.Format)
	if err != nil {
		return nil, err
	}
	f := Fields{Text: p.Text, Labels: p.Label, Split: p.Split, Encoding: p.Encoding, Warn: env.Warn}
	docs, err := Read(ctx, path, format, f)
	if err != nil {
		return nil, err
	}
	if len(p.Classes) > 0 {
		if docs, err = Select(docs, p.Classes); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	opt, err := p.Options()
	if err != nil {
		return nil, err
	}
	d, err := BuildClasses(docs, p.Classes, opt, p.KeepText)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.Notes = append(d.Notes, p.Describe()+fmt.Sprintf(": %d terms", d.Cols()))
	return d, nil
}

// Read reads the documents of path in format (jsonl, csv, tsv or
// folders). Two classes that differ only in case or white space are an
// error.
func Read(ctx context.Context, path, format string, f Fields) ([]Doc, error) {
	docs, err := read(ctx, path, format, f)
	if err != nil {
		return nil, err
	}
	return docs, variants(docs)
}

func read(ctx context.Context, path, format string, f Fields) ([]Doc, error) {
	if format == FormatFolders {
		if f.Split != "" {
			return nil, param.Invalid("split", "%q: a folder corpus takes its split from train/ and test/ folders; want no split field", f.Split)
		}
		return ReadFolders(ctx, path, f)
	}
	r, err := tabio.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	switch format {
	case FormatJSONL:
		return ReadJSONL(r, path, f)
	case FormatCSV:
		return ReadTable(r, path, ',', f)
	case FormatTSV:
		return ReadTable(r, path, '\t', f)
	}
	return nil, fmt.Errorf("%s: format %q: want jsonl, csv, tsv or folders", path, format)
}

// Select returns the documents of docs whose class is one of classes,
// in their order. A class listed twice, or without a document, is an
// error naming the classes present.
func Select(docs []Doc, classes []string) ([]Doc, error) {
	want := map[string]bool{}
	for _, c := range classes {
		if want[c] {
			return nil, param.Invalid("classes", "%q is listed twice; want each class once", c)
		}
		want[c] = true
	}
	var kept []Doc
	has := map[string]bool{}
	for _, d := range docs {
		if want[d.Label] {
			kept = append(kept, d)
		}
		has[d.Label] = true
	}
	for _, c := range classes {
		if !has[c] {
			present := make([]string, 0, len(has))
			for l := range has {
				present = append(present, l)
			}
			sortClasses(present)
			return nil, param.Invalid("classes", "class %q has no documents; the classes present: %s", c, strings.Join(present, ", "))
		}
	}
	return kept, nil
}

// Build runs the text pipeline over docs: rows in the order given, classes
// sorted (numerically when every class is an integer), the given split
// when the documents have one (then every document must). keepText keeps
// the documents in Dataset.Text.
func Build(docs []Doc, opt text.Options, keepText bool) (*datasets.Dataset, error) {
	return BuildClasses(docs, nil, opt, keepText)
}

// BuildClasses is Build with the classes in the order given (every
// document's class among them), or sorted when classes is empty.
func BuildClasses(docs []Doc, classes []string, opt text.Options, keepText bool) (*datasets.Dataset, error) {
	if len(docs) == 0 {
		return nil, fmt.Errorf("no documents")
	}
	hasSplit := docs[0].Split != ""
	set := map[string]bool{}
	for _, d := range docs {
		if (d.Split != "") != hasSplit {
			return nil, fmt.Errorf("%s: no split, but %s has one; want a split for every document or none", d.Where, docs[0].Where)
		}
		set[d.Label] = true
	}
	if len(classes) == 0 {
		classes = make([]string, 0, len(set))
		for c := range set {
			classes = append(classes, c)
		}
		sortClasses(classes)
	} else {
		classes = slices.Clone(classes)
		for c := range set {
			if !slices.Contains(classes, c) {
				return nil, fmt.Errorf("class %q of the documents is not among the classes given (%s)", c, strings.Join(classes, ", "))
			}
		}
	}
	index := map[string]int{}
	for k, c := range classes {
		index[c] = k
	}
	out := &datasets.Dataset{Name: "text", Classes: classes, Y: make([]float64, len(docs))}
	if hasSplit {
		out.Split = make([]datasets.Part, len(docs))
	}
	if keepText {
		out.Text = make([]string, len(docs))
	}
	vec := text.NewVectorizer(opt)
	for i, d := range docs {
		vec.AddText(d.Text)
		out.Y[i] = float64(index[d.Label])
		if d.Split == Test {
			out.Split[i] = datasets.SplitTest
		}
		if keepText {
			out.Text[i] = d.Text
		}
	}
	if err := out.CheckClasses(); err != nil {
		return nil, err
	}
	x, vocab, err := vec.Build()
	if err != nil {
		return nil, err
	}
	out.X, out.Features = x, vocab
	counts := out.ClassCounts()
	parts := make([]string, len(classes))
	for k, c := range classes {
		parts[k] = fmt.Sprintf("%s %d", c, counts[k])
	}
	out.Stats = map[string]float64{"docs": float64(len(docs)), "vocabulary": float64(len(vocab))}
	note := fmt.Sprintf("%d documents, %d classes (%s)", len(docs), len(classes), strings.Join(parts, ", "))
	if hasSplit {
		train, test := out.SplitRows()
		out.Stats["docs.train"], out.Stats["docs.test"] = float64(len(train)), float64(len(test))
		note += fmt.Sprintf("; given split: %d train + %d test", len(train), len(test))
	}
	out.Notes = []string{note}
	return out, out.Validate()
}

// variants returns an error naming two classes that differ only in case
// or in white space ("pos", "Pos", "pos "): a misspelt class that would
// otherwise become a class of its own.
func variants(docs []Doc) error {
	var classes []string
	seen := map[string]bool{}
	for _, d := range docs {
		if !seen[d.Label] {
			seen[d.Label] = true
			classes = append(classes, d.Label)
		}
	}
	fold := map[string]string{}
	for _, c := range classes {
		k := strings.ToLower(strings.Join(strings.Fields(c), " "))
		if o, ok := fold[k]; ok {
			where := func(c string) string {
				for _, d := range docs {
					if d.Label == c {
						return d.Where
					}
				}
				return ""
			}
			return fmt.Errorf("%s: class %q and %s: class %q differ only in case or white space; want one spelling of a class", where(c), c, where(o), o)
		}
		fold[k] = c
	}
	return nil
}

// sortClasses sorts class names, numerically when all are integers.
func sortClasses(cs []string) {
	nums := make(map[string]int64, len(cs))
	for _, c := range cs {
		n, err := strconv.ParseInt(c, 10, 64)
		if err != nil {
			sort.Strings(cs)
			return
		}
		nums[c] = n
	}
	slices.SortFunc(cs, func(a, b string) int {
		switch {
		case nums[a] < nums[b]:
			return -1
		case nums[a] > nums[b]:
			return 1
		}
		return strings.Compare(a, b)
	})
}
