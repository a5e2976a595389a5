package reports

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/repro-ml/repro/runner"
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
func (m *model) writeTasks(w *bytes.Buffer, d *dataSet, info *runner.DatasetInfo) {
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
	// The tasks present in the results, in class order when known.
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
	if len(seen) == 0 {
		return
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
	tasks = append(tasks, rest...)

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
	header := append([]string{"series", "task \\ size"}, sizeHeader(sizes)...)
	writeTable(w, header, rows, "ll"+strings.Repeat("r", len(sizes)))
	fmt.Fprintf(w, "\nMean test errors of each one-vs-rest binary task (class against the rest) over trials")
	if len(sizes) < len(d.xs) {
		fmt.Fprintf(w, ", at the largest training size")
	}
	fmt.Fprintf(w, "; %s is their sum.\n\n", taskMetric)
}
