package corpus

import (
	"bufio"
	"bytes"
	"context"
	stdcsv "encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/repro-ml/repro/datasets/internal/tabio"
)

// The encodings a corpus may declare.
const (
	UTF8   = "utf-8"
	Latin1 = "latin-1" // ISO 8859-1: each byte is the code point of its value
)

// The values of a split field.
const (
	Train = "train"
	Test  = "test"
)

// Fields names the parts of a record, and the input encoding.
type Fields struct {
	// Text is the field (or column) holding the document.
	Text string
	// Labels are the label fields: one holds the class; several are 0/1
	// flags of which each record sets exactly one, the class then being
	// that field's name.
	Labels []string
	// Split, if not empty, is the field holding "train" or "test".
	Split string
	// Encoding is UTF8 (or "") or Latin1.
	Encoding string
	// Warn, if not nil, receives what a reader accepted but the user
	// should hear of: documents in folders nested in a class folder.
	Warn func(error)
}

// Doc is one labelled document.
type Doc struct {
	Text  string
	Label string
	Split string // Train, Test, or "" without a split field
	Where string // file:line, or the file, for messages
}

// check returns an error for Fields that cannot read anything.
func (f Fields) check() error {
	if f.Text == "" {
		return errors.New("no text field given")
	}
	if len(f.Labels) == 0 {
		return errors.New("no label field given")
	}
	for i, l := range f.Labels {
		if l == "" {
			return fmt.Errorf("label field %d has no name", i+1)
		}
		if l == f.Text || l == f.Split {
			return fmt.Errorf("field %q is both a label and the text or split field", l)
		}
		if slices.Contains(f.Labels[:i], l) {
			return fmt.Errorf("label field %q listed twice", l)
		}
	}
	switch f.Encoding {
	case "", UTF8, Latin1:
	default:
		return fmt.Errorf("encoding %q: want %s or %s", f.Encoding, UTF8, Latin1)
	}
	return nil
}

// decode returns b as UTF-8 text: b itself if valid UTF-8 under UTF8, or
// b decoded from Latin-1. The error says where the first invalid byte is.
func (f Fields) decode(b []byte) (string, error) {
	if f.Encoding == Latin1 {
		var sb strings.Builder
		sb.Grow(len(b) + len(b)/8)
		for _, c := range b {
			sb.WriteRune(rune(c))
		}
		return sb.String(), nil
	}
	if !utf8.Valid(b) {
		i := badByte(b)
		lo := max(0, i-12)
		return "", fmt.Errorf("byte %d (%q) is not valid UTF-8 (declare the corpus's encoding with encoding: %s, or convert it to UTF-8)", i+1, b[lo:min(len(b), i+4)], Latin1)
	}
	return string(b), nil
}

// ReadJSONL reads JSON Lines from r: one JSON object per line, blank
// lines skipped. file names r in errors, which give the line.
func ReadJSONL(r io.Reader, file string, f Fields) ([]Doc, error) {
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var docs []Doc
	// The first document of each label value, to refuse 1 beside "1":
	// one class written as two JSON types.
	first := map[string]int{}
	kinds := map[string]string{}
	err := tabio.Lines(r, file, func(line int, raw string) error {
		if strings.TrimSpace(raw) == "" {
			return nil
		}
		text, err := f.decode([]byte(raw))
		if err != nil {
			return tabio.Errorf(file, line, "%v", err)
		}
		doc, kind, err := f.fromJSON(text)
		if err != nil {
			return tabio.Errorf(file, line, "%v", err)
		}
		doc.Where = fmt.Sprintf("%s:%d", file, line)
		if k, ok := first[doc.Label]; len(f.Labels) > 1 {
			// flags: 1 and true are both a set flag
		} else if !ok {
			first[doc.Label] = len(docs)
			kinds[doc.Label] = kind
		} else if kinds[doc.Label] != kind {
			return tabio.Errorf(file, line, "label field %q: %s, but %s has %s; want one JSON type for a class (the two would be one class)",
				f.Labels[0], jsonValue(kind, doc.Label), docs[k].Where, jsonValue(kinds[doc.Label], doc.Label))
		}
		docs = append(docs, doc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, tabio.Errorf(file, 0, "no documents (want one JSON object per line)")
	}
	return docs, nil
}

// fromJSON reads one record, and returns the JSON type of its label
// value (string, number or bool; of the last label field).
func (f Fields) fromJSON(line string) (doc Doc, kind string, err error) {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var rec map[string]any
	if err := dec.Decode(&rec); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return Doc{}, "", fmt.Errorf("a JSON %s; want one JSON object per line", ute.Value)
		}
		return Doc{}, "", fmt.Errorf("not JSON: %v; want one JSON object per line", err)
	}
	if rec == nil {
		return Doc{}, "", errors.New("a JSON null; want one JSON object per line")
	}
	if _, err := dec.Token(); err != io.EOF {
		return Doc{}, "", errors.New("text after the JSON object; want one object per line")
	}
	if k := duplicateKey(line); k != "" {
		return Doc{}, "", fmt.Errorf("field %q appears twice in the object; want each field once (readers differ on which value counts)", k)
	}
	get := func(name string) (any, error) {
		v, ok := rec[name]
		if !ok {
			keys := make([]string, 0, len(rec))
			for k := range rec {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return nil, fmt.Errorf("no field %q (fields: %s)", name, strings.Join(keys, ", "))
		}
		return v, nil
	}
	v, err := get(f.Text)
	if err != nil {
		return doc, kind, err
	}
	s, ok := v.(string)
	if !ok {
		return doc, kind, fmt.Errorf("field %q: %s; want the document as a string", f.Text, describe(v))
	}
	doc.Text = s
	vals := make([]string, len(f.Labels))
	for i, name := range f.Labels {
		v, err := get(name)
		if err != nil {
			return doc, kind, err
		}
		switch x := v.(type) {
		case string:
			vals[i] = x
			kind = "string"
			if len(f.Labels) == 1 && x != "" && strings.TrimSpace(x) != x {
				return doc, kind, fmt.Errorf("label field %q: %s has white space at its start or end; want the class name without it", name, describe(v))
			}
		case bool:
			vals[i] = strconv.FormatBool(x)
			kind = "bool"
		case json.Number:
			if _, err := strconv.ParseInt(string(x), 10, 64); err != nil {
				return doc, kind, fmt.Errorf("label field %q: %s; want a string, an integer or true/false", name, describe(v))
			}
			vals[i] = string(x)
			kind = "number"
		default:
			return doc, kind, fmt.Errorf("label field %q: %s; want a string, an integer or true/false", name, describe(v))
		}
	}
	if doc.Label, err = f.label(vals); err != nil {
		return doc, kind, err
	}
	if f.Split != "" {
		v, err := get(f.Split)
		if err != nil {
			return doc, kind, err
		}
		s, _ := v.(string)
		if doc.Split, err = splitOf(f.Split, s, v); err != nil {
			return doc, kind, err
		}
	}
	return doc, kind, nil
}

// jsonValue names a label value of a JSON type in a message.
func jsonValue(kind, label string) string {
	switch kind {
	case "string":
		return fmt.Sprintf("the string %q", label)
	case "number":
		return "the number " + label
	}
	return label
}

// duplicateKey returns a key that appears twice at the top level of the
// JSON object line, or "". (encoding/json keeps the last value.)
func duplicateKey(line string) string {
	dec := json.NewDecoder(strings.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		k, _ := t.(string)
		if seen[k] {
			return k
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}

// describe names a JSON value in a message.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return "the number " + string(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

// splitOf checks the value of the split field.
func splitOf(field, s string, v any) (string, error) {
	switch s {
	case Train, Test:
		return s, nil
	}
	what := describe(v)
	if v == nil && s != "" { // a CSV cell
		what = strconv.Quote(s)
	}
	return "", fmt.Errorf("split field %q: %s; want %q or %q", field, what, Train, Test)
}

// label returns the class of a record from the values of its label
// fields: the value itself for one field; for several, the name of the
// one flag set.
func (f Fields) label(vals []string) (string, error) {
	if len(vals) == 1 {
		if vals[0] == "" {
			return "", fmt.Errorf("label field %q is empty", f.Labels[0])
		}
		if err := tabio.CheckLabel(vals[0]); err != nil {
			return "", fmt.Errorf("label field %q: %v", f.Labels[0], err)
		}
		return vals[0], nil
	}
	var set []string
	for i, v := range vals {
		switch v {
		case "1", "true":
			set = append(set, f.Labels[i])
		case "0", "false":
		default:
			return "", fmt.Errorf("label field %q: %q; want a flag: 0, 1, true or false (several label fields are flags, one set per row)", f.Labels[i], v)
		}
	}
	switch len(set) {
	case 0:
		return "", fmt.Errorf("no label flag set (of %s); want exactly one", strings.Join(f.Labels, ", "))
	case 1:
		return set[0], nil
	}
	return "", fmt.Errorf("label flags %s are all set; want exactly one (for multi-label data, give one dataset entry per flag: label: %s)", strings.Join(set, " and "), set[0])
}

// ReadTable reads a table with a header line from r: sep is ',' (CSV) or
// '\t' (TSV); fields are quoted as encoding/csv reads them.
func ReadTable(r io.Reader, file string, sep rune, f Fields) ([]Doc, error) {
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if f.Encoding == Latin1 {
		r = latin1Reader{bufio.NewReader(r)}
	}
	cr := stdcsv.NewReader(tabio.SkipBOM(r))
	cr.Comma = sep
	cr.LazyQuotes = sep == '\t'
	cr.FieldsPerRecord = 0
	header, err := cr.Read()
	if err == io.EOF {
		return nil, tabio.Errorf(file, 0, "empty file, want a header line naming the columns")
	}
	if err != nil {
		return nil, tableError(file, err)
	}
	col := map[string]int{}
	for j, n := range header {
		col[strings.TrimSpace(n)] = j
	}
	index := func(name string) (int, error) {
		j, ok := col[name]
		if !ok {
			return 0, tabio.Errorf(file, 1, "no column %q (columns: %s)", name, strings.Join(header, ", "))
		}
		return j, nil
	}
	textCol, err := index(f.Text)
	if err != nil {
		return nil, err
	}
	labelCols := make([]int, len(f.Labels))
	for i, l := range f.Labels {
		if labelCols[i], err = index(l); err != nil {
			return nil, err
		}
	}
	splitCol := -1
	if f.Split != "" {
		if splitCol, err = index(f.Split); err != nil {
			return nil, err
		}
	}
	var docs []Doc
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, tableError(file, err)
		}
		line, _ := cr.FieldPos(0)
		fail := func(format string, args ...any) error { return tabio.Errorf(file, line, format, args...) }
		for _, j := range append([]int{textCol, splitCol}, labelCols...) {
			if j >= 0 && !utf8.ValidString(rec[j]) {
				_, err := f.decode([]byte(rec[j]))
				return nil, fail("column %q: %v", header[j], err)
			}
		}
		doc := Doc{Text: rec[textCol], Where: fmt.Sprintf("%s:%d", file, line)}
		vals := make([]string, len(labelCols))
		for i, j := range labelCols {
			vals[i] = strings.TrimSpace(rec[j])
		}
		if doc.Label, err = f.label(vals); err != nil {
			return nil, fail("%v", err)
		}
		if splitCol >= 0 {
			s := strings.TrimSpace(rec[splitCol])
			if doc.Split, err = splitOf(f.Split, s, nil); err != nil {
				return nil, fail("%v", err)
			}
		}
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		return nil, tabio.Errorf(file, 0, "no documents after the header line")
	}
	return docs, nil
}

// tableError locates an encoding/csv error at its line.
func tableError(file string, err error) error {
	var pe *stdcsv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, stdcsv.ErrFieldCount) {
			return tabio.Errorf(file, pe.Line, "%v (a separator inside an unquoted text? quote the field)", pe.Err)
		}
		return tabio.Errorf(file, pe.Line, "%v", pe.Err)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// latin1Reader decodes Latin-1 bytes to UTF-8.
type latin1Reader struct{ r *bufio.Reader }

func (l latin1Reader) Read(p []byte) (int, error) {
	n := 0
	for n+1 < len(p) {
		c, err := l.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		n += utf8.EncodeRune(p[n:], rune(c))
	}
	return n, nil
}

// ReadFolders reads a folder per class: dir/<class>/<file>, or, when dir
// holds only train/ and test/ folders, dir/{train,test}/<class>/<file>
// with the split given by the folder. Every regular file under a class
// folder, at any depth, is one document (files ending in .gz are
// gunzipped); documents in nested folders are counted into the class
// and reported to f.Warn. A symbolic link to a file is read as the file;
// a link to a folder, a broken link, a FIFO or a device is an error.
// Names starting with "." are skipped, and so are files directly in dir
// or in train/ and test/ (a README). Docs come train before test, by
// class, then by path.
func ReadFolders(ctx context.Context, dir string, f Fields) ([]Doc, error) {
	if f.Encoding != "" && f.Encoding != UTF8 && f.Encoding != Latin1 {
		return nil, fmt.Errorf("%s: encoding %q: want %s or %s", dir, f.Encoding, UTF8, Latin1)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s is a file; want a directory of class folders (or the format of the file)", dir)
	}
	top, err := subdirs(dir)
	if err != nil {
		return nil, err
	}
	roots := []struct{ dir, split string }{{dir, ""}}
	if slices.Contains(top, Train) && !slices.ContainsFunc(top, func(s string) bool { return s != Train && s != Test }) {
		roots = roots[:0]
		for _, s := range []string{Train, Test} {
			if slices.Contains(top, s) {
				roots = append(roots, struct{ dir, split string }{filepath.Join(dir, s), s})
			}
		}
	}
	var docs []Doc
	for _, root := range roots {
		classes, err := subdirs(root.dir)
		if err != nil {
			return nil, err
		}
		if len(classes) == 0 {
			return nil, fmt.Errorf("%s: no class folders (want %s/<class>/<file>, or train/<class>/ and test/<class>/)", root.dir, root.dir)
		}
		for _, class := range classes {
			if err := tabio.CheckLabel(class); err != nil {
				return nil, fmt.Errorf("%s: class folder: %v", root.dir, err)
			}
			var paths []string
			var nested []string
			classDir := filepath.Join(root.dir, class)
			err := filepath.WalkDir(classDir, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if strings.HasPrefix(e.Name(), ".") {
					if e.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
				switch t := e.Type(); {
				case t.IsDir():
					return nil
				case t&fs.ModeSymlink != 0:
					// A link to a file is read as the file; any other
					// link is an error rather than a document skipped.
					st, err := os.Stat(p)
					if err != nil {
						return fmt.Errorf("%s: a symbolic link to nothing readable (%v); want a document file", p, err)
					}
					if !st.Mode().IsRegular() {
						return fmt.Errorf("%s: a symbolic link to a %s; want a document file (links to folders are not followed)", p, kindOf(st.Mode()))
					}
				case !t.IsRegular():
					return fmt.Errorf("%s: a %s; want a document file", p, kindOf(t))
				}
				if filepath.Dir(p) != classDir {
					nested = append(nested, p)
				}
				paths = append(paths, p)
				return nil
			})
			if err != nil {
				return nil, err
			}
			if len(nested) > 0 && f.Warn != nil {
				sort.Strings(nested)
				f.Warn(fmt.Errorf("%s: %d documents in folders nested in class folder %q (first %s) are counted into class %q; want the class's documents directly in its folder, or the nested folders as classes of their own",
					classDir, len(nested), class, nested[0], class))
			}
			sort.Strings(paths)
			for _, p := range paths {
				b, err := readFile(p)
				if err != nil {
					return nil, err
				}
				text, err := f.decode(b)
				if err != nil {
					// Say where on its line the bad byte is.
					i := badByte(b)
					start := bytes.LastIndexByte(b[:i], '\n') + 1
					end := bytes.IndexByte(b[i:], '\n')
					if end < 0 {
						end = len(b) - i
					}
					_, err := f.decode(b[start : i+end])
					return nil, tabio.Errorf(p, 1+bytes.Count(b[:i], []byte("\n")), "%v", err)
				}
				docs = append(docs, Doc{Text: text, Label: class, Split: root.split, Where: p})
			}
		}
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no documents in the class folders", dir)
	}
	return docs, nil
}

// badByte returns the offset of the first byte of b that is not valid
// UTF-8, or len(b).
func badByte(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// maxDocument is the largest document file read: far above any text
// document; a bigger file is not a document to hold in memory.
const maxDocument = 64 << 20

// readFile returns the content of p, gunzipped if its name ends in .gz.
func readFile(p string) ([]byte, error) {
	r, err := tabio.Open(p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxDocument+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(b) > maxDocument {
		return nil, fmt.Errorf("%s: more than %d MiB, too large for a document", p, maxDocument>>20)
	}
	return b, nil
}

// subdirs returns the names of the folders in dir not starting with ".",
// sorted. A symbolic link to a folder is an error: it would be skipped
// silently, its documents missing.
func subdirs(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if e.IsDir() {
			out = append(out, e.Name())
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && st.IsDir() {
				return nil, fmt.Errorf("%s: a symbolic link to a folder; want the class folder itself (links to folders are not followed)", filepath.Join(dir, e.Name()))
			}
		}
	}
	return out, nil
}

// kindOf names the kind of a file that is not a regular one.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}
