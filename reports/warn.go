package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// minEdgeAxis is the fewest values a grid axis needs before a choice at
// its end is flagged: on a two-value axis every choice is an end.
const minEdgeAxis = 3

// edge is a grid axis whose smallest or largest value a cv or test rule
// chose in at least half the trials of a series: the best value may lie
// beyond the grid.
type edge struct {
	param    string
	low      bool    // the smallest value, else the largest
	value    float64 // that value
	min, max float64 // the axis' range
	n, of    int     // trials that chose it, trials that chose
}

// what is "the smallest c of the grid (0.1; grid 0.1 … 10)".
func (e edge) what() string {
	end := "largest"
	if e.low {
		end = "smallest"
	}
	return fmt.Sprintf("the %s %s of the grid (%s; grid %s … %s)", end, e.param, num(e.value), num(e.min), num(e.max))
}

// gridAxis returns the values of param name over the grid points of s's
// variant, and whether they are an ordered numeric axis long enough to
// have ends worth flagging.
func (s *series) gridAxis(name string) (lo, hi float64, ok bool) {
	if s.method == nil {
		return 0, 0, false
	}
	seen := map[float64]bool{}
	for _, g := range s.method.Grid {
		match := true
		for k, v := range s.variant {
			if param.Format(g[k]) != param.Format(v) {
				match = false
			}
		}
		if !match {
			continue
		}
		v, ok := g[name]
		if !ok {
			continue
		}
		x, isNum := toFloat(v)
		if _, isStr := v.(string); !isNum || isStr {
			return 0, 0, false // a kernel name, a bool, a list: no order
		}
		if len(seen) == 0 || x < lo {
			lo = x
		}
		if len(seen) == 0 || x > hi {
			hi = x
		}
		seen[x] = true
	}
	return lo, hi, len(seen) >= minEdgeAxis
}

// chosenParams returns the params a cv or test rule of s chooses: none
// for another rule.
func (s *series) chosenParams() []string {
	if !selector(s.method).Chooses || len(s.method.Grid) < 2 {
		return nil
	}
	if len(s.method.Select.Over) > 0 {
		return s.method.Select.Over
	}
	return s.method.Varying
}

// atEdge returns "lowest c" or "highest c" for each param of chosen at
// an end of its grid axis, for the chosen-hyperparameters table.
func (s *series) atEdge(chosen map[string]any) []string {
	var out []string
	for _, name := range s.chosenParams() {
		lo, hi, ok := s.gridAxis(name)
		x, isNum := toFloat(chosen[name])
		switch {
		case !ok || !isNum:
		case x == lo:
			out = append(out, "smallest "+name)
		case x == hi:
			out = append(out, "largest "+name)
		}
	}
	return out
}

// edges returns the grid axes of s whose smallest or largest value its
// rule chose in at least half of the trials that chose (over all sizes).
func (s *series) edges() []edge {
	var out []edge
	for _, name := range s.chosenParams() {
		lo, hi, ok := s.gridAxis(name)
		if !ok {
			continue
		}
		nlo, nhi, of := 0, 0, 0
		for _, r := range s.results {
			x, isNum := toFloat(r.Chosen[name])
			if r.Failed() || !isNum {
				continue
			}
			of++
			switch x {
			case lo:
				nlo++
			case hi:
				nhi++
			}
		}
		switch {
		case of == 0:
		case 2*nlo >= of:
			out = append(out, edge{param: name, low: true, value: lo, min: lo, max: hi, n: nlo, of: of})
		case 2*nhi >= of:
			out = append(out, edge{param: name, value: hi, min: lo, max: hi, n: nhi, of: of})
		}
	}
	return out
}

// notConverged returns how many successful trials of s ended with a fit
// stopped at its iteration cap, and how many succeeded.
func (s *series) notConverged() (n, of int) {
	for _, r := range s.results {
		if r.Failed() {
			continue
		}
		of++
		if r.NotConverged {
			n++
		}
	}
	return n, of
}

// Warnings returns what the report flags about spec's results that the
// user should act on, one error each, for `repro run` to repeat on
// stderr: a cv or test rule that chose the end of a numeric grid axis in
// at least half the trials of a series (widen the grid), and fits that
// stopped at their iteration cap.
func Warnings(sp *spec.Spec, recs []results.Result) []error {
	m := build(sp, recs)
	var out []error
	capped, fits := 0, 0
	var where []string
	for _, d := range m.datasets {
		for _, s := range d.series {
			for _, e := range s.edges() {
				out = append(out, fmt.Errorf("%s / %s: %s chose %s in %d of %d trials; widen the grid past it (see Chosen hyperparameters in %s)",
					d.id, s.display(), ruleWords(s.method), e.what(), e.n, e.of, ReportFile))
			}
			n, of := s.notConverged()
			capped, fits = capped+n, fits+of
			if n > 0 {
				where = append(where, fmt.Sprintf("%s / %s: %d", d.id, s.display(), n))
			}
		}
	}
	if capped > 0 {
		sort.Strings(where)
		if len(where) > 5 {
			where = append(where[:5], fmt.Sprintf("%d more series", len(where)-5))
		}
		out = append(out, fmt.Errorf("%d of %d trials ended with a fit stopped at its iteration cap before converging (%s); their results may be off: raise the method's iteration cap (max_iter or the like); %s flags them under Fit time",
			capped, fits, strings.Join(where, "; "), ReportFile))
	}
	return out
}

// ruleWords names the select rule of m in a sentence.
func ruleWords(m *spec.MethodSpec) string {
	if selector(m).Oracle {
		return "the test-set (oracle) choice"
	}
	return "cross-validation"
}
