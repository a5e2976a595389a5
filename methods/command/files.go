package command

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets/libsvm"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// The formats of the rows written for a program.
const (
	formatLibSVM = "libsvm" // label index:value …, 1-based indices, non-zeros only (SVMlight)
	formatCSV    = "csv"    // a header label,x1,…,xd, then label and every value of a row
)

// The formats of the predictions read back.
const (
	outputLabels = "labels" // liblinear-predict, svm-predict: a label per line, optionally a "labels …" header and probabilities
	outputScores = "scores" // K numbers per line (one for two classes or regression), comma or space separated
)

// writeRows writes the rows of X with targets y to path in format.
func writeRows(path, format string, X matrix.Matrix, y []float64) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if format == formatLibSVM {
		return libsvm.Write(f, X, y)
	}
	return writeCSV(f, X, y)
}

// writeCSV writes a header label,x1,…,xd, then one line per row: its
// target and its d values, in the shortest form that reads back exactly.
func writeCSV(w io.Writer, X matrix.Matrix, y []float64) error {
	r, c := X.Dims()
	bw := bufio.NewWriter(w)
	bw.WriteString("label")
	for j := 1; j <= c; j++ {
		bw.WriteString(",x")
		bw.WriteString(strconv.Itoa(j))
	}
	bw.WriteByte('\n')
	row := make([]float64, c)
	var buf []byte
	for i := 0; i < r; i++ {
		clear(row)
		X.Row(i, func(j int, v float64) { row[j] = v })
		buf = strconv.AppendFloat(buf[:0], y[i], 'g', -1, 64)
		for _, v := range row {
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// lines returns the non-empty lines of r, each with its line number.
func lines(r io.Reader) ([]string, []int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	var out []string
	var nums []int
	for n := 1; sc.Scan(); n++ {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
			nums = append(nums, n)
		}
	}
	return out, nums, sc.Err()
}

// fields splits a line on commas and white space.
func fields(l string) []string {
	return strings.FieldsFunc(l, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// classIndex reads a label as repro wrote it: a class index in [0, k).
func classIndex(s string, k int) (int, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != math.Trunc(v) || v < 0 || v >= float64(k) {
		return 0, fmt.Errorf("label %q is not a class index; want 0 … %d, the labels repro wrote", s, k-1)
	}
	return int(v), nil
}

// readLabels reads n rows of liblinear's or libsvm's predict output: one
// label per line; with a first line "labels l₁ … lₘ" (-b 1), each label
// is followed by the m probabilities of l₁ … lₘ. For k classes (k > 0)
// the labels are class indices and the scores the probabilities (classes
// missing from the header score 0), or without them 1 for the predicted
// class and 0 for the others; for regression (k = 0) a label is the
// predicted value.
func readLabels(r io.Reader, n, k int) (*methods.Prediction, error) {
	ls, nums, err := lines(r)
	if err != nil {
		return nil, err
	}
	var header []int // the class of each probability column
	if len(ls) > 0 && strings.HasPrefix(ls[0], "labels") {
		if k == 0 {
			return nil, fmt.Errorf("line %d: a %q header in the predictions of a regression", nums[0], "labels")
		}
		for _, f := range fields(ls[0])[1:] {
			c, err := classIndex(f, k)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", nums[0], err)
			}
			header = append(header, c)
		}
		ls, nums = ls[1:], nums[1:]
	}
	if len(ls) != n {
		return nil, fmt.Errorf("%d predictions for %d rows", len(ls), n)
	}
	p := newPrediction(n, k)
	for i, l := range ls {
		fs := fields(l)
		if k == 0 {
			v, err := strconv.ParseFloat(fs[0], 64)
			if err != nil || len(fs) != 1 {
				return nil, fmt.Errorf("line %d: %q; want one predicted value", nums[i], l)
			}
			p.Values[i] = v
			continue
		}
		c, err := classIndex(fs[0], k)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", nums[i], err)
		}
		row := p.Scores[i*k : (i+1)*k]
		if header == nil {
			if len(fs) != 1 {
				return nil, fmt.Errorf("line %d: %d fields; want a label alone (probabilities need the \"labels\" header)", nums[i], len(fs))
			}
			row[c] = 1
			continue
		}
		if len(fs) != 1+len(header) {
			return nil, fmt.Errorf("line %d: %d fields; want a label and %d probabilities (the \"labels\" header's)", nums[i], len(fs), len(header))
		}
		for j, f := range fs[1:] {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: probability %q is not a number", nums[i], f)
			}
			row[header[j]] = v
		}
	}
	return p, nil
}

// newPrediction returns a zero prediction of n rows: n×k scores for k
// classes, n values for a regression (k = 0).
func newPrediction(n, k int) *methods.Prediction {
	if k == 0 {
		return &methods.Prediction{Values: make([]float64, n)}
	}
	return &methods.Prediction{K: k, Scores: make([]float64, n*k)}
}

// readScores reads n rows of scores: k numbers per line (one for two
// classes, the second class's score, or for regression, k = 0, the
// predicted value), separated by commas or white space. A first line that
// is not numbers is a header and skipped.
func readScores(r io.Reader, n, k int) (*methods.Prediction, error) {
	ls, nums, err := lines(r)
	if err != nil {
		return nil, err
	}
	if len(ls) > 0 && len(ls) == n+1 {
		if _, err := strconv.ParseFloat(fields(ls[0])[0], 64); err != nil {
			ls, nums = ls[1:], nums[1:]
		}
	}
	if len(ls) != n {
		return nil, fmt.Errorf("%d lines of scores for %d rows", len(ls), n)
	}
	p := newPrediction(n, k)
	for i, l := range ls {
		fs := fields(l)
		want := k
		if k <= 2 {
			want = 1
		}
		if len(fs) != want && !(k == 2 && len(fs) == 2) {
			w := fmt.Sprintf("%d scores", k)
			switch k {
			case 0:
				w = "one predicted value"
			case 2:
				w = "one score (the second class's) or two"
			}
			return nil, fmt.Errorf("line %d: %d fields; want %s", nums[i], len(fs), w)
		}
		vs := make([]float64, len(fs))
		for j, f := range fs {
			if vs[j], err = strconv.ParseFloat(f, 64); err != nil {
				return nil, fmt.Errorf("line %d: score %q is not a number", nums[i], f)
			}
		}
		switch {
		case k == 0:
			p.Values[i] = vs[0]
		case len(vs) == 1: // two classes: the second's score, the first's 0
			p.Scores[i*k+1] = vs[0]
		default:
			copy(p.Scores[i*k:(i+1)*k], vs)
		}
	}
	return p, nil
}
