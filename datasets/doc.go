// Package datasets defines repro's Dataset and the registries of dataset and
// transform plugins.
//
// A dataset plugin turns typed parameters into a *Dataset: a loader of a file
// format (csv, libsvm, 20news, …) or an embedded dataset (dna-splice, mcycle).
// Plugins register themselves from init with Register, like database/sql
// drivers; the runner finds them by the name an experiment gives:
//
//	datasets:
//	  - name: csv
//	    params: {file: uci/abalone/abalone.data, label: rings}
//
// A transform plugin (RegisterTransform) is an unsupervised computation over a
// whole dataset — PCA, k-gram compression, a feature graph — that the runner
// performs once per dataset and caches on disk by the content of its input
// and its parameters. A transform returns a new Dataset: new columns, or the
// same columns with side information such as a feature graph in Graphs.
package datasets
