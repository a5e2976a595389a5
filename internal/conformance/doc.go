// Package conformance holds repro's plugin conformance suite and nothing
// else: its tests run every registered method, dataset and transform through
// the same checks, as gonum's testLocal runs every optimizer, so that a new
// plugin gets them without writing a test.
//
// TestMethods fits every method at its declared defaults on small binary,
// three-class and regression problems, dense (*matrix.Dense) and sparse
// (*matrix.CSR), that carry column groups and a feature graph so that every
// method finds the structure it reads, and on a one-column regression. It
// checks that the same seed gives the same predictions bit for bit (with
// the first fit's memo and with none) and that predicting twice does too;
// that a fit under an already cancelled context, or one cancelled as soon
// as the fit first looks at it, returns an error wrapping context.Canceled
// within two seconds; the shapes of the predictions (and of the one-vs-rest
// predictions of a MultiTask method's FitTasks); that neither the training
// set nor the predicted rows are changed; that no prediction is NaN or
// infinite; and that artifacts are well formed. Each declared parameter is
// then moved to another valid value and must still fit.
//
// TestDatasets loads every dataset plugin from its embedded data or its
// fixture under a testdata directory (always), and from the paper data
// directory when it is there and the tests run without -short. Loads must
// be deterministic, not share state with one another, valid
// (Dataset.Validate) and finite, and must accept every declared parameter
// moved to another valid value. TestTransforms applies every transform to a
// small word corpus with the same checks, plus two of its own: the input is
// left unchanged and flipping the labels changes nothing else in the
// output; then to every dataset the suite loads, where an error is allowed
// but a panic or an invalid result is not.
//
// What a contributor touches: a plugin in a package already linked in,
// nothing; a new plugin package, its blank import in plugins/plugins.go,
// which both the repro command and this suite link; a required parameter, a value in methodParams or transformParams (or the
// dataset's fixture); a dataset that reads files, a fixture in fixtures; a
// problem a method documents it does not handle, an entry in unsupported
// with the documentation's reason.
package conformance
