// Package matrix provides the dense and sparse (CSR) row-major matrices that
// repro's datasets are stored in and its solvers compute with.
//
// Both types satisfy Matrix, the small set of kernels a first-order or
// coordinate solver needs: products with a vector and its transpose, row dot
// products and row updates, column statistics and row subsets. Dense shares
// its storage layout with gonum's mat.Dense (see Dense.Mat), so dense
// factorizations come from gonum; CSR is written here because the module
// proxy offers no maintained sparse package.
//
// Shape mismatches are programmer errors and panic with a "matrix:" prefix,
// as gonum does.
package matrix
