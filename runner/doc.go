// Package runner executes an experiment: it runs the trials of a spec's
// plan and stores their results.
//
// The experiment language — parsing, validation, --set, the plan and its
// trial keys, seeds — is package spec; the result record and the store of
// an output directory (results.jsonl, shard files, locks, datasets.json)
// are package results. What only the data can tell (sizes against the
// pool, test and fold counts, column names) is checked here by
// datacheck.go once the datasets load: CheckData for repro validate
// --data, and Run before any trial. Run executes the trials of the plan
// not already in the result store on a pool of workers and appends each
// result durably as it finishes (run.go). Seeds derive from the
// experiment seed and a trial's identity only (spec.Derive), so results
// do not depend on the number of workers or on the order trials finish
// in. A dataset is resident only while its trials run: it loads
// before its first trial, is released after its last, and datasets load
// one after the other when the memory limit cannot hold them at once
// (resident.go); a worker
// with no trial left lends itself to the cv folds of the trials still
// running (eachFold in select.go: each fold's grid points in grid order on
// one goroutine, warm-starting each other through methods.Env.Warm), so
// the last trials of a run keep every core busy. A run of shard I/N of the
// plan (spec.Plan.Shards) stores its results in the shard's own file under
// its own lock (results.LockShard), and results.ReadAllResults merges them.
//
// # A trial in three pluggable steps
//
// Each step is a registry of small plugins that register themselves from
// init, like image formats, in package spec's registries (spec.Splitters,
// spec.Selectors, spec.Protocols). A plugin registers once: its value here
// (Splitter, Selector, Protocol) embeds the static description spec reads
// (doc, params, checks, trial count, oracle flag, steps) and adds the code
// that runs it:
//
//   - Splitters (split.go: given, holdout, rest, train, kfold) divide the
//     dataset's rows, for one trial, into the pool training rows are drawn
//     from and the test part (a Partition). A splitter may define the
//     number of trials itself (kfold: folds × repeats).
//   - Selectors (select.go: fixed, cv, test) choose a method's grid point on
//     the trial's training set; cv and test share one best-of loop.
//   - Protocols (protocol_curve.go: curve; package protocols/active:
//     active) run one trial on its partition through a TrialRun (trial.go:
//     sampling order, training and test sets with transforms fitted on the
//     training rows, selection and fit with one-vs-rest tasks, checked
//     predictions, scoring, artifacts) and return its Observations: an x
//     value (a training size, a label budget), the metrics there, and
//     named extras. A protocol may live outside this package: TrialRun's
//     public API is all active uses — DataID to key caches, SetUnlabelled
//     for the fits' unlabelled rows, Share and After for work shared with
//     the other trials of the run (its full-pool score), Apart for a fit
//     outside the trial's sequence of fits.
//
// Between the split and the protocol, the runner fits the dataset's
// transforms declared fit: pool on the pool's rows, without labels unless
// the transform is supervised, and applies them to every row; transforms
// declared fit: train are fitted by TrialRun.Sets on each training set.
// Fitted transforms are cached in memory by the content of the rows they
// are fitted on and their params (fitted.go), and so is the data a
// fit: pool transform produces (run.go), so the trials of one pool —
// sharePartitions runs them together — fit and apply it once; a transform
// may also keep its fits on disk under Env.CacheDir (pca does), reporting
// a damaged file to Env.Warn, which the run turns into a warning
// (Options.Warn, Summary.Warnings). Corpus-level
// transforms run once when the dataset loads and are cached on disk
// (data.go).
//
// # Memory
//
// Before a fit, TrialRun.Fit asks the method plugin for an estimate of
// the memory it needs on the training set's shape (methods.Plugin.Memory;
// a sound default for a plugin without one), and so does the runner
// before a transform (datasets.Transform.Memory). A fit estimated above
// Options.MemLimit (repro run --mem-limit, $REPRO_MEM_LIMIT, by default half
// the memory the process may use: the physical memory, the cgroup's limit
// or what RLIMIT_AS leaves, whichever is smallest; the other half leaves
// the collector its headroom)
// fails its trial with a *MemoryError before allocating, and the run goes
// on: a LIBSVM index of 33,554,432 is a failed trial, not a process killed
// out of memory. A corpus-level transform refused when the dataset loads
// fails every trial of that dataset, the others run. The limit is also a budget shared by the trials running at
// once: a trial holds the most its fits need until it ends, and a fit
// that would push the total over the limit waits (memory.go). The
// resident datasets hold their size in it too (their matrices, labels and
// strings, plus the estimates of the transforms their trials fit), and a
// corpus-level transform its estimate while it runs
// (datasets.Transform.MemoryOf: compress and kgrams estimate from the
// words of the documents), and so does a loader that declares one
// (datasets.Loader.Memory: the text corpora, from their files' size),
// so that a large build waits for the fits running: the next dataset
// loads when it fits beside them, or when none is resident, so that under
// a tight limit the plan runs dataset by dataset (resident.go).
//
// Results store observations: a trial with one (curve) keeps it in
// results.Result's Size, Metrics and Extras, one with several (active) in
// its Observations; Result.Points returns them uniformly. Reports read
// the stored results and spec (packages results and spec), never this
// package nor the method or dataset plugins.
//
// # What a contributor touches
//
//   - A method: one file in its family's package under methods/ that
//     registers it (with a memory estimate, checked in
//     internal/conformance's TestMemoryEstimates), one test file, and a
//     blank import in plugins/plugins.go for a new package (see package
//     methods).
//   - A split kind, a select rule or a protocol: one file in this package
//     that registers it from init, once, with everything about it
//     (spec.Splitters.Register(name, &Splitter{Splitter: spec.Splitter{Doc,
//     Params: param.Of[kfoldParams]().Params, Replicates}, Split: …}), its
//     hooks reading the params as that struct; likewise spec.Selectors and
//     spec.Protocols), and its test: protocol_curve.go and
//     protocol_test.go, say. A protocol may instead be a package of its own
//     (protocols/active): its file, its test, and a blank import in
//     plugins/plugins.go. Decoding, validation, NewPlan, `repro list` and
//     docs/spec.md take the static half from the registration; regenerate
//     docs/spec.md with go test ./spec -run TestSpecDoc -update. What is
//     about the kind — its words in plans, messages and reports, its
//     static cross-checks (spec.Protocol.Check, through a spec.Checker),
//     its data checks (Splitter.CheckData, Protocol.CheckPool), how its trials are
//     keyed — is in its registration: no other file names it, which
//     TestNoNameBranches (package main) checks on the string literals of
//     the source.
//   - A query strategy of the active protocol: one file in
//     protocols/active registering it with active.Strategies.Register,
//     and its test.
//   - A report section: a file in package reports that renders it from
//     the model reports builds (report.go's writeMarkdown calls it), with
//     a golden file under reports/testdata and its test; it reads
//     results.Result and spec.Spec only.
//   - A dataset loader or a transform: one file under datasets/ registering it with
//     datasets.Register or datasets.RegisterTransform (Apply for a
//     corpus-level transform, Fit for one fitted per trial), its test, and
//     a blank import in plugins/plugins.go for a new package.
package runner
