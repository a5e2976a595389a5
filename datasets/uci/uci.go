// Package uci registers loaders for the UCI and Delve datasets of the
// reproduced papers, read from the data directory (default paths as in the
// shared data folder's paper/ tree):
//
//   - "uci-splice": splice junctions, 3190 sequences one-hot encoded to 240
//     columns with ambiguity codes as fractions (Jebara 2004 uses EI+IE);
//   - "isolet": ISOLET spoken letters, 617 features, 26 classes, the given
//     split isolet1-4 (train) vs isolet5 (test);
//   - "dermatology": 34 attributes, 6 classes, missing ages imputed;
//   - "abalone": rings regression with sex one-hot and the size and weight
//     groups of Szafranski 2007 (a thin layer over the csv plugin);
//   - "delve-house-16l": Delve census-house house-price-16L, 16 inputs and
//     the median house price.
package uci

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/csv"
	"github.com/repro-ml/repro/datasets/internal/dna"
	"github.com/repro-ml/repro/datasets/internal/tabio"
	"github.com/repro-ml/repro/matrix"
)

const uciSource = "the UCI Machine Learning Repository (see the data folder's README)"

func init() {
	datasets.RegisterTyped("uci-splice", datasets.TypedLoader[spliceParams]{
		Doc:   "UCI splice junctions: 60 nucleotides one-hot → 240 columns (ambiguity codes fractional), classes EI/IE/N",
		Files: func(p spliceParams) []string { return []string{p.File} },
		Load: func(_ context.Context, env datasets.Env, p spliceParams) (*datasets.Dataset, error) {
			path, err := env.Path(p.File, uciSource+": splice.data of the splice-junction gene sequences")
			if err != nil {
				return nil, err
			}
			return LoadSplice(path, p.Classes)
		},
	})
}

// spliceParams are the parameters of uci-splice.
type spliceParams struct {
	File    string   `param:"file" default:"uci/splice/splice.data" doc:"splice.data, relative to the data directory"`
	Classes []string `param:"classes" default:"[EI IE N]" doc:"classes kept, in this order (Jebara 2004: [EI, IE], 1535 rows)"`
}

// LoadSplice reads UCI splice.data (lines "class, name, sequence"), keeping
// the rows of classes in that class order. Each of the 60 positions becomes
// 4 columns (A, C, G, T); an ambiguity code spreads its unit weight over the
// bases it stands for: N = ¼ each, D = A/G/T ⅓ each, R = A/G ½, S = C/G ½.
func LoadSplice(path string, classes []string) (*datasets.Dataset, error) {
	if len(classes) == 0 {
		return nil, fmt.Errorf("uci-splice: no classes given")
	}
	index := map[string]int{}
	for k, c := range classes {
		if _, dup := index[c]; dup {
			return nil, fmt.Errorf("uci-splice: class %q listed twice", c)
		}
		index[c] = k
	}
	f, err := tabio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	const seqLen = 60
	var data, y []float64
	seen := make([]int, len(classes))
	ambiguous := 0
	err = tabio.Lines(f, path, func(line int, text string) error {
		if strings.TrimSpace(text) == "" {
			return nil
		}
		fields := strings.Split(text, ",")
		if len(fields) != 3 {
			return tabio.Errorf(path, line, "%d fields, want 3 (class, instance name, sequence)", len(fields))
		}
		class, seq := strings.TrimSpace(fields[0]), strings.TrimSpace(fields[2])
		k, ok := index[class]
		if !ok {
			if class != "EI" && class != "IE" && class != "N" {
				return tabio.Errorf(path, line, "class %q, want EI, IE or N", class)
			}
			return nil
		}
		if len(seq) != seqLen {
			return tabio.Errorf(path, line, "sequence of %d letters, want %d", len(seq), seqLen)
		}
		row := make([]float64, 4*seqLen)
		if err := dna.OneHot(row, seq); err != nil {
			return tabio.Errorf(path, line, "%v", err)
		}
		if dna.Ambiguous(seq) {
			ambiguous++
		}
		seen[k]++
		y = append(y, float64(k))
		data = append(data, row...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, n := range seen {
		if n == 0 {
			return nil, fmt.Errorf("%s: class %q has no rows; classes are EI, IE, N", path, classes[k])
		}
	}
	d := &datasets.Dataset{
		Name:     "uci-splice",
		X:        matrix.NewDense(len(y), 4*seqLen, data),
		Y:        y,
		Classes:  append([]string(nil), classes...),
		Features: dna.FeatureNames(seqLen),
		Stats:    map[string]float64{"ambiguous_rows": float64(ambiguous)},
		Notes: []string{fmt.Sprintf("uci-splice: classes %s, one-hot 60×ACGT; %d sequences with ambiguity codes (N, D, R, S) encoded as fractions over the bases they stand for",
			strings.Join(classes, "/"), ambiguous)},
	}
	return d, d.Validate()
}

// loadCSV resolves file against env and reads it with o.
func loadCSV(env datasets.Env, file, source string, o csv.Options) (*datasets.Dataset, error) {
	path, err := env.Path(file, source)
	if err != nil {
		return nil, err
	}
	return csv.Load(path, o)
}

// renameClasses replaces the class codes 1…len(names) of d (as read from
// the file, in any subset) by names, so that class k+1 is names[k] with
// index k whatever codes the file holds.
func renameClasses(d *datasets.Dataset, names []string) error {
	remap := make([]float64, len(d.Classes))
	for k, c := range d.Classes {
		code, err := strconv.Atoi(c)
		if err != nil || code < 1 || code > len(names) {
			return fmt.Errorf("class %q, want a class number 1–%d", c, len(names))
		}
		remap[k] = float64(code - 1)
	}
	for i, y := range d.Y {
		d.Y[i] = remap[int(y)]
	}
	d.Classes = append([]string(nil), names...)
	return nil
}
