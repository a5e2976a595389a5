// Package embedded registers small real datasets compiled into repro, so
// that the quickstart and the tests run without a data directory:
//
//   - "dna-splice": StatLog DNA splice junctions (3186 sequences of 60
//     nucleotides; classes ei, ie, n), as the 180 given indicator bits or as
//     the 240-column one-hot encoding of Jebara 2004;
//   - "mcycle": motorcycle crash data, accel on times (133 rows);
//   - "diabetes": Efron et al.'s LARS diabetes data, raw (442 × 10);
//   - "iris": Fisher's iris (150 × 4, 3 classes).
//
// Provenance and licences are in data/README.md.
package embedded

import (
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	stdcsv "encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/csv"
	"github.com/repro-ml/repro/datasets/internal/dna"
	"github.com/repro-ml/repro/matrix"
)

//go:embed data/*.csv data/*.csv.gz
var files embed.FS

// Open returns the embedded file name (e.g. "iris.csv"; "dna_splice.csv"
// is stored gzipped and decompressed here).
func Open(name string) (io.Reader, error) {
	if b, err := files.ReadFile("data/" + name); err == nil {
		return bytes.NewReader(b), nil
	}
	b, err := files.ReadFile("data/" + name + ".gz")
	if err != nil {
		return nil, fmt.Errorf("embedded: no file %q", name)
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("embedded: %s: %w", name, err)
	}
	return z, nil
}

func table(name, label, task, note string) func(context.Context, datasets.Env, struct{}) (*datasets.Dataset, error) {
	return func(context.Context, datasets.Env, struct{}) (*datasets.Dataset, error) {
		r, err := Open(name + ".csv")
		if err != nil {
			return nil, err
		}
		o := csv.DefaultOptions()
		o.Label, o.Task = label, task
		d, err := csv.Read(r, "embedded "+name+".csv", o)
		if err != nil {
			return nil, err
		}
		d.Name = name
		d.Notes = append(d.Notes, note)
		return d, nil
	}
}

// The encodings of dna-splice.
const (
	EncodingBits   = "bits"
	EncodingOneHot = "onehot"
)

func init() {
	datasets.RegisterTyped("mcycle", datasets.TypedLoader[struct{}]{
		Doc:  "motorcycle crash data (Silverman 1985): regression of accel on times, 133 rows (embedded)",
		Load: table("mcycle", "accel", csv.TaskRegression, "mcycle: R MASS::mcycle (Silverman 1985), embedded copy"),
	})
	datasets.RegisterTyped("diabetes", datasets.TypedLoader[struct{}]{
		Doc:  "diabetes data of Efron et al. 2004 (raw, unscaled): regression, 442 × 10 (embedded)",
		Load: table("diabetes", "target", csv.TaskRegression, "diabetes: scikit-learn raw LARS diabetes data (Efron et al. 2004), unscaled, embedded copy"),
	})
	datasets.RegisterTyped("iris", datasets.TypedLoader[struct{}]{
		Doc:  "Fisher's iris: 3 classes, 150 × 4 (embedded)",
		Load: table("iris", "target", csv.TaskClassification, "iris: scikit-learn copy of Fisher's iris, embedded"),
	})
	datasets.RegisterTyped("dna-splice", datasets.TypedLoader[spliceParams]{
		Doc: "StatLog DNA splice junctions: 3186 × 60 nucleotides, classes ei/ie/n (embedded)",
		Load: func(_ context.Context, _ datasets.Env, p spliceParams) (*datasets.Dataset, error) {
			return DNASplice(p.Classes, p.Encoding)
		},
	})
}

// spliceParams are the parameters of dna-splice; the choices of encoding
// are the Encoding constants.
type spliceParams struct {
	Classes  []string `param:"classes" default:"[ei ie n]" doc:"classes kept, in this order (Jebara 2004: [ei, ie])"`
	Encoding string   `param:"encoding" enum:"bits|onehot" default:"bits" doc:"bits: the 180 given indicator columns (A=100 C=010 G=001 T=000); onehot: 240 = 60 positions × A,C,G,T"`
}

// DNASplice loads the embedded StatLog DNA data, keeping the rows of the
// given classes (in that class order) and encoding them as EncodingBits or
// EncodingOneHot.
func DNASplice(classes []string, encoding string) (*datasets.Dataset, error) {
	const file = "embedded dna_splice.csv"
	if len(classes) == 0 {
		return nil, fmt.Errorf("dna-splice: no classes given")
	}
	if encoding != EncodingBits && encoding != EncodingOneHot {
		return nil, fmt.Errorf("dna-splice: encoding %q: want %s or %s", encoding, EncodingBits, EncodingOneHot)
	}
	index := map[string]int{}
	for k, c := range classes {
		if _, dup := index[c]; dup {
			return nil, fmt.Errorf("dna-splice: class %q listed twice", c)
		}
		index[c] = k
	}
	r, err := Open("dna_splice.csv")
	if err != nil {
		return nil, err
	}
	cr := stdcsv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", file, err)
	}
	const nBits, seqLen = 180, 60
	if len(header) != nBits+2 || header[0] != "sequence" || header[len(header)-1] != "class" {
		return nil, fmt.Errorf("%s: unexpected header (want sequence, b001…b180, class)", file)
	}
	width := nBits
	names := header[1 : nBits+1]
	if encoding == EncodingOneHot {
		width, names = 4*seqLen, dna.FeatureNames(seqLen)
	}
	var data, y []float64
	seen := make([]int, len(classes))
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", file, line, err)
		}
		k, ok := index[rec[len(rec)-1]]
		if !ok {
			continue
		}
		seen[k]++
		y = append(y, float64(k))
		row := make([]float64, width)
		if encoding == EncodingOneHot {
			if len(rec[0]) != seqLen {
				return nil, fmt.Errorf("%s:%d: sequence of length %d, want %d", file, line, len(rec[0]), seqLen)
			}
			if err := dna.OneHot(row, rec[0]); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, line, err)
			}
		} else {
			for j, s := range rec[1 : nBits+1] {
				switch s {
				case "0":
				case "1":
					row[j] = 1
				default:
					return nil, fmt.Errorf("%s:%d: column %s: %q, want 0 or 1", file, line, names[j], s)
				}
			}
		}
		data = append(data, row...)
	}
	for k, n := range seen {
		if n == 0 {
			return nil, fmt.Errorf("dna-splice: class %q has no rows; classes are ei, ie, n", classes[k])
		}
	}
	d := &datasets.Dataset{
		Name:     "dna-splice",
		X:        matrix.NewDense(len(y), width, data),
		Y:        y,
		Classes:  append([]string(nil), classes...),
		Features: append([]string(nil), names...),
		Notes: []string{fmt.Sprintf("dna-splice: StatLog DNA (R mlbench), classes %s, %s encoding, embedded copy",
			strings.Join(classes, "/"), encoding)},
	}
	return d, d.Validate()
}
