package reports

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/repro-ml/repro/spec"
	"github.com/repro-ml/repro/stats"
)

// Across datasets: a Friedman test of the series' ranks over the
// datasets, a Nemenyi post-hoc and a critical-difference diagram, as
// Demšar (2006) recommends for comparing methods over several datasets.
const (
	minAcrossDatasets = 3
	minAcrossSeries   = 3
)

// acrossSeries returns the names of the series that every dataset has,
// in the first dataset's order, and the datasets compared: those of the
// spec and of report.choose, less the members of a choice (the same
// rows as the chosen dataset).
func (m *model) acrossSeries() ([]string, []*dataSet) {
	members := map[string]bool{}
	for _, c := range m.spec.Report.Choose {
		for _, id := range c.Among {
			members[id] = true
		}
	}
	var sets []*dataSet
	for _, d := range m.datasets {
		if !members[d.id] {
			sets = append(sets, d)
		}
	}
	if len(sets) == 0 {
		return nil, nil
	}
	var names []string
	for _, s := range sets[0].series {
		all := true
		for _, d := range sets[1:] {
			if !slices.ContainsFunc(d.series, func(o *series) bool { return o.name == s.name }) {
				all = false
			}
		}
		if all {
			names = append(names, s.name)
		}
	}
	return names, sets
}

// acrossScores returns, per dataset, the mean metric mn of each named
// series at the largest x where all of them have one, and that x; a
// dataset without such an x has none (x NaN).
func acrossScores(d *dataSet, names []string, mn string) ([]float64, float64) {
	byName := map[string]*series{}
	for _, s := range d.series {
		byName[s.name] = s
	}
	for i := len(d.xs) - 1; i >= 0; i-- {
		x := d.xs[i]
		row := make([]float64, len(names))
		ok := true
		for j, name := range names {
			vals, _ := byName[name].cells[x].values(mn)
			row[j] = summarize(vals).Mean
			ok = ok && !math.IsNaN(row[j])
		}
		if ok {
			return row, x
		}
	}
	return nil, math.NaN()
}

// writeAcross writes, for an experiment of at least three datasets and
// three series on all of them, per metric of known direction the
// series' average ranks over the datasets with the Friedman test, the
// Nemenyi critical difference and a diagram of them (cd-<metric>.png).
func (m *model) writeAcross(w *bytes.Buffer, files map[string][]byte) error {
	names, sets := m.acrossSeries()
	if len(sets) < minAcrossDatasets || len(names) < minAcrossSeries {
		return nil
	}
	fmt.Fprintf(w, "## Across datasets\n\n")
	for _, mn := range m.spec.Metrics {
		higher, known := direction(mn)
		if !known {
			continue
		}
		var scores [][]float64
		var used []*dataSet
		var xs []string
		var skipped []string
		for _, d := range sets {
			row, x := acrossScores(d, names, mn)
			if row == nil {
				skipped = append(skipped, mdText(d.id))
				continue
			}
			scores = append(scores, row)
			used = append(used, d)
			xs = append(xs, d.rowsAt(x))
		}
		fmt.Fprintf(w, "### %s: average ranks, Friedman test, Nemenyi post-hoc\n\n", mn)
		if len(used) < minAcrossDatasets {
			fmt.Fprintf(w, "Not computed: %d datasets where every series has a mean %s (want %d).\n\n", len(used), mn, minAcrossDatasets)
			continue
		}
		fr := stats.Friedman(scores, higher)
		cd := stats.NemenyiCD(len(names), len(used), spec.DefaultAlpha)
		header := []string{"series", "average rank"}
		for _, d := range used {
			header = append(header, mdText(d.id))
		}
		var rows [][]string
		for j, name := range names {
			row := []string{mdText(name), fmt.Sprintf("%.2f", fr.AvgRanks[j])}
			for i := range used {
				ranks, _ := stats.RankRow(scores[i], higher)
				row = append(row, fmt.Sprintf("%s (%s)", m.fmtNum(mn, scores[i][j]), num(ranks[j])))
			}
			rows = append(rows, row)
		}
		writeTable(w, header, rows, "lr"+strings.Repeat("r", len(used)))
		at := strings.Join(xs, ", ")
		if len(slices.Compact(slices.Clone(xs))) == 1 {
			at = xs[0] + " on every dataset"
		}
		fmt.Fprintf(w, "\nEach cell: the mean %s over trials at the dataset's largest %s every series reached (%s) and its rank there, 1 the best; tied means share their mean rank.", mn, m.xName(), at)
		if len(skipped) > 0 {
			fmt.Fprintf(w, " Left out (no %s where every series has a mean): %s.", m.xName(), strings.Join(skipped, ", "))
		}
		fmt.Fprintf(w, "\n\nFriedman χ² = %.2f (df %d), %s; Iman–Davenport F = %.2f (df %d, %d), %s. ",
			fr.Chi2, fr.K-1, fmtP(fr.P), fr.FF, fr.K-1, (fr.K-1)*(fr.N-1), fmtP(fr.PF))
		fmt.Fprintf(w, "Nemenyi critical difference at α = %s: CD = %.2f (q = %.3f, %d series, %d datasets).",
			num(spec.DefaultAlpha), cd, stats.NemenyiQ(len(names), spec.DefaultAlpha), len(names), len(used))
		var apart []string
		for a := range names {
			for b := a + 1; b < len(names); b++ {
				if d := math.Abs(fr.AvgRanks[a] - fr.AvgRanks[b]); d >= cd {
					better, worse := a, b
					if fr.AvgRanks[b] < fr.AvgRanks[a] {
						better, worse = b, a
					}
					apart = append(apart, fmt.Sprintf("%s ahead of %s (%.2f)", mdText(names[better]), mdText(names[worse]), d))
				}
			}
		}
		switch {
		case !(fr.PF < spec.DefaultAlpha):
			fmt.Fprintf(w, " The Friedman test does not reject equal ranks at α = %s, so no pair is declared different.", num(spec.DefaultAlpha))
		case len(apart) == 0:
			fmt.Fprintf(w, " No two series' average ranks differ by CD or more.")
		default:
			fmt.Fprintf(w, " Average ranks apart by CD or more: %s.", strings.Join(apart, "; "))
		}
		fmt.Fprintf(w, " Datasets are taken as independent (Demšar 2006).\n\n")
		g := &cdDiagram{title: fmt.Sprintf("%s: average ranks over %d datasets (Nemenyi CD at α = %s)", mn, len(used), num(spec.DefaultAlpha)), names: names, ranks: fr.AvgRanks, cd: cd}
		png, err := g.render()
		if err != nil {
			return err
		}
		file := uniqueName(files, "cd-"+fileName(mn), ".png")
		files[file] = png
		fmt.Fprintf(w, "![critical-difference diagram of %s](%s)\n\n", mn, file)
	}
	return nil
}

// xName names the x axis for notes: "training size", or the x report.x
// or the protocol records.
func (m *model) xName() string {
	switch x := m.spec.Report.X; {
	case m.protocol().XName != "":
		return m.protocol().XName
	case x == "" || x == "size":
		return "training size"
	default:
		return x
	}
}
