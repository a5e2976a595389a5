// Package reports renders the results of a repro experiment: report.md
// (setup, dataset facts, mean ± sd tables per metric, Win/Tie/Loss against
// the baseline from paired t-tests, chosen hyperparameters, fit times,
// averaged artifact tables, expectations), summary.csv, one PNG learning
// curve per dataset and metric (or, with report.x, the metric against a
// method parameter), and one PNG per artifact plot. A legend of more than
// five entries is drawn in a column beside the plot rather than over the
// data. It also checks an experiment's expect: block (Check, WriteCheck).
//
// Every output is byte-stable: no timestamps, spec order for datasets and
// methods, grid order for variants, ascending sizes and fixed rounding
// (report.digits, default 2), so a re-render of the same results gives the
// same files.
package reports
