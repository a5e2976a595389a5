package uci

import (
	"context"
	"fmt"
	"strconv"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/csv"
	"github.com/repro-ml/repro/matrix"
)

// IsoletFeatures is the number of ISOLET features.
const IsoletFeatures = 617

func init() {
	datasets.RegisterTyped("isolet", datasets.TypedLoader[isoletParams]{
		Doc:   "UCI ISOLET spoken letters: 617 features, 26 classes A–Z, given split isolet1-4 (6238) / isolet5 (1559)",
		Files: isoletFiles,
		Load: func(_ context.Context, env datasets.Env, p isoletParams) (*datasets.Dataset, error) {
			var paths []string
			for _, k := range isoletFiles(p) {
				path, err := env.Path(k, uciSource+": ISOLET (converted to CSV, see the data folder's README)")
				if err != nil {
					return nil, err
				}
				paths = append(paths, path)
			}
			return LoadIsolet(paths[0], paths[1])
		},
	})
}

// isoletParams are the parameters of isolet.
type isoletParams struct {
	TrainFile string `param:"train_file" default:"uci/isolet/isolet1+2+3+4.csv.gz" doc:"training part (617 values then the label 1–26 per line, no header)"`
	TestFile  string `param:"test_file" default:"uci/isolet/isolet5.csv.gz" doc:"test part, same format"`
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
