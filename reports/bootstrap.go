package reports

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/repro-ml/repro/stats"
)

// bootLevel is the coverage of the bootstrap percentile interval.
const bootLevel = 0.95

// bootSummary is the bootstrap distribution of a cell's mean: Lo and Hi
// its percentile interval, SE its standard deviation (the bootstrap
// standard error), B the resamples, N the trials averaged.
type bootSummary struct {
	Lo, Hi, SE float64
	B, N       int
}

// bootOf returns the bootstrap summary of metric name in c: resample r of
// the mean is the mean over c's trials of their value on resample r (the
// runner draws the same resamples for every trial, so with a shared test
// set this resamples the test set of the mean). Trials without resamples
// are left out; ok is false when none has them. Resamples on which a
// trial's metric is undefined (NaN) are skipped.
func bootOf(c *cell, name string) (bs bootSummary, ok bool) {
	all, n := bootMeans(c, name)
	means := slices.DeleteFunc(all, math.IsNaN)
	if len(means) == 0 {
		return bs, false
	}
	slices.Sort(means)
	lo, hi := stats.Percentile(means, bootLevel)
	return bootSummary{Lo: lo, Hi: hi, SE: summarize(means).SD, B: len(means), N: n}, true
}

// bootMeans returns resample r of the mean of metric name over c's trials
// that stored resamples, for every r (NaN where no trial has a value), and
// the number of those trials.
func bootMeans(c *cell, name string) ([]float64, int) {
	if c == nil {
		return nil, 0
	}
	var per [][]float64
	for i := range c.obs {
		vals := bootValues(&c.obs[i], name)
		if len(vals) > 0 {
			per = append(per, vals)
		}
	}
	if len(per) == 0 {
		return nil, 0
	}
	return stats.BootMeans(per), len(per)
}

// bootDiff describes the paired bootstrap distribution of a relation's
// difference (a's mean − b's, signed so that positive favours a): its
// 95% percentile interval and the share of resamples favouring a, as
// "; bootstrap 95% [lo, hi], 72% of 100 resamples favour", or "" when the
// two cells did not both store the same number of resamples.
func (m *model) bootDiff(a, b *cell, name string, higher bool) string {
	ma, _ := bootMeans(a, name)
	mb, _ := bootMeans(b, name)
	if len(ma) == 0 || len(ma) != len(mb) {
		return ""
	}
	var d []float64
	wins := 0
	for r := range ma {
		v := ma[r] - mb[r]
		if !higher {
			v = -v
		}
		if math.IsNaN(v) {
			continue
		}
		d = append(d, v)
		if v > 0 {
			wins++
		}
	}
	if len(d) == 0 {
		return ""
	}
	slices.Sort(d)
	lo, hi := stats.Percentile(d, bootLevel)
	return fmt.Sprintf("; bootstrap %g%% [%s, %s], %d%% of %d resamples favour it", bootLevel*100,
		signed(m, name, lo), signed(m, name, hi), int(math.Round(100*float64(wins)/float64(len(d)))), len(d))
}

// bootValues returns the resampled values of metric name stored with the
// observation o, or nil.
func bootValues(o *observation, name string) []float64 { return o.boot[name] }

// writeBootstrap writes, when some trial of d stored test-set resamples of
// metric q (report.bootstrap), the table of each series' bootstrap
// interval and standard error per x, beside the mean ± sd table.
func (m *model) writeBootstrap(w *bytes.Buffer, d *dataSet, q quantity) {
	if q.extra || len(d.xs) == 0 {
		return
	}
	var rows [][]string
	var bs []int
	for _, s := range d.series {
		row := []string{s.md()}
		has := false
		for _, x := range d.xs {
			b, ok := bootOf(s.cells[x], q.name)
			if !ok {
				row = append(row, "")
				continue
			}
			has = true
			bs = append(bs, b.B)
			txt := fmt.Sprintf("%s – %s (se %s)", m.fmtNum(q.name, b.Lo), m.fmtNum(q.name, b.Hi), m.fmtNum(q.name, b.SE))
			if c := s.cells[x]; b.N < len(c.obs) {
				txt += fmt.Sprintf(" (n=%d)", b.N)
			}
			row = append(row, txt)
		}
		if has {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return
	}
	b := slices.Min(bs)
	fmt.Fprintf(w, "Bootstrap %g%% interval of %s:\n\n", bootLevel*100, q.name)
	writeTable(w, append([]string{"series \\ size"}, d.sizeHeader()...), rows, "l"+strings.Repeat("r", len(d.xs)))
	fmt.Fprintf(w, "\nPercentile interval and standard error of the mean over trials across %d resamples of the test set "+
		"(rows drawn with replacement, the fitted models fixed; the same resamples for every series and trial, so differences are paired); "+
		"n is shown when fewer trials than in the mean ± sd table stored resamples.\n\n", b)
}
