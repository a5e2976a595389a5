// Package conformance holds repro's plugin conformance suite and nothing
// else: its tests run every registered method, dataset and transform through
// the same checks, as gonum's testLocal runs every optimizer, so that a new
// plugin gets them without writing a test.
//
// Methods are fitted at their declared defaults on small classification and
// regression problems, dense (*matrix.Dense) and sparse (*matrix.CSR), that
// carry column groups and a feature graph so that every method finds the
// structure it reads. The suite checks that the same seed gives the same
// predictions, that a fit under a cancelled context returns an error
// wrapping ctx.Err() promptly, the shapes of the predictions (and of
// one-vs-rest predictions of multi-task methods), that neither the
// training set nor the predicted rows are mutated, and that no prediction
// is NaN or infinite.
//
// Datasets are loaded from their embedded copies and from the fixtures
// under the repository's testdata directories (always), and from the paper
// data directory when it is present and the tests do not run with -short.
// Each load must be deterministic, valid (Dataset.Validate) and finite, and
// must accept a non-default valid value of every declared parameter.
// Transforms are applied to a small word-count corpus with the same checks,
// plus two of their own: they leave their input unchanged and do not look
// at the labels.
//
// The plugins are linked in by imports_test.go, a copy of the root's
// plugins.go; TestImportsMatchPlugins fails when the two lists differ.
package conformance
