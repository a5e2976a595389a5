// Package methods defines the contract between repro's runner and its method
// plugins, and the registry that holds them.
//
// Each family of methods lives in its own package under methods/ and
// registers its plugins from init, as image formats do:
//
//	func init() {
//		methods.RegisterTyped("logreg-l2", methods.Typed[logReg]{
//			Doc:   "L2-regularized logistic regression (L-BFGS)",
//			Kinds: methods.Classification,
//			New:   func(p logReg) (methods.Method, error) { return &p, nil },
//		})
//	}
//
//	// logReg is logreg-l2 at one grid point: its parameters.
//	type logReg struct {
//		C   float64 `param:"C" range:"(0, +inf)" default:"1" doc:"weight of the summed log-loss"`
//		Tol float64 `param:"tol" range:"(0, +inf)" default:"1e-5" doc:"stop when ‖∇f‖∞ ≤ tol"`
//	}
//
// The struct's tags declare the parameters (param.Of): RegisterTyped
// derives the Plugin's Params from them once, and every hook (New,
// Validate, Memory, Programs) receives a grid point as the filled struct.
// The experiment names the plugin (`name: logreg-l2`); the runner checks
// its params against Params, calls Validate on every grid point, builds a
// Method with New for every grid point, and calls Fit on each training set.
// Register, with a []param.Decl and hooks reading param.Values, remains
// for plugins not yet typed and for tests' fakes.
// A plugin is found from its YAML name by grepping for
// `Register(Typed)?\("name"`.
//
// # Adding a method
//
// A new method touches at most three places:
//
//   - one file, methods/<family>/<family>.go, that registers it from init
//     (Doc, Kinds, its parameters' struct, New, Memory — an estimate of the memory a fit
//     needs on a training set's Shape, built with Floats and Bytes, which
//     the runner checks against the run's limit before fitting — and
//     Validate if a parameter has inner syntax) and implements Method and
//     Model;
//   - one test file beside it, table-driven, with a TestValidate on
//     plugintest.Run when the plugin has declarations or a hook worth
//     checking, and a runnable Example for what it exports;
//   - for a new family package only, one blank import line in
//     plugins/plugins.go, which links every plugin for the command and the
//     conformance suite (internal/conformance), which then checks the new
//     method on dense and sparse problems without further code.
//
// TestPluginPackagesAreLeaves (methods/layering_test.go) fails if the import
// in plugins/plugins.go is forgotten, or if any other package imports a
// package that registers methods.
//
// # Validating parameters
//
// Declarations (a struct's tags, or param.Decl) say a parameter's type,
// default, bounds (inclusive or exclusive per side: ρ in (0, 1] is
// range:"(0, 1]") and choices (enum:"a|b"). What they cannot say — the inner syntax of a value
// (med's kernel specs "rbf:0.5", "poly:3"), or a relation between values —
// goes in Plugin.Validate, which `repro validate` and `repro run` call on
// every grid point before anything runs. It returns one *param.InvalidError
// per bad value (param.Invalid for a whole value, param.InvalidElem for an
// element of a list), all of them joined with errors.Join, so that each is
// reported at its own line and column. Validate and New must read a value
// with the same code (med calls kernel.ParseAll from both), so that a
// grid point that validates is one that builds.
//
// Every parameter's value is part of a trial's key, defaults included. A
// parameter added to a plugin that already has stored results takes the
// option omitdefault (`param:"test_file,omitdefault" default:""`): it is
// left out of keys while it holds its default, so those results stay
// valid and an interrupted run resumes (spec.KeyParams).
//
// # Sharing work between fits
//
// The fits on one training set (every grid point fitted on it, its
// one-vs-rest tasks, the final fit of the trial) share Env.Memo. A fit caches what does
// not depend on its own parameters with Remember, which is typed:
//
//	g, err := methods.Remember(env, methods.Key{Op: "kernel.gram", Args: "rbf:0.5/normalize=true"},
//		func() ([]float64, error) { … })
//
// A Key is a value (Op, qualified by the package, and Args in canonical
// text), never an address; it need not name the training set's rows, but
// names by content (ContentID) whatever else the value depends on, such as
// the targets. A key reused with another type is an error, not a panic.
//
// # Shared numerics
//
// Code that two plugin packages share goes in a library package that
// registers nothing, never in one of the plugin packages: importing a
// plugin package registers its plugins as a side effect. The library
// packages are:
//
//   - kernel: base kernel specs, Gram and cross-kernel matrices (svm, med);
//   - lsq: the squared-loss problem in covariance form, column groups and
//     the coefficient table (lasso, group-lasso, hp, kernel-hp);
//   - logistic: penalized binary and multinomial logistic regression with
//     sparse quadratic penalties (fnr and its baselines, pcr, lle-lr);
//   - optim: the configured L-BFGS of gonum/optimize;
//   - plugintest: checks of a plugin's declarations and Validate hook, for
//     its tests.
//
// The base contract is small — Method.Fit returns a Model, Model.Predict
// returns a Prediction — and the other shapes of the five papers are
// optional capabilities discovered by type assertion, like
// driver.QueryerContext in database/sql:
//
//  1. Supervised classification and regression on dense or sparse features:
//     Method and Model, on a matrix.Matrix that is *matrix.Dense or
//     *matrix.CSR (Sandler's FNR, Szafranski's hp, the linear baselines).
//  2. Multi-task methods trained jointly on several binary tasks over one
//     input space: MultiTask. The runner decomposes a multi-class dataset
//     one-vs-rest when the experiment asks for `tasks: one-vs-rest`, calls
//     FitTasks, and scores the OneVsRest prediction with per-task metrics
//     (Jebara's MED with shared switches). Methods without MultiTask are
//     fitted once per task, independently.
//  3. Feature transforms: these are datasets.Transform plugins, not
//     methods, computed once per dataset and cached on disk by content
//     (Sandler's feature graphs, read from Dataset.Graphs), or fitted in
//     each trial on the pool or the training rows (`fit: pool`: PCA of the
//     pool); a method reads their output from the training set.
//  4. Refits within a trial: a protocol such as active learning refits the
//     method after every batch of labels; Env.State carries what a method
//     keeps from one of those fits to the next (DDR's size search), and a
//     model that implements Extraser records named values (the number of
//     components chosen) with each observation.
//  5. Artifacts beyond metrics: a Model that implements Artifacter returns
//     coefficient tables, weight vectors or fitted curves, which the runner
//     stores per trial and reports render (Szafranski's Table 1 and Fig. 3,
//     Jebara's Fig. 2).
//
// Models may also implement Informer to report iterations and convergence,
// ErrPredictor when a prediction can fail (an external program's exit
// status, methods/command), and FitTimer when the fit's time is measured by
// the model (an external program's wall time). A plugin that takes
// parameters of any name (command's grid values) declares them with
// Plugin.Free, and one that runs external programs lists them with
// Plugin.Programs, which `repro validate` prints and `--no-commands` refuses.
package methods
