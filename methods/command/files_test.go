package command

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

func TestReadPredictions(t *testing.T) {
	tests := []struct {
		name    string
		output  string
		in      string
		n, k    int
		scores  []float64
		values  []float64
		wantErr string
	}{
		{name: "liblinear labels", output: outputLabels, in: "2\n0\n1\n", n: 3, k: 3,
			scores: []float64{0, 0, 1, 1, 0, 0, 0, 1, 0}},
		{name: "liblinear -b 1 header, columns in its own order", output: outputLabels,
			in: "labels 1 0 2\n1 0.7 0.2 0.1\n2 0.1 0.3 0.6\n", n: 2, k: 3,
			scores: []float64{0.2, 0.7, 0.1, 0.3, 0.1, 0.6}},
		{name: "libsvm -b 1, a class missing from the header", output: outputLabels,
			in: "labels 0 2\n0 0.9 0.1\n", n: 1, k: 3, scores: []float64{0.9, 0, 0.1}},
		{name: "labels as floats, blank lines, CRLF", output: outputLabels, in: "1.0\r\n\r\n0\r\n", n: 2, k: 2,
			scores: []float64{0, 1, 1, 0}},
		{name: "regression labels", output: outputLabels, in: "2.5\n-1e3\n", n: 2, values: []float64{2.5, -1000}},
		{name: "scores csv with a header", output: outputScores, in: "a,b,c\n0.1,0.2,0.7\n1,2,3\n", n: 2, k: 3,
			scores: []float64{0.1, 0.2, 0.7, 1, 2, 3}},
		{name: "one score for two classes", output: outputScores, in: "-0.5\n2\n", n: 2, k: 2,
			scores: []float64{0, -0.5, 0, 2}},
		{name: "two scores for two classes, spaces", output: outputScores, in: "0.3 0.7\n", n: 1, k: 2,
			scores: []float64{0.3, 0.7}},
		{name: "regression scores", output: outputScores, in: "y\n1.5\n", n: 1, values: []float64{1.5}},

		{name: "too few rows", output: outputLabels, in: "1\n", n: 2, k: 2, wantErr: "1 predictions for 2 rows"},
		{name: "label not a class index", output: outputLabels, in: "0\n3\n", n: 2, k: 3,
			wantErr: `line 2: label "3" is not a class index; want 0 … 2, the labels repro wrote`},
		{name: "class names are not indices", output: outputLabels, in: "yes\n", n: 1, k: 2, wantErr: `line 1: label "yes" is not a class index`},
		{name: "probabilities without the header", output: outputLabels, in: "1 0.2 0.8\n", n: 1, k: 2,
			wantErr: `line 1: 3 fields; want a label alone (probabilities need the "labels" header)`},
		{name: "probabilities short of the header", output: outputLabels, in: "labels 0 1\n1 0.8\n", n: 1, k: 2,
			wantErr: `line 2: 2 fields; want a label and 2 probabilities`},
		{name: "header of a regression", output: outputLabels, in: "labels 0 1\n1\n", n: 1, wantErr: "a \"labels\" header in the predictions of a regression"},
		{name: "wrong number of scores", output: outputScores, in: "0.1,0.9\n", n: 1, k: 3, wantErr: "line 1: 2 fields; want 3 scores"},
		{name: "score not a number", output: outputScores, in: "0.1,x,0.2\n", n: 1, k: 3, wantErr: `line 1, field 2: score "x" is not a finite decimal number`},
		// Issue 43: Inf, -Inf and 0x1p3 were accepted while NaN was refused.
		{name: "score Inf", output: outputScores, in: "0.1,Inf,0.2\n", n: 1, k: 3, wantErr: `line 1, field 2: score "Inf" is not a finite decimal number`},
		{name: "score -Inf", output: outputScores, in: "0.5\n-Inf\n", n: 2, k: 2, wantErr: `line 2, field 1: score "-Inf" is not a finite decimal number`},
		{name: "score hexadecimal", output: outputScores, in: "0x1p3\n", n: 1, k: 0, wantErr: `line 1, field 1: score "0x1p3" is not a finite decimal number`},
		{name: "score beyond float64", output: outputScores, in: "1e400\n", n: 1, k: 0, wantErr: `score "1e400" is not a finite decimal number`},
		{name: "score NaN", output: outputScores, in: "nan\n", n: 1, k: 0, wantErr: `score "nan" is not a finite decimal number`},
		{name: "regression label inf", output: outputLabels, in: "1\ninf\n", n: 2, wantErr: `line 2: predicted value "inf" is not a finite decimal number`},
		{name: "probability infinity", output: outputLabels, in: "labels 0 1\n1 0.2 +Infinity\n", n: 1, k: 2,
			wantErr: `line 2, field 3: probability "+Infinity" is not a finite decimal number`},
		{name: "label hexadecimal", output: outputLabels, in: "0x1p0\n", n: 1, k: 2, wantErr: `line 1: label "0x1p0" is not a class index`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := readLabels
			if tt.output == outputScores {
				read = readScores
			}
			p, err := read(strings.NewReader(tt.in), tt.n, tt.k)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v; want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.K != tt.k || !slices.Equal(p.Scores, tt.scores) || !slices.Equal(p.Values, tt.values) {
				t.Errorf("K=%d scores %v values %v; want K=%d %v %v", p.K, p.Scores, p.Values, tt.k, tt.scores, tt.values)
			}
		})
	}
}

func TestWriteCSV(t *testing.T) {
	X := matrix.ToCSR(matrix.NewDense(2, 3, []float64{0, 1.5, 0, 2, 0, 1e-20}))
	var b bytes.Buffer
	if err := writeCSV(&b, X, []float64{1, 0}); err != nil {
		t.Fatal(err)
	}
	want := "label,x1,x2,x3\n1,0,1.5,0\n0,2,0,1e-20\n"
	if b.String() != want {
		t.Errorf("CSV\n%s\nwant\n%s", b.String(), want)
	}
}

// format jsonl writes the documents, with labels for training rows only.
func TestWriteJSONL(t *testing.T) {
	X := matrix.NewDense(2, 1, []float64{1, 2})
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	for _, tt := range []struct {
		r    rows
		want string
	}{
		{rows{X: X, Y: []float64{1, 0}, Classes: []string{"neg", "pos"}, Text: []string{"a <b> & \"c\"", "é\n"}},
			`{"label":1,"class":"pos","text":"a <b> & \"c\""}` + "\n" + `{"label":0,"class":"neg","text":"é\n"}` + "\n"},
		{rows{X: X, Y: []float64{2.5, -1}, Text: []string{"x", "y"}}, `{"label":2.5,"text":"x"}` + "\n" + `{"label":-1,"text":"y"}` + "\n"},
		{rows{X: X, Text: []string{"x", "y"}}, `{"text":"x"}` + "\n" + `{"text":"y"}` + "\n"},
	} {
		if err := writeRows(path, formatJSONL, tt.r); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != tt.want {
			t.Errorf("wrote %q; want %q", b, tt.want)
		}
	}
	err := writeRows(path, formatJSONL, rows{X: X, Y: []float64{1, 0}})
	if err == nil || !strings.Contains(err.Error(), "needs the documents of a text dataset") {
		t.Errorf("without documents: %v; want an error saying the documents are needed", err)
	}
}
