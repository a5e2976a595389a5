package text

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/internal/tabio"
)

const newsSource = "Jason Rennie's 20 Newsgroups page (20news-bydate.tar.gz, http://qwone.com/~jason/20Newsgroups/)"

func init() {
	datasets.RegisterTyped("20news", datasets.TypedLoader[newsParams]{
		Doc:   "20 Newsgroups by-date (Rennie): label = newsgroup, split = train/test folder; text pipeline params",
		Load:  loadNewsgroups,
		Files: func(p newsParams) []string { return []string{p.File} },
		Memory: func(env datasets.Env, p newsParams) int64 {
			return archiveMemory(env, p.File)
		},
	})
}

// newsParams are the parameters of 20news.
type newsParams struct {
	File         string   `param:"file" default:"20news-bydate.tar.gz" doc:"the .tar.gz as distributed, or a directory holding 20news-bydate-train/ and 20news-bydate-test/ (relative to the data dir)"`
	Groups       []string `param:"groups" default:"[]" doc:"newsgroups to keep (default: all 20)"`
	StripHeaders bool     `param:"strip_headers" default:"false" doc:"drop each message's header block (up to the first blank line); the paper keeps the files as distributed"`
	Remove       []string `param:"remove,omitdefault" default:"[]" doc:"parts of each message removed from both the features and the documents kept (Dataset.Text, which compress reads), as scikit-learn's fetch_20newsgroups(remove=…): headers (up to the first blank line), footers (from the last blank or dashed line on: signatures), quotes (lines quoting another post, and their attributions)"`
	KeepText     bool     `param:"keep_text" default:"false" doc:"keep the raw documents in Dataset.Text (memory: ~36 MB)"`
	Pipeline     `defaults:"stop_words=default"`
}

// newsDoc is one message of the collection.
type newsDoc struct {
	test  bool
	group string
	name  string
	text  string
}

func loadNewsgroups(ctx context.Context, env datasets.Env, p newsParams) (*datasets.Dataset, error) {
	file := p.File
	full, err := env.Path(file, newsSource)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, g := range p.Groups {
		want[g] = true
	}
	var docs []newsDoc
	dirs := map[string]bool{}
	if st, err := os.Stat(full); err == nil && st.IsDir() {
		docs, err = readNewsDir(ctx, full, want, dirs)
		if err != nil {
			return nil, fmt.Errorf("20news %s: %w", full, err)
		}
	} else {
		docs, err = readNewsTar(ctx, full, want, dirs)
		if err != nil {
			return nil, fmt.Errorf("20news %s: %w", full, err)
		}
	}
	d, err := buildNewsgroups(docs, dirs, p)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, full)
	}
	return d, nil
}

// maxMessage is the largest message accepted, far above the 20 Newsgroups
// files (the largest is about 160 kB): a bigger tar entry is a corrupt or
// hostile archive, not a message to hold in memory.
const maxMessage = 16 << 20

// buildNewsgroups runs the pipeline over messages read from either layout;
// dirs are the group directories seen, messages or not.
func buildNewsgroups(docs []newsDoc, dirs map[string]bool, p newsParams) (*datasets.Dataset, error) {
	sort.Slice(docs, func(a, b int) bool {
		x, y := docs[a], docs[b]
		if x.test != y.test {
			return !x.test
		}
		if x.group != y.group {
			return x.group < y.group
		}
		return x.name < y.name
	})
	groupSet := map[string]bool{}
	for _, d := range docs {
		groupSet[d.group] = true
	}
	for _, g := range p.Groups {
		if !groupSet[g] {
			if dirs[g] {
				return nil, fmt.Errorf("20news: newsgroup %q has no messages (its directories are empty)", g)
			}
			return nil, fmt.Errorf("20news: newsgroup %q not found", g)
		}
	}
	classes := make([]string, 0, len(groupSet))
	for g := range groupSet {
		if err := tabio.CheckLabel(g); err != nil {
			return nil, fmt.Errorf("20news: newsgroup folder: %v", err)
		}
		classes = append(classes, g)
	}
	sort.Strings(classes)
	if len(docs) == 0 {
		return nil, fmt.Errorf("20news: no documents found under 20news-bydate-train/ or 20news-bydate-test/")
	}
	if len(classes) < 2 {
		return nil, fmt.Errorf("20news: every message is in newsgroup %q; a classification dataset needs at least two classes (list two or more in groups)", classes[0])
	}
	classOf := map[string]int{}
	for i, c := range classes {
		classOf[c] = i
	}
	opt, err := p.Options()
	if err != nil {
		return nil, fmt.Errorf("20news: %w", err)
	}
	clean, err := Cleaner(p.Remove)
	if err != nil {
		return nil, fmt.Errorf("20news: remove: %w", err)
	}
	vec := NewVectorizer(opt)
	strip := p.StripHeaders
	d := &datasets.Dataset{Name: "20news", Classes: classes, Y: make([]float64, len(docs)), Split: make([]datasets.Part, len(docs))}
	if p.KeepText {
		d.Text = make([]string, len(docs))
	}
	for i, doc := range docs {
		doc.text = clean(doc.text)
		body := doc.text
		if strip {
			body = StripHeaders(body)
		}
		vec.AddText(body)
		d.Y[i] = float64(classOf[doc.group])
		if doc.test {
			d.Split[i] = datasets.SplitTest
		}
		if d.Text != nil {
			d.Text[i] = doc.text
		}
	}
	x, vocab, err := vec.Build()
	if err != nil {
		return nil, fmt.Errorf("20news: %w", err)
	}
	d.X, d.Features = x, vocab
	train, test := d.SplitRows()
	d.Stats = map[string]float64{"docs.train": float64(len(train)), "docs.test": float64(len(test)), "vocabulary": float64(len(vocab))}
	hdr := "headers kept (Rennie's by-date files, which already drop most headers)"
	if strip {
		hdr = "headers stripped (up to the first blank line)"
	}
	if len(p.Remove) > 0 {
		hdr += fmt.Sprintf("; removed from the features and the documents: %s (as scikit-learn's fetch_20newsgroups)", strings.Join(p.Remove, ", "))
	}
	d.Notes = []string{
		fmt.Sprintf("20 Newsgroups by-date: %d train + %d test messages, %d groups; %s", len(train), len(test), len(classes), hdr),
		p.Describe() + fmt.Sprintf(": %d terms", len(vocab)),
	}
	return d, d.Validate()
}

// StripHeaders returns a news message without its header block: everything
// up to and including the first empty line. A message with no empty line is
// returned unchanged.
func StripHeaders(msg string) string {
	for _, sep := range []string{"\n\n", "\r\n\r\n"} {
		if i := strings.Index(msg, sep); i >= 0 {
			return msg[i+len(sep):]
		}
	}
	return msg
}

// The parts of a message that Cleaner removes.
const (
	Headers = "headers" // StripHeaders
	Footers = "footers" // StripFooter
	Quotes  = "quotes"  // StripQuotes
)

// Cleaner returns the function that removes the named parts of a news
// message (Headers, Footers, Quotes) in scikit-learn's order: headers,
// then footers, then quotes. No parts: the identity.
func Cleaner(parts []string) (func(string) string, error) {
	var head, foot, quote bool
	for _, p := range parts {
		switch p {
		case Headers:
			head = true
		case Footers:
			foot = true
		case Quotes:
			quote = true
		default:
			return nil, fmt.Errorf("%q; want headers, footers or quotes", p)
		}
	}
	return func(msg string) string {
		if head {
			msg = StripHeaders(msg)
		}
		if foot {
			msg = StripFooter(msg)
		}
		if quote {
			msg = StripQuotes(msg)
		}
		return msg
	}, nil
}

// StripFooter returns a message without its footer, as scikit-learn's
// strip_newsgroup_footer: the message with its outer white space trimmed
// is cut before its last line that is empty or made of dashes and white
// space only (a signature's "--" separator or the blank line before it);
// a message whose only such line is its first, or that has none, is
// returned unchanged.
func StripFooter(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	n := len(lines) - 1
	for ; n >= 0; n-- {
		if strings.Trim(strings.TrimSpace(lines[n]), "-") == "" {
			break
		}
	}
	if n > 0 {
		return strings.Join(lines[:n], "\n")
	}
	return msg
}

// StripQuotes returns a message without the lines that quote another
// post, as scikit-learn's strip_newsgroup_quoting: lines starting with >
// or |, or with "In article" or "Quoted from", and lines holding "writes
// in", "writes:", "wrote:", "says:" or "said:" (attributions).
func StripQuotes(msg string) string {
	lines := strings.Split(msg, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if strings.HasPrefix(l, ">") || strings.HasPrefix(l, "|") || strings.HasPrefix(l, "In article") || strings.HasPrefix(l, "Quoted from") {
			continue
		}
		if strings.Contains(l, "writes in") || strings.Contains(l, "writes:") || strings.Contains(l, "wrote:") || strings.Contains(l, "says:") || strings.Contains(l, "said:") {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n")
}

// newsPath splits "…/20news-bydate-{train,test}/<group>/<name>" and reports
// whether the path is a message of the collection.
func newsPath(p string) (test bool, group, name string, ok bool) {
	parts := strings.Split(path.Clean(filepath.ToSlash(p)), "/")
	if len(parts) < 3 {
		return false, "", "", false
	}
	top, group, name := parts[len(parts)-3], parts[len(parts)-2], parts[len(parts)-1]
	switch top {
	case "20news-bydate-train":
	case "20news-bydate-test":
		test = true
	default:
		return false, "", "", false
	}
	if strings.HasPrefix(name, ".") || strings.HasPrefix(group, ".") {
		return false, "", "", false
	}
	return test, group, name, true
}

func readNewsTar(ctx context.Context, file string, want, dirs map[string]bool) ([]newsDoc, error) {
	var docs []newsDoc
	err := walkTarGz(ctx, file, func(h *tar.Header, r io.Reader) error {
		if h.Typeflag == tar.TypeDir {
			if _, group, _, ok := newsPath(path.Join(h.Name, "x")); ok {
				dirs[group] = true
			}
			return nil
		}
		if h.Typeflag != tar.TypeReg {
			return nil
		}
		test, group, name, ok := newsPath(h.Name)
		if !ok || len(want) > 0 && !want[group] {
			return nil
		}
		dirs[group] = true
		body, err := readEntry(h, r)
		if err != nil {
			return err
		}
		docs = append(docs, newsDoc{test, group, name, body})
		return nil
	})
	return docs, err
}

// walkTarGz calls fn with every entry of the .tar.gz file, checking ctx
// every 1024 entries. An entry whose name climbs out of the archive with
// ".." is an error.
func walkTarGz(ctx context.Context, file string, fn func(h *tar.Header, r io.Reader) error) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if slices.Contains(strings.Split(filepath.ToSlash(h.Name), "/"), "..") {
			return fmt.Errorf("tar entry %q: a name with \"..\" points outside the archive (a corrupt or hostile archive)", h.Name)
		}
		if err := fn(h, tr); err != nil {
			return err
		}
	}
}

// readEntry returns the content of a regular tar entry of at most
// maxMessage bytes.
func readEntry(h *tar.Header, r io.Reader) (string, error) {
	if h.Size > maxMessage {
		return "", fmt.Errorf("tar entry %q: %d bytes, more than a message can be (%d)", h.Name, h.Size, maxMessage)
	}
	var buf strings.Builder
	buf.Grow(int(h.Size))
	if _, err := io.Copy(&buf, r); err != nil {
		return "", fmt.Errorf("%s: %w", h.Name, err)
	}
	return buf.String(), nil
}

func readNewsDir(ctx context.Context, dir string, want, dirs map[string]bool) ([]newsDoc, error) {
	var docs []newsDoc
	for _, top := range []string{"20news-bydate-train", "20news-bydate-test"} {
		root := filepath.Join(dir, top)
		if _, err := os.Stat(root); err != nil {
			return nil, fmt.Errorf("want %s/ in the directory: %w", top, err)
		}
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if e.IsDir() {
				if rel, _ := filepath.Rel(root, p); rel != "." && !strings.Contains(filepath.ToSlash(rel), "/") {
					dirs[rel] = true
				}
				return nil
			}
			if !e.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			test, group, name, ok := newsPath(rel)
			if !ok || len(want) > 0 && !want[group] {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			docs = append(docs, newsDoc{test, group, name, string(b)})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return docs, nil
}
