package active

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// checkSpec checks the active protocol's params against the rest of a spec
// (`repro validate`): the labels of full name methods (or all), the keys
// of budgets dataset ids, and the initial labelled rows are within the
// budget and each dataset's budgets entry under the params each method's
// trials run with (Spec.ProtocolParams). A value that fails its own
// declaration is reported by it, not here.
func checkSpec(c *spec.Checker) {
	s := c.Spec
	x := param.DecodeValid[activeParams](s.Protocol.Params)
	for i, name := range x.Full {
		if !c.MethodsOK || name == "all" || slices.Contains(c.Labels, name) {
			continue
		}
		msg := "unknown method " + param.Quote(name)
		if cl := param.Closest(name, c.Labels); cl != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", cl)
		}
		c.Errorf([]string{"protocol", "full", strconv.Itoa(i)}, spec.Index("protocol.full", i), "%s; want all or a method label (%s)", msg, strings.Join(c.Labels, ", "))
	}
	checkBudgets(c)
	if !c.DatasetsOK || len(x.Budgets) == 0 {
		return
	}
	for id := range x.Budgets {
		if !slices.ContainsFunc(s.Datasets, func(ds spec.DatasetSpec) bool { return ds.ID == id }) {
			c.KeyErrorf([]string{"protocol", "budgets"}, id, spec.Sub("protocol.budgets", id), "%s", c.UnknownDataset(id))
		}
	}
}

// checkBudgets checks that the initial labelled rows are within the budget
// and each dataset's budgets entry, under the params each method's trials
// run with: a problem is reported at the method's own protocol param if it
// sets it, else at the protocol's.
func checkBudgets(c *spec.Checker) {
	s := c.Spec
	check := func(p param.Values, at func(key string) ([]string, string)) {
		x := param.DecodeValid[activeParams](p)
		if x.Budget > 0 && x.Initial > x.Budget { // 0: absent or refused
			keys, path := at("initial")
			if !c.Has(keys...) {
				keys, path = at("budget")
			}
			c.Errorf(keys, path, "%d initial labelled rows, but a budget of %d; want initial ≤ budget", x.Initial, x.Budget)
		}
		for id, b := range x.Budgets {
			if n, err := strconv.Atoi(b); err == nil && x.Initial > n {
				keys, path := at("budgets")
				c.KeyErrorf(keys, id, spec.Sub(path, id), "a budget of %d for dataset %s, below the %d initial labelled rows; want at least %d", n, param.Quote(id), x.Initial, x.Initial)
			}
		}
	}
	protocol := func(key string) ([]string, string) { return []string{"protocol", key}, spec.Sub("protocol", key) }
	if len(s.Methods) == 0 {
		check(s.Protocol.Params, protocol)
	}
	for i := range s.Methods {
		m := &s.Methods[i]
		check(s.ProtocolParams(m), func(key string) ([]string, string) {
			if m.Protocol.Has(key) {
				return []string{"methods", strconv.Itoa(i), "protocol", key}, spec.Sub(spec.Sub(spec.Index("methods", i), "protocol"), key)
			}
			return protocol(key)
		})
	}
}
