// Package linear provides repro's linear model plugins and the losses they
// minimize:
//
//   - logreg-l2: L2-regularized logistic regression in liblinear's
//     convention, min ½‖w‖² + C Σ log(1+exp(−yᵢ(wᵀxᵢ+b))) with an
//     unpenalized intercept b, solved by L-BFGS (methods/optim; one-vs-rest
//     fits diagonally preconditioned when the columns' scales differ by
//     more than 1000×), with solver: tron by liblinear's trust-region
//     Newton method on Hessian-vector products, or with solver: newton by
//     Newton's method on the exact (d+1)×(d+1) Hessian (Cholesky, Armijo
//     line search) — which the default solver: auto takes for badly
//     scaled columns when the Hessian is small — or, without an
//     intercept, with solver: dual by coordinate descent on the dual (Yu,
//     Huang and Lin 2011; liblinear -s 7), whose first epochs also start
//     auto's L-BFGS on sparse data without an intercept; every solver
//     stops at the same primal rule, ‖∇f‖∞ ≤ tol·max(1, |f|); multi-class
//     one-vs-rest (as liblinear) or multinomial (softmax).
//   - logreg-l1: L1-regularized logistic regression, min ‖w‖₁ + C Σ
//     log(1+exp(−yᵢ(wᵀxᵢ+b))), solved by newGLMNET (Yuan, Ho and Lin 2012;
//     liblinear -s 6): randomized coordinate descent on a quadratic model
//     of the loss with two levels of shrinking, an adaptive inner stopping
//     tolerance, the bias re-minimized after every coordinate step, and an
//     Armijo line search from cached sigmoids, over a column-major copy of
//     the features (sparse with 32-bit indices unless more than 35%
//     filled), switching to the explicit Hessian of the model on the
//     active set when few coordinates remain active.
//   - ridge: ridge least squares for regression, min ‖y − Xw − b‖² + λ‖w‖²,
//     by Cholesky of XᵀX+λI or of the kernel form XXᵀ+λI on dense features,
//     and by conjugate gradients on the normal equations on sparse ones.
//
// logreg-l2 and logreg-l1 start from the previous fit's model in
// methods.Env.Warm (the next grid point on a fold, the next batch of an
// active-learning trial) when it has the same kind, columns and classes,
// and store theirs there: the same optimum, to the solver's tolerance, in
// fewer iterations.
//
// Every solver works on *matrix.Dense and *matrix.CSR through the
// matrix.Matrix interface and never densifies sparse data. The losses are
// exported (LogisticLoss, SoftmaxLoss) so that other plugins can add their
// own penalties, e.g. a feature-network quadratic wᵀMw.
package linear
