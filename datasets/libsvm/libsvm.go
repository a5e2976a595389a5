// Package libsvm reads and writes the sparse text format of LIBSVM and
// SVMlight, and registers the "libsvm" dataset plugin:
//
//	datasets:
//	  - name: libsvm
//	    params: {file: a9a/a9a.txt, test_file: a9a/a9a.t}
//
// A line is a label followed by index:value pairs with 1-based, strictly
// increasing indices; "#" starts a comment, "qid:n" is ignored, blank lines
// are skipped. Labels are +1/-1, class numbers or real targets. Rows more
// than DenseFill full are stored as a dense matrix, others as a CSR.
// Numbers are decimal: a hexadecimal float (0x1p3), digits separated by
// underscores (1_000), NaN, Inf and a signed index (+3:1) are errors at
// their line.
package libsvm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/internal/tabio"
	"github.com/repro-ml/repro/matrix"
)

// The tasks.
const (
	TaskAuto           = "auto" // classification when every label is an integer
	TaskClassification = "classification"
	TaskRegression     = "regression"
)

// MaxFeatures is the largest feature index (and features option) accepted:
// 2^25 = 33,554,432, above every dataset of the LIBSVM collection. A larger
// index is an error rather than a matrix with that many columns, so that a
// typo or a hashed index such as 1000000000000 cannot allocate gigabytes.
const MaxFeatures = 1 << 25

// DenseFill is the fraction of stored entries above which the rows read
// are kept as a dense matrix rather than a CSR: a stored entry costs 16
// bytes in a CSR (its column index and value), a cell 8 in a dense
// matrix, so above half full the dense matrix is the smaller; and the
// dense kernels (assembly dot products, no index loads) are then faster
// too — the coordinate descent of logreg-l1 measured dense columns 1.3×
// faster than sparse ones at half fill, and the RBF svm on ISOLET read
// from its LIBSVM files (617 features, all but a few of them non-zero)
// spent 72 % of its time in the CSR's row dot products.
const DenseFill = 0.5

// maxNamed is the largest number of columns given names ("1", "2", …) in
// Dataset.Features; wider datasets leave Features nil (column j is index
// j+1) rather than hold millions of strings.
const maxNamed = 1 << 20

// Options says how to interpret a LIBSVM file.
type Options struct {
	// Task is TaskAuto (classification when every label is an integer),
	// TaskClassification or TaskRegression.
	Task string
	// Features is the number of columns; 0 infers the largest index seen.
	Features int
}

// Params are the libsvm plugin's parameters. The choices of task are the
// Task constants.
type Params struct {
	File     string `param:"file" doc:"LIBSVM/SVMlight file, relative to the data directory (.gz read transparently)"`
	TestFile string `param:"test_file" default:"" doc:"optional second file whose rows form the test part of the given split"`
	Task     string `param:"task" enum:"auto|classification|regression" default:"auto" doc:"auto: classification when every label is an integer"`
	Features int    `param:"features" range:"[0, +inf)" default:"0" doc:"number of features; 0 = the largest index in the files"`
}

func init() {
	datasets.RegisterTyped("libsvm", datasets.TypedLoader[Params]{
		Doc:   "a LIBSVM/SVMlight sparse file (optionally with a test file: the given split), CSR features, or dense ones when more than half of the cells are stored",
		Files: files,
		Memory: func(env datasets.Env, p Params) int64 {
			est := int64(0)
			for _, f := range files(p) {
				est += loadMemory(env, f)
			}
			return est
		},
		Load: func(ctx context.Context, env datasets.Env, p Params) (*datasets.Dataset, error) {
			files := []string{p.File}
			if t := p.TestFile; t != "" {
				files = append(files, t)
			}
			paths := make([]string, len(files))
			for i, f := range files {
				path, err := env.Path(f, "the experiment's libsvm file parameters")
				if err != nil {
					return nil, err
				}
				paths[i] = path
			}
			return Load(paths, Options{Task: p.Task, Features: p.Features})
		},
	})
}

// What Load holds at once, per byte of its input and per stored entry
// (index:value) or row: the entries parsed, then the matrix built from
// them. Fitted by TestLoadMemory on files of short and long entries,
// with a margin.
const (
	perInputByte = 2
	perEntry     = 40
	perRow       = 64
)

// loadMemory estimates the memory Load holds reading file (in env's data
// directory): its size uncompressed, and its entries and rows counted in
// its first 256 KB. 0 where it cannot be read (Load says why).
func loadMemory(env datasets.Env, file string) int64 {
	n, head := datasets.InputHead(env, file, 256<<10)
	if len(head) == 0 {
		return 0
	}
	entries, rows := int64(0), int64(0)
	for _, c := range head {
		switch c {
		case ':':
			entries++
		case '\n':
			rows++
		}
	}
	m := int64(len(head))
	return 1<<20 + perInputByte*n + (perEntry*entries+perRow*rows)*n/m
}

// Load reads one file, or a training file and a test file whose rows are
// marked as the given split. Files ending in .gz are decompressed.
//
// The files' entries are parsed into one set of arrays that becomes the
// CSR matrix: no copy of the whole file is made. Plain files are sized
// first (a count of their ':' and line ends, an upper bound on the
// entries and rows), so that the arrays are allocated once; gzipped ones
// grow the arrays by doubling. A stored entry costs 12 bytes (an int32
// column index and a float64 value), a row 16 (its pointer and label).
func Load(paths []string, o Options) (*datasets.Dataset, error) {
	if len(paths) == 0 || len(paths) > 2 {
		return nil, fmt.Errorf("libsvm: want 1 or 2 files, got %d", len(paths))
	}
	rs := &rows{ptr: []int{0}}
	if entries, lines, ok := size(paths); ok {
		rs.ind = make([]int32, 0, entries)
		rs.val = make([]float64, 0, entries)
		rs.ptr = make([]int, 1, lines+1)
		rs.labels = make([]float64, 0, lines)
	}
	for _, path := range paths {
		f, err := tabio.Open(path)
		if err != nil {
			return nil, err
		}
		err = rs.parse(f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	d, err := rs.build(paths, o)
	if err != nil {
		return nil, err
	}
	if _, csr := d.X.(*matrix.CSR); !csr {
		// The dense matrix holds copies of the parsed entries: they
		// are garbage now.
		n := int64(cap(rs.ind))*4 + int64(cap(rs.val))*8
		rs = nil
		tabio.Collect(n)
	}
	return d, nil
}

// size returns upper bounds on the entries and lines of the files (their
// ':' and '\n' bytes, and one line more per file), reading each once;
// ok is false if a file is gzipped or cannot be read (the parse then
// grows its arrays, and reports the error).
func size(paths []string) (entries, lines int, ok bool) {
	buf := make([]byte, 256<<10)
	for _, path := range paths {
		if strings.HasSuffix(path, ".gz") {
			return 0, 0, false
		}
		f, err := os.Open(path)
		if err != nil {
			return 0, 0, false
		}
		for {
			n, err := f.Read(buf)
			entries += bytes.Count(buf[:n], colon)
			lines += bytes.Count(buf[:n], newline)
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return 0, 0, false
			}
		}
		f.Close()
		lines++ // a last line without its \n
	}
	return entries, lines, true
}

var colon, newline = []byte{':'}, []byte{'\n'}

// Read parses one file from r; file names it in errors.
func Read(r io.Reader, file string, o Options) (*datasets.Dataset, error) {
	rs := &rows{ptr: []int{0}}
	if err := rs.parse(r, file); err != nil {
		return nil, err
	}
	return rs.build([]string{file}, o)
}

// rows are the examples parsed from one or more files, in the arrays of
// a CSR matrix.
type rows struct {
	labels []float64
	ptr    []int
	ind    []int32
	val    []float64
	parts  []part // one per file
}

// part is what rows holds of one file.
type part struct {
	rows   int // the file's examples
	first  int // the line of its first example
	maxInd int // its largest 1-based index
	maxAt  int // its line
}

// parse appends the examples of r to rs; file names it in errors.
func (rs *rows) parse(r io.Reader, file string) error {
	p := part{}
	err := tabio.Scan(r, file, func(line int, text string) error {
		if k := strings.IndexByte(text, '#'); k >= 0 {
			text = text[:k]
		}
		first, rest := nextField(text)
		if first == "" {
			return nil
		}
		y, err := tabio.ParseFinite(first)
		if err != nil {
			return tabio.Errorf(file, line, "label %v (want a finite number first: label index:value ...)", err)
		}
		prev := 0
		for f := ""; ; {
			if f, rest = nextField(rest); f == "" {
				break
			}
			k := strings.IndexByte(f, ':')
			if k < 0 {
				return tabio.Errorf(file, line, "%q: want index:value", f)
			}
			if f[:k] == "qid" {
				continue
			}
			j, err := strconv.Atoi(f[:k])
			if !digits(f[:k]) {
				err = strconv.ErrSyntax // a sign: "+3:1" is no index a writer means
			}
			if err != nil && errors.Is(err, strconv.ErrRange) || err == nil && j > MaxFeatures {
				return tabio.Errorf(file, line, "%q: index %s exceeds the limit of %d features", f, f[:k], MaxFeatures)
			}
			if err != nil || j < 1 {
				return tabio.Errorf(file, line, "%q: index %q is not a positive integer (indices are 1-based)", f, f[:k])
			}
			if j <= prev {
				return tabio.Errorf(file, line, "%q: index %d after %d (indices must strictly increase)", f, j, prev)
			}
			v, err := tabio.ParseFinite(f[k+1:])
			if err != nil {
				return tabio.Errorf(file, line, "%q: value %v (want a finite number)", f, err)
			}
			prev = j
			if j > p.maxInd {
				p.maxInd, p.maxAt = j, line
			}
			if v != 0 {
				if len(rs.ind) == cap(rs.ind) {
					// Double: append grows large slices by 1.25×,
					// copying each entry about five times in all.
					rs.ind = slices.Grow(rs.ind, max(len(rs.ind), 1024))
					rs.val = slices.Grow(rs.val, max(len(rs.val), 1024))
				}
				rs.ind = append(rs.ind, int32(j-1))
				rs.val = append(rs.val, v)
			}
		}
		if p.rows == 0 {
			p.first = line
		}
		p.rows++
		rs.labels = append(rs.labels, y)
		rs.ptr = append(rs.ptr, len(rs.ind))
		return nil
	})
	if err != nil {
		return err
	}
	if p.rows == 0 {
		return tabio.Errorf(file, 0, "no examples")
	}
	rs.parts = append(rs.parts, p)
	return nil
}

// nextField returns the first field of s, as strings.Fields would, and
// what follows it; "" when s holds only white space. ASCII white space is
// skipped byte by byte (no slice of fields per line: parsing 20 Newsgroups
// allocated as much for them as for the matrix); a field next to another
// byte above 0x7f (Unicode white space) is found by strings.Fields.
func nextField(s string) (field, rest string) {
	i := 0
	for i < len(s) && asciiSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !asciiSpace(s[j]) {
		if s[j] >= 0x80 {
			return unicodeField(s[i:])
		}
		j++
	}
	return s[i:j], s[j:]
}

// unicodeField is nextField on text holding non-ASCII bytes.
func unicodeField(s string) (field, rest string) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "", ""
	}
	k := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
	return f[0], s[k+len(f[0]):]
}

// digits reports whether s is only the digits 0–9 (a byte loop:
// strings.Trim with a cutset built its byte set at every pair).
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// build returns the dataset of the parsed rows; files are the files
// parsed, one per part. A CSR matrix takes over rs's arrays.
func (rs *rows) build(files []string, o Options) (*datasets.Dataset, error) {
	cols := o.Features
	if cols < 0 || cols > MaxFeatures {
		return nil, fmt.Errorf("libsvm: %s: features = %d, want 0 (infer) to %d", strings.Join(files, ", "), cols, MaxFeatures)
	}
	for k, p := range rs.parts {
		if o.Features == 0 {
			cols = max(cols, p.maxInd)
		} else if p.maxInd > o.Features {
			return nil, tabio.Errorf(files[k], p.maxAt, "index %d exceeds features = %d", p.maxInd, o.Features)
		}
	}
	if cols == 0 {
		return nil, tabio.Errorf(files[0], rs.parts[0].first, "no index:value pair on any line of %s (a file of labels only?); a dataset needs at least one feature", strings.Join(files, " or "))
	}
	d := &datasets.Dataset{Y: rs.labels}
	n, nnz := len(rs.labels), len(rs.ind)
	if len(rs.parts) > 1 {
		d.Split = make([]datasets.Part, 0, n)
		for k, p := range rs.parts {
			for range p.rows {
				d.Split = append(d.Split, datasets.Part(min(k, 1)))
			}
		}
	}
	if float64(nnz) > DenseFill*float64(n)*float64(cols) {
		// Dense, filled from the parsed rows.
		data := make([]float64, n*cols)
		for i := 0; i < n; i++ {
			row := data[i*cols : (i+1)*cols]
			for k := rs.ptr[i]; k < rs.ptr[i+1]; k++ {
				row[rs.ind[k]] = rs.val[k]
			}
		}
		d.X = matrix.NewDense(n, cols, data)
	} else {
		// The parsed arrays are the matrix's.
		m := &matrix.CSR{R: n, C: cols, Ptr: rs.ptr, Ind: rs.ind, Val: rs.val}
		if err := m.Check(); err != nil {
			return nil, fmt.Errorf("libsvm: %s: internal error: %w", strings.Join(files, ", "), err)
		}
		d.X = m
	}
	task := o.Task
	switch task {
	case "", TaskAuto:
		task = TaskClassification
		for _, y := range d.Y {
			if y != math.Trunc(y) {
				task = TaskRegression
				break
			}
		}
	case TaskClassification, TaskRegression:
	default:
		return nil, fmt.Errorf("libsvm: task %q: want auto, classification or regression", o.Task)
	}
	if task == TaskClassification {
		distinct := map[float64]bool{}
		for _, y := range d.Y {
			distinct[y] = true
		}
		vals := make([]float64, 0, len(distinct))
		for v := range distinct {
			vals = append(vals, v)
		}
		sort.Float64s(vals)
		index := map[float64]int{}
		d.Classes = make([]string, len(vals))
		for k, v := range vals {
			index[v] = k
			d.Classes[k] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		for i, y := range d.Y {
			d.Y[i] = float64(index[y])
		}
		if len(vals) < 2 {
			return nil, fmt.Errorf("libsvm: %s: every example has label %s; a classification dataset needs at least two classes (task: regression reads it as targets)", strings.Join(files, ", "), d.Classes[0])
		}
	}
	if cols <= maxNamed {
		d.Features = make([]string, cols)
		for j := range d.Features {
			d.Features[j] = strconv.Itoa(j + 1)
		}
	} else {
		d.Notes = append(d.Notes, fmt.Sprintf("libsvm: %d columns, left unnamed: column j is index j+1", cols))
	}
	if err := tabio.Check(d); err != nil {
		return nil, fmt.Errorf("libsvm: %w", err)
	}
	return d, nil
}

// Write writes the rows of X with labels y in LIBSVM format: 1-based
// indices, only non-zero values, numbers in the shortest form that reads
// back exactly. It panics if len(y) differs from the number of rows.
func Write(w io.Writer, X matrix.Matrix, y []float64) error {
	r, _ := X.Dims()
	if len(y) != r {
		panic(fmt.Sprintf("libsvm: Write: %d labels for %d rows", len(y), r))
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for i := 0; i < r; i++ {
		buf = strconv.AppendFloat(buf[:0], y[i], 'g', -1, 64)
		X.Row(i, func(j int, v float64) {
			if v == 0 {
				return
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		})
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("libsvm: writing row %d: %w", i, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("libsvm: %w", err)
	}
	return nil
}

// files returns the data files the plugin reads at p (`repro data`).
func files(p Params) []string {
	fs := []string{p.File}
	if t := p.TestFile; t != "" {
		fs = append(fs, t)
	}
	return fs
}
