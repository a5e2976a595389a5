package fakeplugin

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// Fixtures with Validate hooks: a method shaped like med (ρ in (0, 1], a
// list of kernels whose inner syntax only the plugin knows) and a dataset
// whose params relate to each other.
func init() {
	methods.Register("fake-med", &methods.Plugin{
		Doc:   "a method with a Validate hook (test fixture)",
		Kinds: methods.Classification,
		Params: []param.Decl{
			{Name: "c", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true, Doc: "regularization"},
			{Name: "rho", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true, Max: param.Bound(1), Doc: "prior weight"},
			{Name: "kernels", Type: param.StringList, Default: []string{"linear"}, Doc: "kernels: linear or rbf:WIDTH"},
			{Name: "tag", Type: param.String, Default: "", Doc: "boom fails the whole point"},
		},
		New: func(param.Values) (methods.Method, error) { return &Centroid{}, nil },
		Validate: func(p param.Values) error {
			var errs []error
			for i, k := range p.Strings("kernels") {
				if w, ok := strings.CutPrefix(k, "rbf:"); ok {
					if _, err := strconv.ParseFloat(w, 64); err != nil {
						errs = append(errs, param.InvalidElem("kernels", i, "%q has no width; want rbf:WIDTH", k))
					}
				} else if k != "linear" {
					errs = append(errs, param.InvalidElem("kernels", i, "unknown kernel %q; want linear or rbf:WIDTH", k))
				}
			}
			if p.Float("c") > 100 && p.Float("rho") < 0.5 {
				errs = append(errs, param.Invalid("c", "%v with rho %v does not converge; want c ≤ 100 or rho ≥ 0.5", p.Float("c"), p.Float("rho")))
			}
			if p.String("tag") == "boom" {
				errs = append(errs, errors.New("boom is not a tag; want anything else"))
			}
			return errors.Join(errs...)
		},
	})
	datasets.Register("fake-checked", &datasets.Loader{
		Doc: "a dataset with a Validate hook (test fixture)",
		Params: []param.Decl{
			{Name: "n", Type: param.Int, Default: 10, Min: param.Bound(1), Doc: "rows"},
			{Name: "test", Type: param.Int, Default: 2, Min: param.Bound(1), Doc: "test rows"},
		},
		Load: func(context.Context, datasets.Env, param.Values) (*datasets.Dataset, error) {
			return nil, errors.New("not loadable")
		},
		Validate: func(p param.Values) error {
			if p.Int("test") >= p.Int("n") {
				return param.Invalid("test", "%d rows of %d; want fewer test rows than rows", p.Int("test"), p.Int("n"))
			}
			return nil
		},
	})
}
