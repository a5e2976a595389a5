package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/internal/atomicfile"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
	"github.com/repro-ml/repro/stats"
)

// Output file names in the output directory.
const (
	ReportFile  = "report.md"
	SummaryFile = "summary.csv"
)

// Write renders the reports of spec's results into dir: report.md,
// summary.csv, one PNG learning curve per dataset and metric
// (<dataset>-<metric>.png) and one PNG per artifact plot. It reads the
// dataset facts from dir/datasets.json and the trials' artifacts from
// dir/artifacts when present. The files are byte-identical for the same
// spec, results and artifacts.
func Write(dir string, sp *spec.Spec, recs []results.Result) error {
	files, err := Render(dir, sp, recs)
	if err != nil {
		return err
	}
	previous := renderedPlots(dir)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	// report.md goes last, so that it never links a plot not yet written;
	// each file is replaced atomically, so a failure (a full disk) leaves
	// the previous one whole.
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == ReportFile) != (names[j] == ReportFile) {
			return names[j] == ReportFile
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return fmt.Errorf("reports: %w", err)
		}
	}
	// PNGs of an earlier render that this one did not write (a renamed
	// series or metric) would sit beside the report as if current. Only
	// the plots the earlier report.md linked are removed: DIR may be a
	// directory of the user's with pictures of its own.
	for _, name := range previous {
		if _, ok := files[name]; ok {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("reports: removing a stale plot: %w", err)
		}
	}
	return nil
}

// plotLink matches the image links report.md writes: ![alt](name.png).
var plotLink = regexp.MustCompile(`!\[[^\n]*\]\(([^()/\\\n]+\.png)\)`)

// renderedPlots returns the PNG files the report.md in dir links to: the
// plots of the previous render. No report is no plots.
func renderedPlots(dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range plotLink.FindAllSubmatch(b, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// Render is Write without writing: it returns the content of every report
// file by name. dir is read for datasets.json and artifacts only.
func Render(dir string, sp *spec.Spec, recs []results.Result) (map[string][]byte, error) {
	m := build(sp, recs)
	// A damaged datasets.json costs the report its dataset facts, not the
	// report: the setup says so and how to rebuild it.
	infos, err := results.ReadDatasetInfo(dir)
	if err != nil {
		m.infoErr = err
		infos = nil
	}
	m.rows = datasetRows(infos)
	files := map[string][]byte{}
	var md bytes.Buffer
	if err := m.writeMarkdown(&md, dir, infos, files); err != nil {
		return nil, err
	}
	files[ReportFile] = md.Bytes()
	var sum bytes.Buffer
	if err := m.writeSummary(&sum); err != nil {
		return nil, err
	}
	files[SummaryFile] = sum.Bytes()
	return files, nil
}

// maxFilePart is the longest fileName returns, in bytes: a plot's name
// joins up to three (artifact-<dataset>-<series>-<artifact>.png) and
// must stay under the 255 bytes most file systems allow, with room for
// the temporary name it is written under first.
const maxFilePart = 64

// fileName makes s safe as part of a file name: characters other than
// letters, digits, '-', '_' and '.' become '_', and a name longer than
// maxFilePart keeps its first characters and ends in a hash of the whole
// (a 300-character dataset id, a 5,000-character method label), so that
// two long names sharing their start still differ. Reports show the full
// name; only the file is named short.
func fileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() <= maxFilePart {
		return b.String()
	}
	sum := sha256.Sum256([]byte(s))
	h := hex.EncodeToString(sum[:6])
	return b.String()[:maxFilePart-len(h)-1] + "-" + h
}

// uniqueName returns base+ext, or base-2+ext, base-3+ext, … : the first
// not in files. File names lose the characters fileName replaces, so two
// series "L/R" and "L_R" would otherwise write one plot over the other.
func uniqueName(files map[string][]byte, base, ext string) string {
	name := base + ext
	for i := 2; ; i++ {
		if _, ok := files[name]; !ok {
			return name
		}
		name = base + "-" + strconv.Itoa(i) + ext
	}
}

// direction returns whether higher is better for name, and whether the
// metric is known.
func direction(name string) (higher, known bool) {
	mt, err := metric.Lookup(name)
	if err != nil {
		return false, false
	}
	return mt.HigherIsBetter, true
}

func (m *model) writeMarkdown(w *bytes.Buffer, dir string, infos map[string]results.DatasetInfo, files map[string][]byte) error {
	sp := m.spec
	fmt.Fprintf(w, "# %s\n\n", sp.Name)
	if d := strings.TrimSpace(sp.Description); d != "" {
		fmt.Fprintf(w, "%s\n\n", d)
	}
	m.writeSetup(w)
	checked := m.check(dir, infos)
	for _, d := range m.datasets {
		if err := m.writeDataset(w, d, dir, infos, files); err != nil {
			return err
		}
	}
	m.writeActive(w)
	if err := m.writeAcross(w, files); err != nil {
		return err
	}
	if len(sp.Expect) > 0 {
		fmt.Fprintf(w, "## Expectations\n\n")
		writeCheckTable(w, checked, true)
		fmt.Fprintf(w, "\n%d passed, %d failed.\n", checked.Passed(), checked.Failed())
		writeMeansOnly(w, checked)
		fmt.Fprintln(w)
	}
	if len(m.failures) > 0 {
		fmt.Fprintf(w, "## Failed trials\n\n")
		for i, r := range m.failures {
			if i == 20 {
				fmt.Fprintf(w, "- … and %d more (see %s)\n", len(m.failures)-20, results.ResultsFile)
				break
			}
			msg := r.Error
			if j := strings.IndexByte(msg, '\n'); j >= 0 {
				msg = msg[:j] + " …"
			}
			size := "size ?"
			if r.Size > 0 {
				size = fmt.Sprintf("size %d", r.Size)
			}
			fmt.Fprintf(w, "- %s / %s / %s / trial %d: %s\n", r.Dataset, mdText(spec.SeriesName(r.Method, param.Values(r.Variant))), size, r.Trial, msg)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func (m *model) writeSetup(w *bytes.Buffer) {
	sp := m.spec
	fmt.Fprintf(w, "## Setup\n\n")
	fmt.Fprintf(w, "- Seed: %d\n", sp.Seed)
	if p := sp.Protocol; !m.protocol().Implicit {
		line := "- Protocol: " + p.Name
		if len(p.Params) > 0 {
			line += " {" + p.Params.Label() + "}"
		}
		fmt.Fprintln(w, line)
	}
	if len(sp.Curve.Sizes) > 0 {
		sizes := make([]string, len(sp.Curve.Sizes))
		for i, v := range sp.Curve.Sizes {
			if v <= 1 {
				sizes[i] = num(v*100) + "% of the training pool"
			} else {
				sizes[i] = num(v)
			}
		}
		fmt.Fprintf(w, "- Training sizes: %s\n", strings.Join(sizes, ", "))
		fmt.Fprintf(w, "- Trials per size: %d; sampling: %s\n", sp.Curve.Trials, sp.Curve.Sampling)
	} else {
		// A protocol that is not run per size (active) sets its own x.
		fmt.Fprintf(w, "- Trials: %d\n", sp.Curve.Trials)
	}
	fmt.Fprintf(w, "- Metrics: %s\n", strings.Join(sp.Metrics, ", "))
	if sp.Baseline != "" {
		fmt.Fprintf(w, "- Baseline: %s\n", sp.Baseline)
	}
	fmt.Fprintln(w)
	var rows [][]string
	oracle := false
	for _, ms := range sp.Methods {
		label := ms.Label
		if label == "" {
			label = ms.Name
		}
		rule := ms.Select.RuleName()
		if sel := selector(&ms); sel.Report != nil {
			rule = sel.Report(ms.Select, len(ms.Grid))
		}
		if selector(&ms).Oracle {
			label += " [oracle]"
			oracle = true
		}
		rows = append(rows, []string{mdText(label), ms.Name, paramsText(ms), strconv.Itoa(len(ms.Grid)), rule})
	}
	writeTable(w, []string{"method", "plugin", "parameters", "grid points", "select"}, rows, "lllrl")
	fmt.Fprintln(w)
	// What a method entry sets beyond its plugin: its own protocol
	// params, the datasets it alone runs on.
	own := false
	for _, ms := range sp.Methods {
		var parts []string
		if len(ms.Protocol) > 0 {
			parts = append(parts, "protocol {"+ms.Protocol.Label()+"}")
		}
		if len(ms.Datasets) > 0 {
			parts = append(parts, "runs only on "+strings.Join(ms.Datasets, ", "))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "- %s: %s\n", mdText(ms.Label), mdText(strings.Join(parts, "; ")))
			own = true
		}
	}
	if own {
		fmt.Fprintln(w)
	}
	if oracle {
		fmt.Fprintf(w, "[oracle] marks a method whose hyperparameters were chosen on the test set itself, as some papers do; its results are optimistic.\n\n")
	}
}

// paramsText renders a method's params as written, or its single grid point.
func paramsText(ms spec.MethodSpec) string {
	if len(ms.Params) > 0 {
		keys := make([]string, 0, len(ms.Params))
		for k := range ms.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + param.Format(ms.Params[k])
		}
		return strings.Join(parts, " ")
	}
	if len(ms.Grid) == 1 {
		return ms.Grid[0].Label()
	}
	return ""
}

func (m *model) writeDataset(w *bytes.Buffer, d *dataSet, dir string, infos map[string]results.DatasetInfo, files map[string][]byte) error {
	sp := m.spec
	fmt.Fprintf(w, "## Dataset %s\n\n", d.id)
	ds := d.spec
	transforms := ds.Transforms
	if d.choice != nil {
		fmt.Fprintf(w, "- Chosen in each trial among the datasets %s: the one whose select score (the score at the point each method's rule chose: for cv, the mean over the validation folds) is best; the choice is dataset=… under Chosen hyperparameters\n", strings.Join(d.choice.Among, ", "))
		transforms = nil
	} else {
		plug := "- Plugin: " + ds.Name
		if len(ds.Params) > 0 {
			plug += " {" + ds.Params.Label() + "}"
		}
		fmt.Fprintln(w, plug)
	}
	for _, t := range transforms {
		fit := ""
		switch t.Fit {
		case spec.FitPool:
			fit = " (fitted in each trial on the pool, test rows excluded)"
		case spec.FitTrain:
			fit = " (fitted in each trial on the training rows)"
		case spec.FitAll:
			fit = " (fitted once on every row, test rows included: a transductive protocol, as the spec declares with fit: all)"
		default:
			if t.Learns() {
				fit = " (fitted once on every row, test rows included; fit: train or pool fits it in each trial, fit: all declares a transductive protocol)"
			}
		}
		fmt.Fprintf(w, "- Transform: %s {%s}%s\n", t.Name, t.Params.Label(), fit)
	}
	split := ds.Split.KindName()
	if sp, err := spec.LookupSplitter(ds.Split.Kind); err == nil && sp.Report != nil {
		split += sp.Report(ds.Split.Params)
	} else if len(ds.Split.Params) > 0 {
		// A kind without words of its own (kfold, or one whose plugin
		// is gone) shows its params as stored.
		split += " {" + ds.Split.Params.Label() + "}"
	}
	fmt.Fprintf(w, "- Split: %s\n", split)
	if ds.Tasks != "" {
		fmt.Fprintf(w, "- Tasks: %s\n", ds.Tasks)
	}
	if info, ok := infos[d.id]; ok {
		fmt.Fprintf(w, "- Rows: %d; columns: %d\n", info.Rows, info.Cols)
		if len(info.Classes) > 0 {
			fmt.Fprintf(w, "- Classes (%d): %s\n", len(info.Classes), strings.Join(info.Classes, ", "))
		} else {
			fmt.Fprintf(w, "- Regression (no classes)\n")
		}
		if len(info.Stats) > 0 {
			keys := make([]string, 0, len(info.Stats))
			for k := range info.Stats {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = k + " = " + strconv.FormatFloat(info.Stats[k], 'g', 6, 64)
			}
			fmt.Fprintf(w, "- Stats: %s\n", strings.Join(parts, "; "))
		}
		for _, n := range info.Notes {
			fmt.Fprintf(w, "- Note: %s\n", n)
		}
	} else if m.infoErr != nil {
		fmt.Fprintf(w, "- (dataset facts unavailable: %s; `repro run` on this directory rebuilds it from the data, keeping the finished trials)\n", m.infoErr)
	} else {
		fmt.Fprintf(w, "- (no %s: dataset facts unavailable)\n", results.DatasetsFile)
	}
	fmt.Fprintln(w)

	for _, mn := range sp.Metrics {
		q := quantity{name: mn}
		q.higher, q.known = direction(mn)
		dir := "lower is better"
		if q.higher {
			dir = "higher is better"
		}
		if !q.known {
			dir = "direction unknown"
		}
		fmt.Fprintf(w, "### %s (%s)\n\n", mn, dir)
		if err := m.writePlot(w, d, mn, files); err != nil {
			return err
		}
		m.writeMetricTable(w, d, q)
		m.writeBootstrap(w, d, q)
		m.writeWTL(w, d, mn, q.higher, q.known)
	}
	for _, name := range m.extras() {
		fmt.Fprintf(w, "### %s (recorded by the trials)\n\n", name)
		if err := m.writePlot(w, d, name, files); err != nil {
			return err
		}
		m.writeMetricTable(w, d, quantity{name: name, extra: true})
	}
	var info *results.DatasetInfo
	if in, ok := infos[d.id]; ok {
		info = &in
	}
	m.writeTasks(w, d, info)
	m.writeAcrossTasks(w, d, dir, info)
	m.writeChosen(w, d)
	m.writeTimes(w, d)
	return m.writeArtifacts(w, d, dir, files)
}

// quantity is what a table and a plot show per series and x: a metric of
// the spec, or an extra that report.y names.
type quantity struct {
	name          string
	higher, known bool // the metric's direction; an extra has none
	extra         bool
}

// extras returns the names report.y adds to the metrics, in its order:
// values a protocol or method records with its observations.
func (m *model) extras() []string {
	var out []string
	for _, name := range m.spec.Report.Y {
		if !slices.Contains(m.spec.Metrics, name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// writePlot renders the curve of name on d — against x, or against the
// method parameter report.x — as <dataset>-<name>.png and links it.
func (m *model) writePlot(w *bytes.Buffer, d *dataSet, name string, files map[string][]byte) error {
	fig := m.curveFigure(d, name)
	if x := m.spec.Report.X; x != "" && x != "size" {
		fig = m.sweepFigure(d, name)
	}
	png, err := fig.render()
	if err != nil {
		return err
	}
	file := fileName(d.id) + "-" + fileName(name) + ".png"
	files[file] = png
	fmt.Fprintf(w, "![%s on %s](%s)\n\n", name, d.id, file)
	return nil
}

// tabled returns the series of d a table of q has rows for: all of them
// for a metric, those that recorded it for an extra.
func (d *dataSet) tabled(q quantity) []*series {
	if !q.extra {
		return d.series
	}
	var out []*series
	for _, s := range d.series {
		if s.records(q.name) {
			out = append(out, s)
		}
	}
	return out
}

// cellText formats the mean ± sd of one series at one size.
func (m *model) cellText(s *series, size float64, metricName string) (string, summary) {
	vals, _ := s.cells[size].values(metricName)
	st := summarize(vals)
	failed := s.failedAt(size)
	// Trials that succeeded without a value of this metric: NaN (the AUC
	// of a test set with one class) or absent.
	undefined := len(vals) - st.N
	if st.N == 0 {
		var notes []string
		if undefined > 0 {
			notes = append(notes, fmt.Sprintf("undefined (%d)", undefined))
		}
		if failed > 0 {
			notes = append(notes, fmt.Sprintf("failed (%d)", failed))
		}
		return strings.Join(notes, ", "), st
	}
	txt := m.fmtNum(metricName, st.Mean)
	if st.N > 1 {
		txt += " ± " + m.fmtNum(metricName, st.SD)
	}
	var notes []string
	if st.N < m.spec.Curve.Trials {
		notes = append(notes, fmt.Sprintf("n=%d", st.N))
	}
	if undefined > 0 {
		notes = append(notes, fmt.Sprintf("%d undefined", undefined))
	}
	if failed > 0 {
		notes = append(notes, fmt.Sprintf("%d failed", failed))
	}
	if len(notes) > 0 {
		txt += " (" + strings.Join(notes, ", ") + ")"
	}
	return txt, st
}

// sizeHeader returns the heads of d's x columns: the rows their trials
// trained on (dataSet.rowsAt).
func (d *dataSet) sizeHeader() []string { return d.headOf(d.xs) }

// headOf returns the heads of the x columns xs of d.
func (d *dataSet) headOf(xs []float64) []string {
	h := make([]string, len(xs))
	for i, x := range xs {
		h[i] = d.rowsAt(x)
	}
	return h
}

// writeMetricTable writes the mean ± sd of q per series and x, the best
// mean per x in bold when q is a metric of known direction.
func (m *model) writeMetricTable(w *bytes.Buffer, d *dataSet, q quantity) {
	mn, higher, known := q.name, q.higher, q.known
	if len(d.xs) == 0 {
		fmt.Fprintf(w, "No results.\n\n")
		return
	}
	series := d.tabled(q)
	if len(series) == 0 {
		fmt.Fprintf(w, "No trial recorded %s.\n\n", mn)
		return
	}
	texts := make([][]string, len(series))
	best := make([]string, len(d.xs))
	for j, size := range d.xs {
		bv := math.NaN()
		for i, s := range series {
			if texts[i] == nil {
				texts[i] = make([]string, len(d.xs))
			}
			txt, st := m.cellText(s, size, mn)
			texts[i][j] = txt
			if st.N > 0 && !math.IsNaN(st.Mean) && (math.IsNaN(bv) || (higher && st.Mean > bv) || (!higher && st.Mean < bv)) {
				bv = st.Mean
			}
		}
		if known && !math.IsNaN(bv) {
			best[j] = m.fmtNum(mn, bv)
		}
	}
	var rows [][]string
	for i, s := range series {
		row := []string{s.md()}
		for j, size := range d.xs {
			txt := texts[i][j]
			vals, _ := s.cells[size].values(mn)
			if st := summarize(vals); st.N > 0 && best[j] != "" && m.fmtNum(mn, st.Mean) == best[j] {
				txt = "**" + txt + "**"
			}
			row = append(row, txt)
		}
		rows = append(rows, row)
	}
	writeTable(w, append([]string{"series \\ size"}, d.sizeHeader()...), rows, "l"+strings.Repeat("r", len(d.xs)))
	fmt.Fprintf(w, "\nMean ± standard deviation over trials")
	if q.extra {
		fmt.Fprintf(w, " of the value each recorded")
	}
	if known {
		fmt.Fprintf(w, "; the best mean per size in bold")
	}
	fmt.Fprintf(w, "; n is shown when fewer than the %d planned trials gave a value", m.spec.Curve.Trials)
	switch {
	case !m.hasUndefined(series, mn):
	case q.extra:
		fmt.Fprintf(w, " (undefined: the trial succeeded but recorded no value)")
	default:
		fmt.Fprintf(w, " (undefined: the trial succeeded but the metric has no value, e.g. AUC on a test set with one class)")
	}
	fmt.Fprintf(w, ".\n\n")
}

// hasUndefined reports whether some successful trial of the series has no
// value of mn.
func (m *model) hasUndefined(series []*series, mn string) bool {
	for _, s := range series {
		for _, c := range s.cells {
			vals, _ := c.values(mn)
			for _, v := range vals {
				if math.IsNaN(v) {
					return true
				}
			}
		}
	}
	return false
}

// baseline returns the baseline series of d, if any.
func (m *model) baseline(d *dataSet) (*series, error) {
	if m.spec.Baseline == "" {
		return nil, nil
	}
	return d.find(m.spec.Baseline)
}

func (m *model) writeWTL(w *bytes.Buffer, d *dataSet, mn string, higher, known bool) {
	base, err := m.baseline(d)
	if base == nil && err == nil {
		return
	}
	fmt.Fprintf(w, "#### Win/Tie/Loss against %s (%s)\n\n", mdText(m.spec.Baseline), mn)
	if err != nil && m.absent(m.spec.Baseline, d) {
		fmt.Fprintf(w, "Not computed: %s does not run on dataset %s (its datasets:).\n\n", mdText(m.spec.Baseline), mdText(d.id))
		return
	}
	if err != nil {
		fmt.Fprintf(w, "Not computed: %v.\n\n", err)
		return
	}
	if !known {
		fmt.Fprintf(w, "Not computed: metric %q has no known direction.\n\n", mn)
		return
	}
	var rows [][]string
	var uses []testUse
	degenerate := false
	for _, s := range d.series {
		if s == base {
			continue
		}
		row := []string{s.md()}
		var c wtlCount
		for _, size := range d.xs {
			tt, dz := m.compareIn(d, s.cells[size], base.cells[size], mn)
			verdict := outcome(tt, spec.DefaultAlpha, higher)
			if verdict == "" {
				row = append(row, "—")
				continue
			}
			degenerate = degenerate || tt.Test != TestWilcoxon && (math.IsInf(tt.Stat, 0) || (tt.Stat == 0 && tt.P == 1))
			c.add(size, tt, verdict, dz)
			row = append(row, verdict+" ("+fmtP(tt.P)+")")
		}
		uses = append(uses, c.Uses...)
		row = append(row, c.String())
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		fmt.Fprintf(w, "No other series.\n\n")
		return
	}
	name := testsAt(uses)
	if len(uses) == 0 {
		// No test ran: name the one the largest size would take.
		var last *cell
		if len(d.xs) > 0 {
			last = base.cells[d.xs[len(d.xs)-1]]
		}
		test, _ := m.testOf(d, last)
		name = testName(test)
	}
	header := append([]string{"series \\ size"}, d.sizeHeader()...)
	writeTable(w, append(header, "W/T/L"), rows, "l"+strings.Repeat("r", len(d.xs)+1))
	fmt.Fprintf(w, "\n%s over trials with the same index, p < %s; win: better than %s in the metric's direction; — : fewer than two pairs.", upperFirst(name), num(spec.DefaultAlpha), mdText(m.spec.Baseline))
	if degenerate {
		fmt.Fprintf(w, " Where every pair differs by the same amount the t-test is degenerate: no difference is a tie (p = 1); a constant nonzero one leaves no spread to estimate a variance from, so its p is the sign test's 2^(1−n) for n pairs, and a verdict from it needs at least %d pairs.", stats.MinPairs(spec.DefaultAlpha))
	}
	fmt.Fprint(w, designNote(uses, "sizes"))
	fmt.Fprintf(w, "\n\n")
}

// writeChosen tables the most frequent choice of each cv or test rule
// per size, flagging a choice at an end of a numeric grid axis, and warns
// of an axis whose end the rule chose in at least half the trials.
func (m *model) writeChosen(w *bytes.Buffer, d *dataSet) {
	var rows [][]string
	var warns []string
	flagged, scored := false, false
	for _, s := range d.series {
		if s.chosenParams() == nil {
			continue
		}
		row := []string{s.md()}
		for _, size := range d.xs {
			counts := map[string]int{}
			values := map[string]map[string]any{}
			scores := map[string][]float64{}
			n := 0
			for _, o := range s.cells[size].obsOrNil() {
				if len(o.res.Chosen) == 0 {
					continue
				}
				k := param.Values(o.res.Chosen).Label()
				counts[k]++
				values[k] = o.res.Chosen
				if o.res.SelectScore != nil {
					scores[k] = append(scores[k], *o.res.SelectScore)
				}
				n++
			}
			bestK, bestN := "", 0
			for k, c := range counts {
				if c > bestN || (c == bestN && k < bestK) {
					bestK, bestN = k, c
				}
			}
			if n == 0 {
				row = append(row, "")
				continue
			}
			cell := fmt.Sprintf("%s (%d/%d)", bestK, bestN, n)
			if sc := scores[bestK]; len(sc) > 0 {
				metric := s.selectMetric()
				cell += fmt.Sprintf(", %s %s %s", s.rule(), metric, m.fmtNum(metric, summarize(sc).Mean))
				scored = true
			}
			if ends := s.atEdge(values[bestK]); len(ends) > 0 {
				cell += " ⚠ " + strings.Join(ends, ", ")
				flagged = true
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
		for _, e := range s.edges() {
			warns = append(warns, fmt.Sprintf("- ⚠ **Edge of the grid:** %s chose %s in %d of %d trials of %s: the best value may lie beyond the grid; widen it.\n",
				ruleWords(s.method), e.what(), e.n, e.of, s.md()))
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "### Chosen hyperparameters\n\n")
	writeTable(w, append([]string{"series \\ size"}, d.sizeHeader()...), rows, "")
	fmt.Fprintf(w, "\nThe most frequent choice per size, with how many trials made it")
	if scored {
		fmt.Fprintf(w, " and their mean score there by the select metric (cv: over the validation folds; test: on the test set)")
	}
	if flagged {
		fmt.Fprintf(w, "; ⚠ marks a value at an end of a numeric grid axis of %d or more values", minEdgeAxis)
	}
	fmt.Fprintf(w, ".\n\n")
	if len(warns) > 0 {
		fmt.Fprintf(w, "%s\n", strings.Join(warns, ""))
	}
}

// writeTimes tables the mean fit and selection times per series, with
// the trials whose fit stopped at its iteration cap when there are any.
func (m *model) writeTimes(w *bytes.Buffer, d *dataSet) {
	var rows [][]string
	capped := false
	for _, s := range d.series {
		if n, _ := s.notConverged(); n > 0 {
			capped = true
		}
	}
	for _, s := range d.series {
		var fit, sel []float64
		failed := 0
		for _, r := range s.results {
			if r.Failed() {
				failed++
				continue
			}
			fit = append(fit, r.FitSeconds)
			sel = append(sel, r.SelectSeconds)
		}
		if len(s.results) == 0 {
			continue
		}
		fs, ss := summarize(fit), summarize(sel)
		selTxt := ""
		if selector(s.method).Chooses {
			selTxt = secs(ss.Mean)
		}
		row := []string{s.md(), secs(fs.Mean), selTxt, strconv.Itoa(len(fit)), strconv.Itoa(failed)}
		if capped {
			txt := ""
			if n, _ := s.notConverged(); n > 0 {
				txt = "⚠ " + strconv.Itoa(n)
			}
			row = append(row, txt)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "### Fit time\n\n")
	header, align := []string{"series", "fit s (mean)", "select s (mean)", "trials", "failed"}, "lrrrr"
	if capped {
		header, align = append(header, "not converged"), align+"r"
	}
	writeTable(w, header, rows, align)
	fmt.Fprintf(w, "\nMean seconds per trial over all sizes; selection (cv or test rule) is timed apart from the final fit.")
	if capped {
		fmt.Fprintf(w, " ⚠ Not converged: trials whose final fit stopped at its iteration cap before reaching its tolerance; their results may be off: raise the method's iteration cap (max_iter or the like).")
	}
	fmt.Fprintf(w, "\n\n")
}

func secs(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// artifactFile is the JSON form of a methods.Artifact the runner saves
// (NaN as null).
type artifactFile struct {
	Name  string
	Title string
	Table *struct {
		Columns []string
		Rows    []string
		Values  [][]*float64
	}
	Plot *struct {
		XLabel, YLabel string
		LogX           bool
		Series         []struct {
			Label  string
			X, Y   []float64
			Points bool
		}
	}
}

func readArtifact(dir, rel string) (*artifactFile, error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	var a artifactFile
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	return &a, nil
}

// writeArtifacts shows the artifacts of d's trials that report.artifacts
// asks for (all by default): each plot, and each table averaged over
// trials per size. Those left out are counted.
func (m *model) writeArtifacts(w *bytes.Buffer, d *dataSet, dir string, files map[string][]byte) error {
	header := false
	head := func() {
		if !header {
			fmt.Fprintf(w, "### Artifacts\n\n")
			header = true
		}
	}
	showPlots, showTables := m.spec.Report.ShowsArtifacts("plots"), m.spec.Report.ShowsArtifacts("tables")
	hiddenPlots, hiddenTables := 0, 0
	defer func() {
		if hiddenPlots+hiddenTables == 0 {
			return
		}
		head()
		var parts []string
		if hiddenPlots > 0 {
			parts = append(parts, plural(hiddenPlots, "plot"))
		}
		if hiddenTables > 0 {
			parts = append(parts, plural(hiddenTables, "table"))
		}
		fmt.Fprintf(w, "%s of the methods' artifacts left out of this report (report.artifacts: %s); each trial's are in artifacts/ as JSON, listed in %s.\n\n",
			strings.Join(parts, " and "), m.spec.Report.Artifacts, results.ResultsFile)
	}()
	for _, s := range d.series {
		var plotted = map[string]bool{}
		// Plots: the largest size, lowest trial index.
		for i := len(d.xs) - 1; i >= 0; i-- {
			size := d.xs[i]
			for _, o := range s.cells[size].obsOrNil() {
				if !o.last {
					continue // an earlier point of a trial's curve
				}
				for _, rel := range o.res.Artifacts {
					a, err := readArtifact(dir, rel)
					if err != nil || a.Plot == nil || plotted[a.Name] {
						continue
					}
					plotted[a.Name] = true
					if !showPlots {
						hiddenPlots++
						continue
					}
					f := &figure{title: fmt.Sprintf("%s — %s (size %s, trial %d)", titleOf(a), s.display(), fmtX(size), o.trial),
						xlabel: a.Plot.XLabel, ylabel: a.Plot.YLabel, logx: a.Plot.LogX}
					for _, ps := range a.Plot.Series {
						f.curves = append(f.curves, curve{label: ps.Label, x: ps.X, y: ps.Y, points: ps.Points})
					}
					png, err := f.render()
					if err != nil {
						return err
					}
					name := uniqueName(files, "artifact-"+fileName(d.id)+"-"+fileName(s.name)+"-"+fileName(a.Name), ".png")
					files[name] = png
					head()
					fmt.Fprintf(w, "#### %s — %s\n\n![%s](%s)\n\n", mdText(titleOf(a)), s.md(), cellText(titleOf(a)), name)
				}
			}
		}
		// Tables: averaged over trials, per size.
		for _, size := range d.xs {
			type acc struct {
				a      *artifactFile
				sum    [][]float64
				cnt    [][]int
				trials int
				shape  bool // all trials had the same rows and columns
			}
			byName := map[string]*acc{}
			var order []string
			for _, o := range s.cells[size].obsOrNil() {
				if !o.last {
					continue
				}
				for _, rel := range o.res.Artifacts {
					a, err := readArtifact(dir, rel)
					if err != nil || a.Table == nil {
						continue
					}
					ac := byName[a.Name]
					if ac == nil {
						ac = &acc{a: a, shape: true}
						for range a.Table.Rows {
							ac.sum = append(ac.sum, make([]float64, len(a.Table.Columns)))
							ac.cnt = append(ac.cnt, make([]int, len(a.Table.Columns)))
						}
						byName[a.Name] = ac
						order = append(order, a.Name)
					}
					if !sameStrings(ac.a.Table.Rows, a.Table.Rows) || !sameStrings(ac.a.Table.Columns, a.Table.Columns) {
						ac.shape = false
						continue
					}
					ac.trials++
					for i := range a.Table.Values {
						for j, v := range a.Table.Values[i] {
							if v != nil && i < len(ac.sum) && j < len(ac.sum[i]) {
								ac.sum[i][j] += *v
								ac.cnt[i][j]++
							}
						}
					}
				}
			}
			if !showTables {
				hiddenTables += len(order)
				continue
			}
			for _, name := range order {
				ac := byName[name]
				head()
				fmt.Fprintf(w, "#### %s — %s, size %s\n\n", mdText(titleOf(ac.a)), s.md(), fmtX(size))
				cols := append([]string{""}, ac.a.Table.Columns...)
				var rows [][]string
				for i, rn := range ac.a.Table.Rows {
					row := []string{rn}
					for j := range ac.a.Table.Columns {
						if ac.cnt[i][j] == 0 {
							row = append(row, "")
							continue
						}
						row = append(row, strconv.FormatFloat(ac.sum[i][j]/float64(ac.cnt[i][j]), 'g', 4, 64))
					}
					rows = append(rows, row)
				}
				writeTable(w, cols, rows, "l"+strings.Repeat("r", len(ac.a.Table.Columns)))
				note := fmt.Sprintf("\nMean over %d trials.", ac.trials)
				if !ac.shape {
					note += " Trials whose table had other rows or columns are left out."
				}
				fmt.Fprintf(w, "%s\n\n", note)
			}
		}
	}
	return nil
}

// plural is "1 plot", "2 plots".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func titleOf(a *artifactFile) string {
	if a.Title != "" {
		return a.Title
	}
	return a.Name
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeSummary writes summary.csv: one row per dataset, series, x and
// metric or extra of report.y (series that recorded it), in report order.
func (m *model) writeSummary(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"dataset", "series", "method", "size", "metric", "n", "failed", "mean", "sd", "min", "max"})
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 10, 64)
	}
	names := append(slices.Clip(m.spec.Metrics), m.extras()...)
	for _, d := range m.datasets {
		for _, s := range d.series {
			for _, size := range d.xs {
				c := s.cells[size]
				if c == nil && s.wholeFailed == 0 {
					continue
				}
				for _, mn := range names {
					if !slices.Contains(m.spec.Metrics, mn) && !s.records(mn) {
						continue
					}
					vals, _ := c.values(mn)
					st := summarize(vals)
					cw.Write([]string{d.id, s.name, s.label, fmtX(size), mn, strconv.Itoa(st.N),
						strconv.Itoa(s.failedAt(size)), f(st.Mean), f(st.SD), f(st.Min), f(st.Max)})
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
