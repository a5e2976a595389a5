package text

import (
	"archive/tar"
	"cmp"
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
)

const imdbSource = "Maas et al.'s Large Movie Review Dataset v1.0 (aclImdb_v1.tar.gz, https://ai.stanford.edu/~amaas/data/sentiment/); our copy keeps the labelled reviews only"

func init() {
	datasets.RegisterTyped("imdb", datasets.TypedLoader[imdbParams]{
		Doc:   "IMDb Large Movie Review Dataset (Maas et al. 2011): label = neg/pos folder, split = the given train/test (25,000 each); text pipeline params",
		Load:  loadIMDb,
		Files: func(p imdbParams) []string { return []string{p.File} },
		Memory: func(env datasets.Env, p imdbParams) int64 {
			return archiveMemory(env, p.File)
		},
	})
}

// imdbParams are the parameters of imdb.
type imdbParams struct {
	File     string `param:"file" default:"imdb/aclImdb_labeled.tar.gz" doc:"the .tar.gz holding aclImdb/{train,test}/{neg,pos}/<id>_<rating>.txt (relative to the data dir)"`
	KeepText bool   `param:"keep_text" default:"false" doc:"keep the reviews in Dataset.Text, <br /> tags replaced by new lines (memory: ~65 MB)"`
	Pipeline `defaults:"stop_words=none"`
}

// imdbDoc is one review.
type imdbDoc struct {
	test, pos bool
	id        int
	text      string
}

// imdbPath parses ".../{train,test}/{neg,pos}/<id>_<rating>.txt".
func imdbPath(p string) (d imdbDoc, ok bool) {
	parts := strings.Split(path.Clean(p), "/")
	if len(parts) < 3 {
		return d, false
	}
	split, label, name := parts[len(parts)-3], parts[len(parts)-2], parts[len(parts)-1]
	if split != "train" && split != "test" || label != "neg" && label != "pos" {
		return d, false
	}
	stem, ok := strings.CutSuffix(name, ".txt")
	id, _, ok2 := strings.Cut(stem, "_")
	n, err := strconv.Atoi(id)
	if !ok || !ok2 || err != nil || n < 0 {
		return d, false
	}
	return imdbDoc{test: split == "test", pos: label == "pos", id: n}, true
}

func loadIMDb(ctx context.Context, env datasets.Env, p imdbParams) (*datasets.Dataset, error) {
	full, err := env.Path(p.File, imdbSource)
	if err != nil {
		return nil, err
	}
	var docs []imdbDoc
	err = walkTarGz(ctx, full, func(h *tar.Header, r io.Reader) error {
		if h.Typeflag != tar.TypeReg {
			return nil
		}
		d, ok := imdbPath(h.Name)
		if !ok {
			return nil
		}
		if d.text, err = readEntry(h, r); err != nil {
			return err
		}
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("imdb %s: %w", full, err)
	}
	d, err := buildIMDb(docs, p)
	if err != nil {
		return nil, fmt.Errorf("imdb %s: %w", full, err)
	}
	return d, nil
}

// buildIMDb orders the reviews (train then test, neg then pos, by id) and
// runs the pipeline.
func buildIMDb(docs []imdbDoc, p imdbParams) (*datasets.Dataset, error) {
	if len(docs) == 0 {
		return nil, fmt.Errorf("no reviews found under aclImdb/{train,test}/{neg,pos}/")
	}
	slices.SortFunc(docs, func(a, b imdbDoc) int {
		if a.test != b.test {
			return cmpBool(a.test, b.test)
		}
		if a.pos != b.pos {
			return cmpBool(a.pos, b.pos)
		}
		return cmp.Compare(a.id, b.id)
	})
	if i := slices.IndexFunc(docs, func(d imdbDoc) bool { return d.pos != docs[0].pos }); i < 0 {
		have, lack := "neg", "pos"
		if docs[0].pos {
			have, lack = lack, have
		}
		return nil, fmt.Errorf("every review is in a %s/ folder, none in %s/; a classification dataset needs at least two classes", have, lack)
	}
	for i := 1; i < len(docs); i++ {
		if a, b := docs[i-1], docs[i]; a.test == b.test && a.pos == b.pos && a.id == b.id {
			return nil, fmt.Errorf("review %d appears twice in one folder", a.id)
		}
	}
	opt, err := p.Options()
	if err != nil {
		return nil, err
	}
	vec := NewVectorizer(opt)
	d := &datasets.Dataset{Name: "imdb", Classes: []string{"neg", "pos"}, Y: make([]float64, len(docs)), Split: make([]datasets.Part, len(docs))}
	if p.KeepText {
		d.Text = make([]string, len(docs))
	}
	br := strings.NewReplacer("<br />", "\n", "<br/>", "\n", "<br>", "\n")
	for i, doc := range docs {
		body := br.Replace(doc.text)
		vec.AddText(body)
		if doc.pos {
			d.Y[i] = 1
		}
		if doc.test {
			d.Split[i] = datasets.SplitTest
		}
		if d.Text != nil {
			d.Text[i] = body
		}
	}
	x, vocab, err := vec.Build()
	if err != nil {
		return nil, err
	}
	d.X, d.Features = x, vocab
	train, test := d.SplitRows()
	d.Stats = map[string]float64{"docs.train": float64(len(train)), "docs.test": float64(len(test)), "vocabulary": float64(len(vocab))}
	d.Notes = []string{
		fmt.Sprintf("IMDb reviews (Maas et al. 2011): %d train + %d test, labels neg/pos from the folders; <br /> tags read as line breaks", len(train), len(test)),
		p.Describe() + fmt.Sprintf(": %d terms", len(vocab)),
	}
	return d, d.Validate()
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
