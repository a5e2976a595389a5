package reports

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/results"
)

// taskMetric is the metric whose per-task parts (stored by the runner as
// binary_errors/<class>) the per-task table shows.
const taskMetric = "binary_errors"

// maxTaskSizes is the most training sizes shown as columns of the per-task
// table; with more, only the largest size is shown.
const maxTaskSizes = 4

// writeTasks writes, for a dataset run as one-vs-rest binary tasks with
// the binary_errors metric, the mean binary errors of every series on
// every task: one row per series and task, one column per training size
// (only the largest when there are many). Tasks are in class order.
func (m *model) writeTasks(w *bytes.Buffer, d *dataSet, info *results.DatasetInfo) {
	if d.spec.Tasks != "one-vs-rest" || len(d.xs) == 0 {
		return
	}
	found := false
	for _, mn := range m.spec.Metrics {
		found = found || mn == taskMetric
	}
	if !found {
		return
	}
	tasks := taskNames(d, info)
	if len(tasks) == 0 {
		return
	}
	sizes := d.xs
	if len(sizes) > maxTaskSizes {
		sizes = sizes[len(sizes)-1:]
	}
	var rows [][]string
	for _, s := range d.series {
		for _, task := range tasks {
			row := []string{s.md(), mdText(task)}
			has := false
			for _, size := range sizes {
				vals, _ := s.cells[size].values(taskMetric + "/" + task)
				st := summarize(vals)
				if st.N == 0 {
					row = append(row, "")
					continue
				}
				has = true
				row = append(row, m.fmtNum(taskMetric+"/"+task, st.Mean))
			}
			if has {
				rows = append(rows, row)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "### %s per task\n\n", taskMetric)
	header := append([]string{"series", "task \\ size"}, d.headOf(sizes)...)
	writeTable(w, header, rows, "ll"+strings.Repeat("r", len(sizes)))
	fmt.Fprintf(w, "\nMean test errors of each one-vs-rest binary task (class against the rest) over trials")
	if len(sizes) < len(d.xs) {
		fmt.Fprintf(w, ", at the largest training size")
	}
	fmt.Fprintf(w, "; %s is their sum.\n\n", taskMetric)
}

// taskNames returns the one-vs-rest tasks present in d's results (the
// binary_errors/<class> metrics), in class order when info knows the
// classes, the others after them sorted.
func taskNames(d *dataSet, info *results.DatasetInfo) []string {
	seen := map[string]bool{}
	for _, s := range d.series {
		for _, c := range s.cells {
			for _, o := range c.obs {
				for k := range o.metrics {
					if task, ok := strings.CutPrefix(k, taskMetric+"/"); ok {
						seen[task] = true
					}
				}
			}
		}
	}
	var tasks []string
	if info != nil {
		for _, c := range info.Classes {
			if seen[c] {
				tasks = append(tasks, c)
				delete(seen, c)
			}
		}
	}
	var rest []string
	for t := range seen {
		rest = append(rest, t)
	}
	sort.Strings(rest)
	return append(tasks, rest...)
}

// maxAcrossRows is the most rows a per-task artifact table may have for
// writeAcrossTasks to summarize it (one column per row).
const maxAcrossRows = 16

// onLevel is the value above which writeAcrossTasks counts an entry of a
// per-task table as on (a switch ŝ > ½).
const onLevel = 0.5

// writeAcrossTasks summarizes, for a one-vs-rest dataset, the per-task
// artifact tables of its series at the largest training size: tables with
// at most maxAcrossRows rows whose columns are the tasks (one switch
// vector per task, as med's "switches" with independent switches) or one
// column "shared" (one vector for all tasks). For each such table name and
// set of rows it writes one row per series and one column per table row: the mean entry
// over the tasks and the trials, and how many tasks have an entry above
// onLevel (mean over trials), out of the table's columns.
func (m *model) writeAcrossTasks(w *bytes.Buffer, d *dataSet, dir string, info *results.DatasetInfo) {
	if d.spec.Tasks != "one-vs-rest" || len(d.xs) == 0 {
		return
	}
	isTask := map[string]bool{}
	for _, t := range taskNames(d, info) {
		isTask[t] = true
	}
	if info != nil {
		for _, c := range info.Classes {
			isTask[c] = true
		}
	}
	perTask := func(a *artifactFile) bool {
		t := a.Table
		if t == nil || len(t.Rows) == 0 || len(t.Rows) > maxAcrossRows || len(t.Columns) == 0 {
			return false
		}
		if len(t.Columns) == 1 && t.Columns[0] == "shared" {
			return true
		}
		for _, c := range t.Columns {
			if !isTask[c] {
				return false
			}
		}
		return len(t.Columns) > 1
	}
	size := d.xs[len(d.xs)-1]
	type summary struct {
		name     string
		rows     []string
		bySeries map[*series]*acrossCell
	}
	byName := map[string]*summary{}
	var names []string
	var order []*series
	for _, s := range d.series {
		for _, o := range s.cells[size].obsOrNil() {
			if !o.last {
				continue
			}
			for _, rel := range o.res.Artifacts {
				a, err := readArtifact(dir, rel)
				if err != nil || !perTask(a) {
					continue
				}
				// One summary per name and set of rows (series with
				// other base kernels get their own table).
				key := a.Name + "\x00" + strings.Join(a.Table.Rows, "\x00")
				sm := byName[key]
				if sm == nil {
					sm = &summary{name: a.Name, rows: a.Table.Rows, bySeries: map[*series]*acrossCell{}}
					byName[key] = sm
					names = append(names, key)
				}
				ac := sm.bySeries[s]
				if ac == nil {
					ac = &acrossCell{sum: make([]float64, len(sm.rows)), cnt: make([]int, len(sm.rows)), on: make([]int, len(sm.rows))}
					sm.bySeries[s] = ac
					if !slices.Contains(order, s) {
						order = append(order, s)
					}
				}
				ac.add(a.Table.Values, len(a.Table.Columns))
			}
		}
	}
	for _, key := range names {
		sm := byName[key]
		name := sm.name
		fmt.Fprintf(w, "### %s across tasks, size %s\n\n", mdText(name), fmtX(size))
		header := append([]string{"series"}, sm.rows...)
		var rows [][]string
		for _, s := range order {
			ac := sm.bySeries[s]
			if ac == nil {
				continue
			}
			row := []string{s.md()}
			for i := range sm.rows {
				row = append(row, ac.cell(i))
			}
			rows = append(rows, row)
		}
		writeTable(w, header, rows, "l"+strings.Repeat("r", len(sm.rows)))
		fmt.Fprintf(w, "\nEach cell: the mean entry of the per-task %q table over the tasks and trials · how many tasks have an entry above %g (mean over trials), out of the table's columns (one column \"shared\" when the tasks share one vector).\n\n", name, onLevel)
	}
}

// acrossCell accumulates one series' per-task tables for writeAcrossTasks.
type acrossCell struct {
	sum    []float64 // per row: the sum of the entries
	cnt    []int     // per row: the entries summed
	on     []int     // per row: the entries above onLevel
	trials int
	cols   int // columns of the tables (the same for every trial)
}

func (a *acrossCell) add(values [][]*float64, cols int) {
	a.trials++
	a.cols = cols
	for i, row := range values {
		if i >= len(a.sum) {
			break
		}
		for _, v := range row {
			if v == nil {
				continue
			}
			a.sum[i] += *v
			a.cnt[i]++
			if *v > onLevel {
				a.on[i]++
			}
		}
	}
}

// cell formats row i: "mean · on/columns".
func (a *acrossCell) cell(i int) string {
	if a.cnt[i] == 0 {
		return ""
	}
	on := float64(a.on[i]) / float64(a.trials)
	return strconv.FormatFloat(a.sum[i]/float64(a.cnt[i]), 'f', 3, 64) + " · " +
		strconv.FormatFloat(on, 'g', 3, 64) + "/" + strconv.Itoa(a.cols)
}
