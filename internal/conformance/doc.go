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
// The runner's registries have suites of their own. TestSplitters splits a
// three-class dataset of unequal classes (and its regression twin) with
// every split kind, for several trials and seeds: pools and test parts
// sorted and in range, test rows disjoint from the pool (or the training
// sample), every row in exactly one part unless the kind is in-sample or
// listed in uncovered, the same partition for the same seed and another
// for another seed unless the kind is listed in seedless, class
// proportions within ±1 row under stratify, and a kind that defines its
// own replicates (kfold) putting every row in the test part equally often.
// TestSelectors runs a small experiment under every select rule, and
// under a copy of the oracle rule registered by another name: the results'
// Oracle field is the rule's, and report.md flags every table row of the
// method as an oracle choice exactly for an oracle rule. TestProtocols runs
// every protocol on iris: finite metrics, observations in increasing x and
// as many as Steps says, the same results at -j 1 and -j 4 trial key by
// trial key, and a run cancelled during a slow trial returning promptly
// without completing it. TestStrategies queries every query strategy on
// its own (exactly N distinct indices into the unlabelled candidates, the
// same for the same random source, inputs unchanged, a Blind strategy
// ignoring the prediction) and in the active protocol (labelled counts
// grow by the batch to the budget, results repeatable).
//
// What a contributor touches: a plugin in a package already linked in,
// nothing; a new plugin package, its blank import in plugins/plugins.go,
// which both the repro command and this suite link; a required parameter, a value in methodParams or transformParams (or the
// dataset's fixture); a dataset that reads files, a fixture in fixtures; a
// problem a method documents it does not handle, an entry in unsupported
// with the documentation's reason; a split kind or protocol with a
// required parameter, a value in splitParams or protocolParams (a query
// strategy has none); a split kind whose partition does not
// depend on the seed, an entry in seedless.
package conformance
