// Package reports renders the results of a repro experiment: report.md
// (setup, dataset facts, mean ± sd tables per metric, Win/Tie/Loss against
// the baseline from the paired test of report.test (PairedTest, TestAt),
// chosen hyperparameters, fit times,
// averaged artifact tables, expectations), summary.csv, one PNG learning
// curve per dataset and metric (or, with report.x, the metric against a
// method parameter), and one PNG per artifact plot; report.artifacts
// (all, plots, tables, none) chooses which artifacts report.md shows, and
// it counts those left out. A legend of more than
// five entries is drawn in a column beside the plot rather than over the
// data. It also checks an experiment's expect: block (Check, WriteCheck).
//
// Reports read only the stored spec and the stored results (packages spec
// and results), never the executor (package runner) nor the method and
// dataset registries, so a results directory renders after its plugins
// are gone; the plan's trial keys need the split kinds, select rules and
// protocols registered, which the command links. Every result is aggregated by x over its observations
// (results.Result.Points): one at the training size for a per-size trial,
// one per batch for an active-learning trial. The extras a protocol or
// method records with an observation are tabled and plotted like a metric
// (<dataset>-<name>.png, no direction, no Win/Tie/Loss) when report.y
// names them.
//
// Every output is byte-stable: no timestamps, spec order for datasets and
// methods, grid order for variants, ascending sizes and fixed rounding
// (each metric its own decimals, report.digits and report.metric_digits
// over them), so a re-render of the same results gives the
// same files.
package reports
