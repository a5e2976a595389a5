package reports

import (
	"fmt"
	"runtime"
	"sort"
	"testing"

	"github.com/repro-ml/repro/internal/cputime"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// synthRuns returns a spec of 2 datasets × 5 methods × 2 sizes and
// trials trials per size, and a result for every trial of its plan
// (2 × 5 × 2 × trials results), with metrics that vary by trial.
func synthRuns(tb testing.TB, trials int) (*spec.Spec, []results.Result) {
	tb.Helper()
	sp := &spec.Spec{
		Name:    "scale",
		Seed:    1,
		Curve:   spec.Curve{Sizes: []float64{50, 100}, Trials: trials},
		Metrics: []string{"accuracy", "auc"},
	}
	for _, id := range []string{"d1", "d2"} {
		sp.Datasets = append(sp.Datasets, spec.DatasetSpec{Name: "csv", ID: id,
			Split: spec.Split{Kind: "holdout", Params: param.Values{"test": 50}}})
	}
	for i := range 5 {
		label := fmt.Sprintf("m%d", i)
		sp.Methods = append(sp.Methods, spec.MethodSpec{Name: "p", Label: label, Grid: []param.Values{{}}})
	}
	sp.Baseline = "m0"
	plan, err := spec.NewPlan(sp)
	if err != nil {
		tb.Fatal(err)
	}
	recs := make([]results.Result, len(plan.Trials))
	for i, t := range plan.Trials {
		v := 70 + float64(t.Index%17) + float64(len(t.Method.Label)+int(t.Size))/100
		recs[i] = results.Result{Key: t.Key, Dataset: t.Dataset.ID, Method: t.Method.Label, Plugin: "p",
			Size: int(t.Size), Trial: t.Index, TrainRows: int(t.Size), TestRows: 50, FitSeconds: 0.01,
			Metrics: results.Metrics{"accuracy": v, "auc": v / 100}}
	}
	return sp, recs
}

// BenchmarkRender times report.md, its plots and summary.csv on 50k and
// 200k trials: aggregation is linear in the trials, so 200k takes about
// 4× 50k (issue 43: it took 18× with an O(T²) scan per cell).
func BenchmarkRender(b *testing.B) {
	for _, trials := range []int{2500, 10000} { // 50k and 200k results
		sp, recs := synthRuns(b, trials)
		b.Run(fmt.Sprintf("%dk", len(recs)/1000), func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			runtime.GC() // not the setup's garbage
			cpu := cputime.Used()
			defer func() { b.ReportMetric(float64(cputime.Used()-cpu)/float64(b.N), "cpu-ns/op") }()
			for b.Loop() {
				if _, err := Render(dir, sp, recs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompare times diff of a run against itself on 50k and 200k
// trials and reports the bytes it allocates per trial.
func BenchmarkCompare(b *testing.B) {
	for _, trials := range []int{2500, 10000} {
		sp, recs := synthRuns(b, trials)
		b.Run(fmt.Sprintf("%dk", len(recs)/1000), func(b *testing.B) {
			b.ReportAllocs()
			runtime.GC()
			cpu := cputime.Used()
			defer func() { b.ReportMetric(float64(cputime.Used()-cpu)/float64(b.N), "cpu-ns/op") }()
			for b.Loop() {
				if _, err := Compare(sp, recs, sp, recs, DiffOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestByTrial checks the counting sort of byTrial against a stable sort
// by trial index, for dense, sparse and negative indices.
func TestByTrial(t *testing.T) {
	for _, trials := range [][]int{
		nil, {0}, {3, 1, 2, 1, 0, 3, 3, 0}, {5, 1000, 5, 2}, {2, -1, 0, -1, 1},
	} {
		recs := make([]results.Result, len(trials))
		for i, tr := range trials {
			recs[i] = results.Result{Key: fmt.Sprint(i), Trial: tr}
		}
		want := make([]*results.Result, len(recs))
		for i := range recs {
			want[i] = &recs[i]
		}
		sort.SliceStable(want, func(i, j int) bool { return want[i].Trial < want[j].Trial })
		got := byTrial(recs)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("trials %v: position %d holds result %s, want %s", trials, i, got[i].Key, want[i].Key)
			}
		}
	}
}
