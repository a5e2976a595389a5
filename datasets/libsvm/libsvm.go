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
	"context"
	"errors"
	"fmt"
	"io"
	"math"
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
func Load(paths []string, o Options) (*datasets.Dataset, error) {
	if len(paths) == 0 || len(paths) > 2 {
		return nil, fmt.Errorf("libsvm: want 1 or 2 files, got %d", len(paths))
	}
	var parts []*rows
	for _, path := range paths {
		f, err := tabio.Open(path)
		if err != nil {
			return nil, err
		}
		r, err := parse(f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		parts = append(parts, r)
	}
	d, err := build(parts, paths, o)
	if err != nil {
		return nil, err
	}
	if _, csr := d.X.(*matrix.CSR); !csr || len(parts) > 1 {
		// The matrix holds copies of the parsed entries: they are
		// garbage now.
		n := int64(0)
		for _, p := range parts {
			n += int64(cap(p.ind)+cap(p.val)) * 8
		}
		parts = nil
		tabio.Collect(n)
	}
	return d, nil
}

// Read parses one file from r; file names it in errors.
func Read(r io.Reader, file string, o Options) (*datasets.Dataset, error) {
	rs, err := parse(r, file)
	if err != nil {
		return nil, err
	}
	return build([]*rows{rs}, []string{file}, o)
}

type rows struct {
	labels []float64
	lines  []int
	ptr    []int
	ind    []int
	val    []float64
	maxInd int // largest 1-based index
	maxAt  int // its line
}

func parse(r io.Reader, file string) (*rows, error) {
	rs := &rows{ptr: []int{0}}
	err := tabio.Lines(r, file, func(line int, text string) error {
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
			if j > rs.maxInd {
				rs.maxInd, rs.maxAt = j, line
			}
			if v != 0 {
				if len(rs.ind) == cap(rs.ind) {
					// Double: append grows large slices by 1.25×,
					// copying each entry about five times in all.
					rs.ind = slices.Grow(rs.ind, max(len(rs.ind), 1024))
					rs.val = slices.Grow(rs.val, max(len(rs.val), 1024))
				}
				rs.ind = append(rs.ind, j-1)
				rs.val = append(rs.val, v)
			}
		}
		rs.labels = append(rs.labels, y)
		rs.lines = append(rs.lines, line)
		rs.ptr = append(rs.ptr, len(rs.ind))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rs.labels) == 0 {
		return nil, tabio.Errorf(file, 0, "no examples")
	}
	return rs, nil
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

func build(parts []*rows, files []string, o Options) (*datasets.Dataset, error) {
	cols := o.Features
	if cols < 0 || cols > MaxFeatures {
		return nil, fmt.Errorf("libsvm: %s: features = %d, want 0 (infer) to %d", strings.Join(files, ", "), cols, MaxFeatures)
	}
	for k, p := range parts {
		if o.Features == 0 {
			cols = max(cols, p.maxInd)
		} else if p.maxInd > o.Features {
			return nil, tabio.Errorf(files[k], p.maxAt, "index %d exceeds features = %d", p.maxInd, o.Features)
		}
	}
	if cols == 0 {
		return nil, tabio.Errorf(files[0], parts[0].lines[0], "no index:value pair on any line of %s (a file of labels only?); a dataset needs at least one feature", strings.Join(files, " or "))
	}
	d := &datasets.Dataset{}
	n, nnz := 0, 0
	for k, p := range parts {
		n, nnz = n+len(p.labels), nnz+len(p.ind)
		d.Y = append(d.Y, p.labels...)
		if len(parts) > 1 {
			for range p.labels {
				d.Split = append(d.Split, datasets.Part(min(k, 1)))
			}
		}
	}
	if float64(nnz) > DenseFill*float64(n)*float64(cols) {
		// Dense, filled from the parsed rows: no CSR of the whole file
		// beside them (on ISOLET's two files it doubled the live heap).
		data := make([]float64, n*cols)
		i := 0
		for _, p := range parts {
			for r := range p.labels {
				row := data[i*cols : (i+1)*cols]
				for k := p.ptr[r]; k < p.ptr[r+1]; k++ {
					row[p.ind[k]] = p.val[k]
				}
				i++
			}
		}
		d.X = matrix.NewDense(n, cols, data)
	} else {
		m := &matrix.CSR{R: n, C: cols}
		if len(parts) == 1 { // the parsed arrays are the matrix's
			m.Ind, m.Val, m.Ptr = parts[0].ind, parts[0].val, parts[0].ptr
		} else {
			m.Ptr = make([]int, 1, n+1)
			m.Ind, m.Val = make([]int, 0, nnz), make([]float64, 0, nnz)
			for _, p := range parts {
				base := len(m.Ind)
				m.Ind = append(m.Ind, p.ind...)
				m.Val = append(m.Val, p.val...)
				for _, q := range p.ptr[1:] {
					m.Ptr = append(m.Ptr, base+q)
				}
			}
		}
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
