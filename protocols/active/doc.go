// Package active is the pool-based active learning protocol (protocol:
// active): from an initial labelled sample of a trial's pool, a query
// strategy buys labels batch by batch up to a budget; the learner is
// refitted and scored on the test part after every batch, one observation
// per batch at x = the number of labels.
//
// It is a protocol outside package runner, using only the executor's
// public API (runner.TrialRun): Sets, Fit, Predict and Score for each
// batch; SetUnlabelled to give the fits the unlabelled candidates as a
// view of the data's rows (rowview.go), not a copy per batch; DataID,
// Share, After and Apart to fit the method on the whole pool once per
// pool and series (param full), shared by the trials of that pool.
//
// The query strategies are a registry of their own (Strategies, query.go):
// random (active.go); uncertainty, least-confidence, margin, entropy and
// their -sampled variants (strategies.go). A strategy sees the current
// model's predictions on the candidates, never their labels.
//
// The package registers the protocol in spec.Protocols from init; the
// command links it through package plugins.
package active
