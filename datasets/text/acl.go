package text

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/internal/tabio"
	"github.com/repro-ml/repro/param"
)

const aclSource = "Blitzer et al.'s Multi-Domain Sentiment Dataset, processed_acl.tar.gz (https://www.cs.jhu.edu/~mdredze/datasets/sentiment/)"

func init() {
	datasets.RegisterTyped("processed-acl", datasets.TypedLoader[aclParams]{
		Doc:      "Blitzer's multi-domain Amazon reviews, processed_acl format (token:count … #label#:positive); labels negative/positive",
		Load:     loadACL,
		Validate: validateACL,
		Files:    aclFiles,
	})
}

// aclParams are the parameters of processed-acl.
type aclParams struct {
	Domain    string `param:"domain" doc:"product domain: the subdirectory of dir holding its reviews (Blitzer's are books, dvd, electronics and kitchen; any other in the same layout loads under its own name)"`
	Dir       string `param:"dir" default:"amazon/processed_acl" doc:"directory with <domain>/{positive,negative}.review(.gz), relative to the data dir"`
	Unlabeled bool   `param:"unlabeled" default:"true" doc:"if <domain>/unlabeled.review(.gz) exists, count its reviews in min_df/min_count (they are not rows)"`
	Pipeline  `defaults:"stop_words=none; ngrams=2"`
}

// validateACL checks that domain names one directory inside dir.
func validateACL(p aclParams) error {
	d := p.Domain
	if d == "" || d == "." || d == ".." || strings.ContainsAny(d, `/\`) {
		return param.Invalid("domain", "%q: want the name of a directory in dir, such as kitchen", d)
	}
	return nil
}

// aclDomains returns the subdirectories of dir, for an error message.
func aclDomains(dir string) string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range es {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + dir + " holds " + strings.Join(names, ", ") + ")"
}

// aclFile opens dir/name or dir/name.gz, whichever exists.
func aclFile(env datasets.Env, dir, name string) (io.ReadCloser, string, error) {
	rel := filepath.Join(dir, name)
	p, err := env.Path(rel+".gz", aclSource)
	gz := err == nil
	if err != nil {
		var miss *datasets.MissingFileError
		if !errors.As(err, &miss) {
			return nil, "", err
		}
		if p, err = env.Path(rel, aclSource); err != nil {
			return nil, "", err
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, "", err
	}
	if !gz {
		return f, p, nil
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, "", fmt.Errorf("%s: %w", p, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{zr, f}, p, nil
}

// ParseACLLine parses one review of the processed_acl format:
// space-separated "term:count" pairs and a "#label#:<label>" pair. The term
// is everything before the last colon. label is "" if the line has none.
func ParseACLLine(line string) (terms []string, counts []float64, label string, err error) {
	for _, f := range strings.Fields(line) {
		i := strings.LastIndexByte(f, ':')
		if i <= 0 {
			return nil, nil, "", fmt.Errorf("field %q: want term:count", f)
		}
		term, v := f[:i], f[i+1:]
		if err := tabio.CheckUTF8("term", term); err != nil {
			return nil, nil, "", err
		}
		if term == "#label#" {
			label = v
			continue
		}
		c, err := tabio.ParseFinite(v)
		if err != nil {
			return nil, nil, "", fmt.Errorf("field %q: count %v (want a finite non-negative number)", f, err)
		}
		if c < 0 {
			return nil, nil, "", fmt.Errorf("field %q: count %q is negative (want a finite non-negative number)", f, v)
		}
		terms = append(terms, term)
		counts = append(counts, c)
	}
	return terms, counts, label, nil
}

func loadACL(ctx context.Context, env datasets.Env, p aclParams) (*datasets.Dataset, error) {
	domain := p.Domain
	if err := validateACL(p); err != nil {
		return nil, fmt.Errorf("processed-acl: %w", err)
	}
	dir := filepath.Join(p.Dir, domain)
	if _, err := env.Path(dir, aclSource); err != nil {
		return nil, fmt.Errorf("processed-acl %s: %w%s", domain, err, aclDomains(filepath.Join(env.DataDir, p.Dir)))
	}
	opt, err := p.Options()
	if err != nil {
		return nil, fmt.Errorf("processed-acl %s: %w", domain, err)
	}
	ngrams := opt.NGrams
	stop := opt.StopWords
	// keepTerm applies n-gram length and stop words to Blitzer's terms,
	// which are words and bigrams already joined by "_": a term is dropped
	// if it has more than ngrams words or any word is a stop word.
	keepTerm := func(t string) bool {
		if splitNGram(t) > ngrams {
			return false
		}
		if stop != nil {
			for _, w := range strings.Split(t, "_") {
				if stop[w] {
					return false
				}
			}
		}
		return true
	}
	vec := NewVectorizer(opt)
	d := &datasets.Dataset{Name: "processed-acl-" + domain, Classes: []string{"negative", "positive"}}
	var unlabeled int
	for _, part := range []string{"negative", "positive", "unlabeled"} {
		if part == "unlabeled" && !p.Unlabeled {
			continue
		}
		rc, path, err := aclFile(env, dir, part+".review")
		if err != nil {
			var miss *datasets.MissingFileError
			if part == "unlabeled" && errors.As(err, &miss) {
				continue
			}
			return nil, fmt.Errorf("processed-acl %s: %w", domain, err)
		}
		err = func() error {
			defer rc.Close()
			return tabio.Lines(rc, path, func(n int, line string) error {
				if n%256 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				if strings.TrimSpace(line) == "" {
					return nil
				}
				terms, counts, label, err := ParseACLLine(line)
				if err != nil {
					return tabio.Errorf(path, n, "%v", err)
				}
				kt, kc := terms[:0], counts[:0]
				for i, t := range terms {
					if keepTerm(t) {
						kt, kc = append(kt, t), append(kc, counts[i])
					}
				}
				if part == "unlabeled" {
					vec.AddReference(kt, kc)
					unlabeled++
					return nil
				}
				if label == "" {
					return tabio.Errorf(path, n, "no #label#:%s field (want term:count … #label#:%s)", part, part)
				}
				if label != part {
					return tabio.Errorf(path, n, "label %q in the %s file", label, part)
				}
				vec.AddCounts(kt, kc)
				y := 0.0
				if part == "positive" {
					y = 1
				}
				d.Y = append(d.Y, y)
				return nil
			})
		}()
		if err != nil {
			return nil, fmt.Errorf("processed-acl %s: %w", domain, err)
		}
	}
	for k, c := range d.ClassCounts() {
		if c == 0 {
			return nil, fmt.Errorf("processed-acl %s: %s: no reviews", domain, filepath.Join(env.DataDir, dir, d.Classes[k]+".review(.gz)"))
		}
	}
	x, vocab, err := vec.Build()
	if err != nil {
		return nil, fmt.Errorf("processed-acl %s: %s: %w", domain, filepath.Join(env.DataDir, dir), err)
	}
	d.X, d.Features = x, vocab
	counts := d.ClassCounts()
	d.Stats = map[string]float64{"reviews": float64(len(d.Y)), "reviews.unlabeled": float64(unlabeled), "vocabulary": float64(len(vocab))}
	d.Notes = []string{
		fmt.Sprintf("Blitzer processed_acl %s: %d negative + %d positive labelled reviews, %d unlabelled reviews counted in the vocabulary", domain, counts[0], counts[1], unlabeled),
		fmt.Sprintf("terms are Blitzer's own tokens as written in the files, not re-tokenized: lower-case words that may hold apostrophes, digits and punctuation (don't, 2nd), bigrams joined by _; "+
			"stop words %s, n-grams up to %d, min_df %d over the whole corpus (train and test), min_count %v, vocabulary %s, max_features %d, weighting %s: %d terms",
			p.StopWords, p.NGrams, p.MinDF, p.MinCount, p.Vocabulary, p.MaxFeatures, p.Weighting, len(vocab)),
	}
	return d, d.Validate()
}
