package reports

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// Active-learning summaries (Bilgic 2012, issue 12 §3), written after the
// datasets' sections when the experiment's protocol is active:
//
//   - the area under each trial's learning curve, normalized by the label
//     range it spans, mean ± sd over trials, per series and dataset;
//   - the labels the mean curve needs to reach ReachFraction of the
//     full-pool score (the active protocol's full: true records it);
//   - Win/Tie/Loss of the baseline against every other series, counted
//     over the iterations (batches) by a paired t-test at each, one row
//     per dataset: the layout of Bilgic's Tables 1–3.

// ReachFraction is the fraction of the full-pool score the labels-needed
// summary measures against: Bilgic's budgets are where a method comes
// within 2% of the score of training on all the data.
const ReachFraction = 0.98

// ActiveSummary is the report section of the active-learning summaries: a
// protocol that lists it in its Sections (spec.Protocol) has it.
const ActiveSummary = "active learning summary"

// writeActive writes the active-learning summaries of every metric of
// known direction; nothing for a protocol without the section.
func (m *model) writeActive(w *bytes.Buffer) {
	if !m.section(ActiveSummary) {
		return
	}
	fmt.Fprintf(w, "## Active learning summary\n\n")
	strategy := fmt.Sprint(m.spec.Protocol.Params["strategy"])
	fmt.Fprintf(w, "Query strategy: %s%s. A curve point is the mean over the trials — (fold, repeat) pairs of the split — at one number of labelled rows.\n\n", mdText(strategy), m.ownStrategies())
	for _, mn := range m.spec.Metrics {
		// The averaging a multi-class metric uses (auc: the mean of the
		// one-vs-rest AUCs) is part of what the numbers mean.
		if mt, err := metric.Lookup(mn); err == nil {
			fmt.Fprintf(w, "Metric %s: %s.\n\n", mn, mt.Doc)
		}
	}
	for _, mn := range m.spec.Metrics {
		higher, known := direction(mn)
		if !known {
			continue
		}
		m.writeAULC(w, mn)
		m.writeReach(w, mn, higher)
		m.writeActiveWTL(w, mn, higher, strategy)
	}
}

// strategyOf returns the query strategy series s runs with: its
// method's own (methods[i].protocol) or the experiment's.
func (m *model) strategyOf(s *series) string {
	return fmt.Sprint(m.spec.ProtocolParams(s.method)["strategy"])
}

// ownStrategies lists the methods that set their own query strategy, for
// the summary's first line: "; L2-unc: uncertainty, DDR-unc: uncertainty".
func (m *model) ownStrategies() string {
	var parts []string
	for i := range m.spec.Methods {
		ms := &m.spec.Methods[i]
		if s, ok := ms.Protocol["strategy"]; ok {
			parts = append(parts, mdText(ms.Label)+": "+mdText(fmt.Sprint(s)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; set by the method: " + strings.Join(parts, ", ")
}

// aulc returns the area under the learning curve of one trial's
// observations of mn, by the trapezoidal rule over the number of labels,
// divided by the label range: the curve's mean height, in the metric's
// units. A single observation is its own value; a curve with a missing
// value is NaN.
func aulc(xs, ys []float64) float64 {
	switch len(xs) {
	case 0:
		return math.NaN()
	case 1:
		return ys[0]
	}
	area := 0.0
	for i := 1; i < len(xs); i++ {
		area += (xs[i] - xs[i-1]) * (ys[i] + ys[i-1]) / 2
	}
	return area / (xs[len(xs)-1] - xs[0])
}

// trialCurves returns each trial's curve of mn over d's x values, in
// trial order: the x values where it has an observation and its values.
func (d *dataSet) trialCurves(s *series, mn string) (trials []int, xs, ys map[int][]float64) {
	xs, ys = map[int][]float64{}, map[int][]float64{}
	for _, x := range d.xs {
		vals, ts := s.cells[x].values(mn)
		for i, t := range ts {
			if _, ok := xs[t]; !ok {
				trials = append(trials, t)
			}
			xs[t] = append(xs[t], x)
			ys[t] = append(ys[t], vals[i])
		}
	}
	sort.Ints(trials)
	return trials, xs, ys
}

// writeAULC tables the normalized area under the learning curve of mn.
func (m *model) writeAULC(w *bytes.Buffer, mn string) {
	fmt.Fprintf(w, "### Area under the learning curve (%s)\n\n", mn)
	header, rows := m.seriesGrid(func(d *dataSet, s *series) string {
		trials, xs, ys := d.trialCurves(s, mn)
		var areas []float64
		for _, t := range trials {
			areas = append(areas, aulc(xs[t], ys[t]))
		}
		st := summarize(areas)
		if st.N == 0 {
			return ""
		}
		txt := m.fmtNum(mn, st.Mean)
		if st.N > 1 {
			txt += " ± " + m.fmtNum(mn, st.SD)
		}
		if st.N < len(trials) {
			txt += fmt.Sprintf(" (n=%d)", st.N)
		}
		return txt
	})
	writeTable(w, header, rows, "l"+strings.Repeat("r", len(m.datasets)))
	fmt.Fprintf(w, "\nPer trial, the trapezoidal area under %s against the number of labelled rows, divided by the label range (first to last batch): the curve's mean height; mean ± sd over trials (n: trials with every point defined, when fewer).\n\n", mn)
}

// seriesGrid returns a table of one row per series (in the first
// dataset's order) and one column per dataset, its cells from cell.
func (m *model) seriesGrid(cell func(d *dataSet, s *series) string) (header []string, rows [][]string) {
	header = []string{"series"}
	for _, d := range m.datasets {
		header = append(header, mdText(d.id))
	}
	for i, s0 := range m.datasets[0].series {
		row := []string{s0.md()}
		for _, d := range m.datasets {
			txt := ""
			if i < len(d.series) {
				txt = cell(d, d.series[i])
			}
			row = append(row, txt)
		}
		rows = append(rows, row)
	}
	return header, rows
}

// fullPool returns the mean over trials of s's full-pool score of mn
// (the extra runner.FullPrefix+mn), NaN when no trial recorded one.
func (d *dataSet) fullPool(s *series, mn string) float64 {
	var fulls []float64
	for _, x := range d.xs {
		for _, o := range s.cells[x].obsOrNil() {
			if v, ok := o.extras[results.FullPrefix+mn]; ok {
				fulls = append(fulls, v)
			}
		}
	}
	return summarize(fulls).Mean
}

// writeReach tables the labels each series' mean curve of mn needs to
// come within ReachFraction of the dataset's full-pool score: the best
// series' mean score trained on the whole pool (Bilgic: "within 2% of
// the maximum achievable when trained using all the data").
func (m *model) writeReach(w *bytes.Buffer, mn string, higher bool) {
	fmt.Fprintf(w, "### Labels to reach %s of the full-pool %s\n\n", num(ReachFraction*100)+"%", mn)
	better := func(a, b float64) bool { return math.IsNaN(b) || (higher && a > b) || (!higher && a < b) }
	targets := map[*dataSet]float64{}
	recorded := false
	for _, d := range m.datasets {
		best := math.NaN()
		for _, s := range d.series {
			if v := d.fullPool(s, mn); !math.IsNaN(v) && better(v, best) {
				best = v
			}
		}
		targets[d] = best
		recorded = recorded || !math.IsNaN(best)
	}
	if !recorded {
		fmt.Fprintf(w, "Not computed: no trial recorded %s%s (the protocol's full: [label, …] fits those methods on each trial's whole pool once and records it).\n\n", results.FullPrefix, mn)
		return
	}
	header, rows := m.seriesGrid(func(d *dataSet, s *series) string {
		full := targets[d]
		if math.IsNaN(full) {
			return "—"
		}
		target := ReachFraction * full
		if !higher {
			target = full / ReachFraction
		}
		best, bestX := math.NaN(), 0.0
		for _, x := range d.xs {
			vals, _ := s.cells[x].values(mn)
			mean := summarize(vals).Mean
			if math.IsNaN(mean) {
				continue
			}
			if (higher && mean >= target) || (!higher && mean <= target) {
				return fmtX(x)
			}
			if better(mean, best) {
				best, bestX = mean, x
			}
		}
		if math.IsNaN(best) {
			return "—"
		}
		return fmt.Sprintf("not reached (best %s at %s)", m.fmtNum(mn, best), fmtX(bestX))
	})
	full := []string{"full pool (best series)"}
	for _, d := range m.datasets {
		full = append(full, m.fmtNum(mn, targets[d]))
	}
	rows = append(rows, full)
	writeTable(w, header, rows, "l"+strings.Repeat("r", len(m.datasets)))
	fmt.Fprintf(w, "\nThe fewest labelled rows at which a series' mean %s over trials comes within %s of the dataset's full-pool %s: the best series' mean over trials of its method trained on the whole pool (the methods the protocol's full names), the last row.\n\n", mn, num((1-ReachFraction)*100)+"%", mn)
}

// writeActiveWTL writes one table per series other than the baseline:
// the baseline against it, W/T/L over the iterations, one row per
// dataset, under a column group naming the query strategy (Bilgic's
// Tables 1–3 put random and uncertainty sampling side by side).
func (m *model) writeActiveWTL(w *bytes.Buffer, mn string, higher bool, strategy string) {
	if m.spec.Baseline == "" {
		return
	}
	var others []string
	bases := map[string]*series{}
	for _, d := range m.datasets {
		base, err := d.find(m.spec.Baseline)
		if err != nil && !m.absent(m.spec.Baseline, d) {
			fmt.Fprintf(w, "### Win/Tie/Loss of %s (%s)\n\nNot computed: %v.\n\n", mdText(m.spec.Baseline), mn, err)
			return
		}
		if base == nil {
			continue // the baseline does not run on d: no row there
		}
		bases[d.id] = base
		for _, s := range d.series {
			if s != base && !slices.Contains(others, s.name) {
				others = append(others, s.name)
			}
		}
	}
	var uses []testUse
	for _, other := range others {
		fmt.Fprintf(w, "### Win/Tie/Loss: %s vs %s (%s)\n\n", mdText(m.spec.Baseline), mdText(other), mn)
		var rows [][]string
		st := strategy
		for _, d := range m.datasets {
			s, err := d.find(other)
			if err != nil || bases[d.id] == nil {
				rows = append(rows, []string{mdText(d.id), "—", "—", "—"})
				continue
			}
			// Series that set their own strategies: the column group
			// names both, baseline's first.
			if a, b := m.strategyOf(bases[d.id]), m.strategyOf(s); a != strategy || b != strategy {
				st = a
				if b != a {
					st = a + " vs " + b
				}
			}
			c := m.wtl(d, bases[d.id], s, mn, higher, spec.DefaultAlpha, d.xs)
			uses = append(uses, c.Uses...)
			if c.Win+c.Tie+c.Loss == 0 {
				rows = append(rows, []string{mdText(d.id), "—", "—", "—"})
				continue
			}
			rows = append(rows, []string{mdText(d.id), fmt.Sprint(c.Win), fmt.Sprint(c.Tie), fmt.Sprint(c.Loss)})
		}
		st = mdText(st)
		writeTable(w, []string{"dataset", st + " W", st + " T", st + " L"}, rows, "lrrr")
		fmt.Fprintln(w)
	}
	name := testsAt(uses)
	if len(uses) == 0 {
		name = testName(TestAt(m.spec, m.datasets[0].id))
	}
	fmt.Fprintf(w, "W/T/L: the iterations (batches) where %s's mean %s is significantly better than the other series', worse, or neither: %s over the trials at each iteration, p < %s; — : no iteration with two paired trials (Bilgic's Tables 1–3; his rows are datasets, his column groups the query strategies, one per experiment here).%s\n\n", mdText(m.spec.Baseline), mn, name, num(spec.DefaultAlpha), designNote(uses, "labelled rows"))
}
