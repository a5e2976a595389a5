package command

import (
	"bufio"
	"encoding/json"
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
	formatJSONL  = "jsonl"  // a JSON object per row: the document and its label
)

// The formats of the predictions read back.
const (
	outputLabels = "labels" // liblinear-predict, svm-predict: a label per line, optionally a "labels …" header and probabilities
	outputScores = "scores" // K numbers per line (one for two classes or regression), comma or space separated
)

// rows is what a program is given of a set of rows: their features, the
// documents of a text dataset, and the targets of the training rows (nil
// for the rows to predict, which a program sees without labels).
type rows struct {
	X       matrix.Matrix
	Y       []float64 // nil: the rows to predict
	Text    []string  // the documents, nil if the dataset keeps none
	Classes []string  // the class names, nil for regression
}

// writeRows writes r to path in format.
func writeRows(path, format string, r rows) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	y := r.Y
	if y == nil {
		n, _ := r.X.Dims()
		y = make([]float64, n)
	}
	switch format {
	case formatLibSVM:
		return libsvm.Write(f, r.X, y)
	case formatJSONL:
		return writeJSONL(f, r)
	}
	return writeCSV(f, r.X, y)
}

// writeJSONL writes one JSON object per row: {"label": 2, "class":
// "sci.med", "text": "…"} for a training row of a classification (label
// the class index, class its name), {"label": 3.5, "text": "…"} for a
// regression, {"text": "…"} for a row to predict. Text that is not valid
// UTF-8 is written with U+FFFD in place of each invalid byte.
func writeJSONL(w io.Writer, r rows) error {
	n, _ := r.X.Dims()
	if len(r.Text) != n {
		return fmt.Errorf("format %s needs the documents of a text dataset (the text plugin with keep_text: true, 20news or imdb with keep_text: true); this dataset keeps none", formatJSONL)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	type labelled struct {
		Label float64 `json:"label"`
		Class string  `json:"class,omitempty"`
		Text  string  `json:"text"`
	}
	type unlabelled struct {
		Text string `json:"text"`
	}
	for i, t := range r.Text {
		var err error
		switch {
		case r.Y == nil:
			err = enc.Encode(unlabelled{t})
		case r.Classes != nil:
			err = enc.Encode(labelled{r.Y[i], r.Classes[int(r.Y[i])], t})
		default:
			err = enc.Encode(labelled{Label: r.Y[i], Text: t})
		}
		if err != nil {
			return err
		}
	}
	return bw.Flush()
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
	v, err := number(s)
	if err != nil || v != math.Trunc(v) || v < 0 || v >= float64(k) {
		return 0, fmt.Errorf("label %q is not a class index; want 0 … %d, the labels repro wrote", s, k-1)
	}
	return int(v), nil
}

// number reads a number a program wrote: a finite decimal number
// (123, -0.5, 1e-3). Inf, NaN, a hexadecimal float (0x1p3), underscores
// and a number beyond the float64 range are errors: a prediction that is
// not a finite number is a failed fit, never a stored score.
func number(s string) (float64, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9', c == '.', c == 'e', c == 'E', c == '+', c == '-':
		default:
			return 0, fmt.Errorf("%q is not a finite decimal number", s)
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a finite decimal number", s)
	}
	return v, nil
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
			if len(fs) != 1 {
				return nil, fmt.Errorf("line %d: %q; want one predicted value", nums[i], l)
			}
			v, err := number(fs[0])
			if err != nil {
				return nil, fmt.Errorf("line %d: predicted value %v", nums[i], err)
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
			v, err := number(f)
			if err != nil {
				return nil, fmt.Errorf("line %d, field %d: probability %v", nums[i], j+2, err)
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
			if vs[j], err = number(f); err != nil {
				return nil, fmt.Errorf("line %d, field %d: score %v", nums[i], j+1, err)
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
