package uci

import (
	"context"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/csv"
)

// AbaloneColumns are the column names of abalone.data (no header).
var AbaloneColumns = []string{"sex", "length", "diameter", "height", "whole", "shucked", "viscera", "shell", "rings"}

// AbaloneOptions are the csv options of the abalone plugin: rings as a
// regression target, sex one-hot (F, I, M) as group "sex", and the groups
// size = length, diameter, height and weight = whole, shucked, viscera,
// shell of Szafranski et al. 2007, in the order sex, size, weight.
func AbaloneOptions() csv.Options {
	o := csv.DefaultOptions()
	o.Header, o.Columns, o.Label, o.Task = false, AbaloneColumns, "rings", csv.TaskRegression
	o.Categorical = []string{"sex"}
	o.Groups = map[string]string{"size": "length,diameter,height", "weight": "whole,shucked,viscera,shell"}
	o.GroupOrder = []string{"sex", "size", "weight"}
	return o
}

func init() {
	datasets.RegisterTyped("abalone", datasets.TypedLoader[abaloneParams]{
		Doc:   "UCI abalone: rings on sex (one-hot group) and size/weight groups (Szafranski 2007), 4177 × 10",
		Files: func(p abaloneParams) []string { return []string{p.File} },
		Load: func(_ context.Context, env datasets.Env, p abaloneParams) (*datasets.Dataset, error) {
			d, err := loadCSV(env, p.File, uciSource+": abalone.data", AbaloneOptions())
			if err != nil {
				return nil, err
			}
			d.Name = "abalone"
			return d, nil
		},
	})
}

// abaloneParams are the parameters of abalone.
type abaloneParams struct {
	File string `param:"file" default:"uci/abalone/abalone.data" doc:"abalone.data, relative to the data directory"`
}
