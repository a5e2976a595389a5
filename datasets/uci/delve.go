package uci

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/csv"
	"github.com/repro-ml/repro/datasets/internal/tabio"
)

const delveSource = "DELVE (Rasmussen et al. 1996), census-house/house-price-16L prototask (see the data folder's README)"

func init() {
	datasets.RegisterTyped("delve-house-16l", datasets.TypedLoader[delveParams]{
		Doc:   "Delve census-house house-price-16L: 22784 × 16 inputs, target median house price",
		Files: delveFiles,
		Load: func(_ context.Context, env datasets.Env, p delveParams) (*datasets.Dataset, error) {
			data, err := env.Path(p.File, delveSource)
			if err != nil {
				return nil, err
			}
			spec := p.Spec
			if spec == "" {
				spec = filepath.Join(filepath.Dir(p.File), "Prototask.spec")
			}
			if spec, err = env.Path(spec, delveSource); err != nil {
				return nil, err
			}
			return LoadDelve(data, spec)
		},
	})
}

// delveParams are the parameters of delve-house-16l.
type delveParams struct {
	File string `param:"file" default:"delve/house-price-16L/Prototask.data.gz" doc:"Prototask.data(.gz), relative to the data directory"`
	Spec string `param:"spec" default:"" doc:"Prototask.spec; default: beside file"`
}

// DelveSpec is what LoadDelve uses from a Delve Prototask.spec file.
type DelveSpec struct {
	Inputs  []int // attribute numbers of the inputs, in data-file order
	Targets []int // attribute numbers of the targets, after the inputs
	// TestSetSize is the prototask's Test-set-size (0 if absent).
	TestSetSize int
}

// ReadDelveSpec parses the "Key: values" lines of a Prototask.spec file.
func ReadDelveSpec(path string) (DelveSpec, error) {
	var s DelveSpec
	f, err := tabio.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	ints := func(line int, key, v string) ([]int, error) {
		var out []int
		for _, w := range strings.Fields(v) {
			n, err := strconv.Atoi(w)
			if err != nil {
				return nil, tabio.Errorf(path, line, "%s: %q is not an attribute number", key, w)
			}
			out = append(out, n)
		}
		return out, nil
	}
	err = tabio.Lines(f, path, func(line int, text string) error {
		key, v, ok := strings.Cut(text, ":")
		if !ok {
			return nil
		}
		var err error
		switch strings.TrimSpace(key) {
		case "Inputs":
			s.Inputs, err = ints(line, "Inputs", v)
		case "Targets":
			s.Targets, err = ints(line, "Targets", v)
		case "Test-set-size":
			if s.TestSetSize, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				err = tabio.Errorf(path, line, "Test-set-size: %q is not an integer", strings.TrimSpace(v))
			}
		}
		return err
	})
	if err != nil {
		return s, err
	}
	if len(s.Inputs) == 0 || len(s.Targets) != 1 {
		return s, tabio.Errorf(path, 0, "want an Inputs line and a Targets line with one attribute, got %d inputs and %d targets", len(s.Inputs), len(s.Targets))
	}
	return s, nil
}

// LoadDelve reads a Delve prototask: whitespace-separated rows holding the
// spec's inputs then its target. Features are named after the census-house
// attribute numbers ("a4", "a5", …); the target is the last column.
func LoadDelve(dataPath, specPath string) (*datasets.Dataset, error) {
	spec, err := ReadDelveSpec(specPath)
	if err != nil {
		return nil, err
	}
	o := csv.DefaultOptions()
	o.Header, o.Sep, o.Task = false, csv.Whitespace, csv.TaskRegression
	for _, a := range spec.Inputs {
		o.Columns = append(o.Columns, "a"+strconv.Itoa(a))
	}
	target := "a" + strconv.Itoa(spec.Targets[0])
	o.Columns = append(o.Columns, target)
	o.Label = target
	d, err := csv.Load(dataPath, o)
	if err != nil {
		return nil, err
	}
	d.Name = "delve-house-16l"
	d.Stats = map[string]float64{"delve.test_set_size": float64(spec.TestSetSize)}
	d.Notes = append(d.Notes, fmt.Sprintf("delve: %s, features named by census-house attribute number, target %s (median house price); prototask test-set size %d (not imposed as a split)",
		filepath.Base(dataPath), target, spec.TestSetSize))
	return d, nil
}
