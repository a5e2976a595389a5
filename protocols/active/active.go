package active

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

func init() {
	// The default strategy registers first: the protocol's declarations
	// check their default against the registry.
	Strategies.Register("random", &Strategy{
		Doc:   "uniformly at random among the unlabelled rows; from the trial's seed only, so every method sees the same labelled sets",
		Blind: true,
		Query: func(q *Query) ([]int, error) {
			return q.Rand.Perm(len(q.Candidates))[:q.N], nil
		},
	})
	spec.Protocols.Register("active", &runner.Protocol{
		Protocol: spec.Protocol{
			Doc: "pool-based active learning: from an initial labelled sample of the pool, a query strategy " +
				"buys `batch` labels at a time until `budget`; the learner is refitted and scored on the test part after every batch",
			Params: param.Of[activeParams]().Params,
			// A method entry may change how its series buys labels; the
			// initial labelled rows are the first of the pool's sampling
			// order, which no method param changes, so series of different
			// strategies start from the same rows in every trial.
			PerMethod: []string{"initial", "batch", "budget", "strategy", "budgets"},
			XName:     "number of labelled rows",
			Check:     checkSpec,
			Sections:  []string{"active learning summary"}, // reports.ActiveSummary
			Steps: func(p param.Values) int {
				x := paramsOf(p)
				initial, batch, budget := x.Initial, x.Batch, x.Budget
				for _, s := range x.Budgets {
					if b, err := strconv.Atoi(s); err == nil {
						budget = max(budget, b)
					}
				}
				if budget <= initial {
					return 1
				}
				return 1 + (budget-initial+batch-1)/batch
			},
		},
		Run:       runActive,
		CheckPool: checkPool,
	})
}

// runActive runs the pool-based loop of active learning and returns one
// observation per batch, at x = the number of labelled rows.
func runActive(ctx context.Context, t *runner.TrialRun, p param.Values) ([]results.Observation, error) {
	if t.Part.Test == nil {
		return nil, fmt.Errorf("protocol active needs a fixed test part (split kind given, holdout or kfold), not %q", t.Trial.Dataset.Split.KindName())
	}
	if rule := t.Trial.Method.Select.RuleName(); isOracle(rule) {
		return nil, fmt.Errorf("method %q: protocol active cannot select on the test part (select rule %s is an oracle rule); use fixed or cv", t.Trial.Method.Label, rule)
	}
	x, err := param.Decode[activeParams](p)
	if err != nil {
		return nil, fmt.Errorf("protocol active: %w", err)
	}
	strat, err := Strategies.Lookup(x.Strategy)
	if err != nil {
		return nil, err
	}
	order, err := t.Order()
	if err != nil {
		return nil, err
	}
	initial, batch := x.Initial, x.Batch
	budget := x.Budget
	if s, ok := x.Budgets[t.Trial.Dataset.ID]; ok {
		b, err := strconv.Atoi(s)
		if err != nil || b < 1 {
			return nil, fmt.Errorf("protocol active: budgets: %s: %q is not a positive whole number of labels", t.Trial.Dataset.ID, s)
		}
		budget = b
	}
	if budget > len(order) {
		// Capping it would draw a curve that stops short of what the
		// spec asks, unannounced; initial over the pool is refused alike.
		return nil, fmt.Errorf("protocol active: a budget of %d labels, but the pool of dataset %s has %d rows; want budget ≤ %d (budgets: {%s: N} sets one dataset's)",
			budget, t.Trial.Dataset.ID, len(order), len(order), t.Trial.Dataset.ID)
	}
	if initial > budget {
		return nil, fmt.Errorf("protocol active: initial %d exceeds the budget %d", initial, budget)
	}
	// The query randomness comes from the trial's sample seed, not the
	// method's: random queries give every method the same labelled sets.
	rng := rand.New(rand.NewPCG(spec.Derive(t.Seeds.Sample, "query"), 0x9e3779b9))
	labelled := append([]int(nil), order[:initial]...)
	test := t.Part.Test
	res := t.Result
	res.TestRows = len(test)
	// Without transforms fitted on the training rows, the test set is the
	// same at every batch and the candidates are rows of Data: the test
	// set is built once and the candidates are a view, not a copy.
	fixed := !fitsOnTrain(t) && t.Data.Prep == nil // else Sets refits per batch
	var testSet *datasets.Dataset
	if fixed {
		testSet = t.Data.Subset(test)
	}
	var obs []results.Observation
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows := slices.Clone(labelled)
		sort.Ints(rows)
		// The candidates, without labels, are the strategy's input and
		// the fit's Env.Unlabelled (EE measures its expected error on them).
		cands := datasets.Complement(t.Part.Pool, rows)
		var train *datasets.Dataset
		if fixed {
			train = t.Data.Subset(rows)
			t.SetUnlabelled(viewRows(t.Data.X, cands))
		} else {
			if train, testSet, err = t.Sets(ctx, rows, test); err != nil {
				return nil, err
			}
			candSet, err := unlabelled(ctx, t, rows, cands)
			if err != nil {
				return nil, err
			}
			t.SetUnlabelled(candSet.X)
		}
		model, err := t.Fit(ctx, train, testSet)
		if err != nil {
			return nil, fmt.Errorf("at %d labels: %w", len(rows), err)
		}
		pred, err := t.Predict(model, testSet)
		if err != nil {
			return nil, fmt.Errorf("at %d labels: %w", len(rows), err)
		}
		metrics, err := t.Score(pred, testSet)
		if err != nil {
			return nil, err
		}
		obs = append(obs, results.Observation{X: float64(len(rows)), Metrics: metrics, Extras: runner.Extras(model)})
		res.Size, res.TrainRows = len(rows), len(rows)
		q := &Query{N: min(batch, budget-len(labelled), len(cands)), Candidates: cands, Rand: rng}
		if len(labelled) >= budget || q.N == 0 {
			if err := t.SaveArtifacts(model); err != nil {
				return nil, err
			}
			if slices.Contains(x.Full, "all") || slices.Contains(x.Full, t.Trial.Method.Label) {
				if err := scoreFullPool(ctx, t, &obs[len(obs)-1]); err != nil {
					return nil, err
				}
			}
			return obs, nil
		}
		// The strategy sees predictions on the candidates, never their
		// labels: the candidate set is passed without Y.
		if !strat.Blind {
			if q.Pred, err = methods.Predict(model, t.Unlabelled()); err != nil {
				return nil, err
			}
		}
		picked, err := strat.Query(q)
		if err != nil {
			return nil, fmt.Errorf("query strategy %q: %w", x.Strategy, err)
		}
		if err := checkPicked(picked, q); err != nil {
			return nil, fmt.Errorf("query strategy %q: %w", x.Strategy, err)
		}
		for _, i := range picked {
			labelled = append(labelled, cands[i])
		}
	}
}

// isOracle reports whether the select rule called rule looks at the test
// rows (Selector.Oracle).
func isOracle(rule string) bool {
	sel, err := spec.LookupSelector(rule)
	return err == nil && sel.Oracle
}

// activeParams are the params of the active protocol.
type activeParams struct {
	Initial  int               `param:"initial" range:"[1, +inf)" default:"10" doc:"labelled rows at the start, the first of the pool's sampling order (curve.sampling)"`
	Batch    int               `param:"batch" range:"[1, +inf)" default:"10" doc:"labels bought per query"`
	Budget   int               `param:"budget" range:"[1, +inf)" default:"200" doc:"labelled rows at the end (at most the pool's rows)"`
	Strategy string            `param:"strategy" default:"random" check:"KnownStrategy" doc:"the query strategy (repro list strategies)"`
	Budgets  map[string]string `param:"budgets" default:"{}" check:"PositiveCounts" doc:"budgets of single datasets by dataset id, over budget (Bilgic: {cora: 400})"`
	Full     []string          `param:"full" default:"[]" doc:"labels of the methods (all: every method) also fitted on the whole pool once, after the last batch, their metrics recorded as extras full_<metric> of the last observation: the full-pool score reports measure the labels needed against"`
}

// KnownStrategy accepts the name of a registered query strategy.
func (activeParams) KnownStrategy(v any) error {
	name, _ := v.(string)
	if _, err := Strategies.Lookup(name); err == nil {
		return nil
	}
	names := Strategies.Names()
	msg := "is not a query strategy"
	if c := param.Closest(name, names); c != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", c)
	}
	return fmt.Errorf("%s; want one of %s", msg, strings.Join(names, ", "))
}

// PositiveCounts accepts a map whose values are whole numbers ≥ 1.
func (activeParams) PositiveCounts(v any) error {
	for k, s := range v.(map[string]string) {
		if n, err := strconv.Atoi(s); err != nil || n < 1 {
			return fmt.Errorf("%s: %q is not a whole number of labels ≥ 1", k, s)
		}
	}
	return nil
}

// paramsOf returns the protocol's params, which the spec's decoder has
// checked, as an activeParams: a missing value (a spec built in code) is
// its default. A value the declarations refuse is a programming error, as
// a getter's panic was.
func paramsOf(p param.Values) activeParams {
	x, err := param.Decode[activeParams](p)
	if err != nil {
		panic(fmt.Sprintf("protocol active: params %v: %v", p, err))
	}
	return x
}

// scoreFullPool fits the method on every row of the pool, once, after the
// loop, and records its metrics as extras FullPrefix+<metric> of o.
// Env.Unlabelled is empty: nothing of the pool is unlabelled.
//
// The fit depends on the pool, the test part and the method only: it
// starts from a fresh methods.State (not the loop's) and its seed derives
// from the pool, not from the trial. The trials of one pool — kfold's
// repeats with refold: false, under any query strategy — therefore share
// one fit, which the run caches: one per fold and method, not one per
// repeat.
func scoreFullPool(ctx context.Context, t *runner.TrialRun, o *results.Observation) error {
	pool := slices.Clone(t.Part.Pool)
	sort.Ints(pool)
	key := fullPoolKey(t.DataID(), pool, t.Part.Test, t.Trial.SeedName(), t.Spec.Metrics)
	res := t.Result
	v, err, wait := t.Share(key, func() (any, error) {
		train, testSet, err := t.Sets(ctx, pool, t.Part.Test)
		if err != nil {
			return fullScore{}, err
		}
		// The fit on the pool must not depend on which trial of the
		// pool runs it: a fresh State, a seed of the pool's. Its
		// iterations go into the cached score, which every trial of the
		// pool adds alike, whichever of them ran the fit.
		var m results.Metrics
		iters, err := t.Apart(spec.Derive(t.Spec.Seed, "full", t.Trial.Dataset.ID, key), func() error {
			model, err := t.Fit(ctx, train, testSet)
			if err != nil {
				return fmt.Errorf("on the whole pool (%d rows): %w", len(pool), err)
			}
			pred, err := t.Predict(model, testSet)
			if err != nil {
				return fmt.Errorf("on the whole pool (%d rows): %w", len(pool), err)
			}
			m, err = t.Score(pred, testSet)
			return err
		})
		if m == nil && err != nil {
			return fullScore{}, err
		}
		return fullScore{Metrics: m, Iterations: iters, NotConverged: res.NotConverged}, err
	})
	if o.Extras == nil {
		o.Extras = results.Metrics{}
	}
	extras := o.Extras
	add := func(v any) {
		full := v.(fullScore)
		res.Iterations += full.Iterations
		res.NotConverged = full.NotConverged
		for name, v := range full.Metrics {
			extras[results.FullPrefix+name] = v
		}
	}
	if wait != nil {
		// Another trial of the pool is fitting it: this trial ends
		// when that fit does, and its worker goes on to the next.
		t.After(func() error {
			v, err := wait()
			if err != nil {
				return err
			}
			add(v)
			return nil
		})
		return nil
	}
	if err != nil {
		return err
	}
	add(v)
	return nil
}

// fullScore is a cached full-pool score: the metrics, and the iterations
// and convergence of the fit that every trial of the pool records.
type fullScore struct {
	Metrics      results.Metrics
	Iterations   int
	NotConverged bool
}

// fullPoolKey identifies a full-pool score: the data's content, the pool
// and test rows, the series (method label and grid point) and the metrics.
func fullPoolKey(dataID string, pool, test []int, series string, metrics []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00", dataID, series, metrics)
	var b [8]byte
	for _, rows := range [][]int{pool, test} {
		binary.LittleEndian.PutUint64(b[:], uint64(len(rows)))
		h.Write(b[:])
		for _, r := range rows {
			binary.LittleEndian.PutUint64(b[:], uint64(r))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// fitsOnTrain reports whether the dataset has transforms fitted on the
// training rows (fit: train), which make every batch's sets anew.
func fitsOnTrain(t *runner.TrialRun) bool {
	for _, ts := range t.Trial.Dataset.Transforms {
		if ts.Fit == spec.FitTrain {
			return true
		}
	}
	return false
}

// unlabelled returns the rows cands with the fit: train transforms fitted
// on train applied, and without labels.
func unlabelled(ctx context.Context, t *runner.TrialRun, train, cands []int) (*datasets.Dataset, error) {
	_, set, err := t.Sets(ctx, train, cands)
	if err != nil {
		return nil, err
	}
	u := *set
	u.Y, u.Classes = nil, nil
	return &u, nil
}

// checkPicked checks that a strategy returned q.N distinct candidates.
func checkPicked(picked []int, q *Query) error {
	if len(picked) != q.N {
		return fmt.Errorf("returned %d rows, want %d", len(picked), q.N)
	}
	seen := make(map[int]bool, len(picked))
	for _, i := range picked {
		if i < 0 || i >= len(q.Candidates) || seen[i] {
			return fmt.Errorf("returned candidate index %d: out of range or repeated", i)
		}
		seen[i] = true
	}
	return nil
}

// checkPool checks that the initial labelled rows of the protocol and of
// each method's own protocol params fit in the pool of dataset entry ds.
func checkPool(sp *spec.Spec, ds *spec.DatasetSpec, pool int, where string, fail func(path, format string, args ...any)) {
	// check reports the values of p over the pool whose key own accepts
	// (a method's: those it sets itself; the protocol's are reported once).
	check := func(p param.Values, path func(key string) string, own func(key string) bool) {
		x := param.DecodeValid[activeParams](p)
		if x.Initial > pool && own("initial") {
			fail(path("initial"), "%d initial labelled rows, but %s; want at most %d", x.Initial, where, pool)
		}
		if b, ok := x.Budgets[ds.ID]; ok {
			if n, err := strconv.Atoi(b); err == nil && n > pool && own("budgets") {
				fail(spec.Sub(path("budgets"), ds.ID), "a budget of %d labels, but %s; want at most %d", n, where, pool)
			}
		} else if x.Budget > pool && own("budget") {
			fail(path("budget"), "a budget of %d labels, but %s; want at most %d (budgets: {%s: N} sets one dataset's)", x.Budget, where, pool, ds.ID)
		}
	}
	check(sp.Protocol.Params, func(key string) string { return spec.Sub("protocol", key) }, func(string) bool { return true })
	for k := range sp.Methods {
		m := &sp.Methods[k]
		if !m.RunsOn(ds.ID) || !(m.Protocol.Has("initial") || m.Protocol.Has("budget") || m.Protocol.Has("budgets")) {
			continue
		}
		check(sp.ProtocolParams(m), func(key string) string {
			return spec.Sub(spec.Sub(spec.Index("methods", k), "protocol"), key)
		}, m.Protocol.Has)
	}
}
