// Package reports renders the results of a repro experiment: report.md
// (setup, dataset facts, mean ± sd tables per metric, Win/Tie/Loss against
// the baseline from paired t-tests, chosen hyperparameters, fit times,
// averaged artifact tables, expectations), summary.csv, and one PNG
// learning curve per dataset and metric. It also checks an experiment's
// expect: block (Check, WriteCheck).
//
// Every output is byte-stable: no timestamps, spec order for datasets and
// methods, grid order for variants, ascending sizes and fixed rounding
// (report.digits, default 2), so a re-render of the same results gives the
// same files.
package reports
