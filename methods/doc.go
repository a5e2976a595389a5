// Package methods defines the contract between repro's runner and its method
// plugins, and the registry that holds them.
//
// Each family of methods lives in its own package under methods/ and
// registers its plugins from init, as image formats do:
//
//	func init() {
//		methods.Register("logreg-l2", &methods.Plugin{
//			Doc:    "L2-regularized logistic regression (L-BFGS)",
//			Kinds:  methods.Classification,
//			Params: []param.Decl{{Name: "C", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true}},
//			New:    newLogReg,
//		})
//	}
//
// The experiment names the plugin (`name: logreg-l2`); the runner validates
// its params against Params, builds a Method with New for every grid point,
// and calls Fit on each training set. A plugin is found from its YAML name by
// grepping for `Register("name"`.
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
//  3. Unsupervised feature transforms computed once per dataset and cached
//     on disk by content: these are datasets.Transform plugins, not
//     methods; a method reads their output from the training set
//     (Dataset.Graphs for Sandler's feature graphs; a transform may also
//     add columns, e.g. PCA or k-gram compression, none registered yet).
//  4. Sequential trials that produce a whole curve from one run: Sequential.
//     The runner passes the training pool and the curve's label budgets; the
//     method yields a Model at each budget and the runner scores it (for
//     active learners such as Bilgic's; no registered method implements it
//     yet, the runner's tests exercise it).
//  5. Artifacts beyond metrics: a Model that implements Artifacter returns
//     coefficient tables, weight vectors or fitted curves, which the runner
//     stores per trial and reports render (Szafranski's Table 1 and Fig. 3,
//     Jebara's Fig. 2).
//
// Models may also implement Informer to report iterations and convergence.
package methods
