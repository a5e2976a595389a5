package uci

import (
	"context"
	"fmt"
	"strconv"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/csv"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// IsoletFeatures is the number of ISOLET features.
const IsoletFeatures = 617

func init() {
	datasets.Register("isolet", &datasets.Loader{
		Doc: "UCI ISOLET spoken letters: 617 features, 26 classes A–Z, given split isolet1-4 (6238) / isolet5 (1559)",
		Params: []param.Decl{
			{Name: "train_file", Type: param.String, Default: "uci/isolet/isolet1+2+3+4.csv.gz", Doc: "training part (617 values then the label 1–26 per line, no header)"},
			{Name: "test_file", Type: param.String, Default: "uci/isolet/isolet5.csv.gz", Doc: "test part, same format"},
		},
		Files: isoletFiles,
		Load: func(_ context.Context, env datasets.Env, p param.Values) (*datasets.Dataset, error) {
			var paths []string
			for _, k := range []string{"train_file", "test_file"} {
				path, err := env.Path(p.String(k), uciSource+": ISOLET (converted to CSV, see the data folder's README)")
				if err != nil {
					return nil, err
				}
				paths = append(paths, path)
			}
			return LoadIsolet(paths[0], paths[1])
		},
	})
}

// LoadIsolet reads the ISOLET training and test files (comma-separated, no
// header, 617 features then the class number 1–26) into one dataset whose
// given split marks the test rows. Classes are the letters A–Z.
func LoadIsolet(trainPath, testPath string) (*datasets.Dataset, error) {
	o := csv.DefaultOptions()
	o.Header = false
	o.Columns = make([]string, IsoletFeatures+1)
	for j := 0; j < IsoletFeatures; j++ {
		o.Columns[j] = "f" + strconv.Itoa(j+1)
	}
	o.Columns[IsoletFeatures] = "letter"
	o.Label, o.Task = "letter", csv.TaskClassification
	o.MinClasses = 1 // a part on its own may hold one letter; the classes are the 26 letters anyway
	letters := make([]string, 26)
	for k := range letters {
		letters[k] = string(rune('A' + k))
	}
	var parts [2]*datasets.Dataset
	for k, path := range []string{trainPath, testPath} {
		d, err := csv.Load(path, o)
		if err != nil {
			return nil, err
		}
		if err := renameClasses(d, letters); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		parts[k] = d
	}
	train, test := parts[0], parts[1]
	tr, ts := train.Rows(), test.Rows()
	data := make([]float64, 0, (tr+ts)*IsoletFeatures)
	data = append(data, train.X.(*matrix.Dense).RawData()...)
	data = append(data, test.X.(*matrix.Dense).RawData()...)
	d := &datasets.Dataset{
		Name:     "isolet",
		X:        matrix.NewDense(tr+ts, IsoletFeatures, data),
		Y:        append(append([]float64(nil), train.Y...), test.Y...),
		Classes:  letters,
		Features: train.Features,
		Split:    make([]datasets.Part, tr+ts),
		Notes:    []string{fmt.Sprintf("isolet: given split isolet1-4 (%d rows, sorted by class in this copy) / isolet5 (%d rows); features in [-1, 1] as distributed", tr, ts)},
	}
	for i := tr; i < tr+ts; i++ {
		d.Split[i] = datasets.SplitTest
	}
	return d, d.Validate()
}
