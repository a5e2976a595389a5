# Fits glmnet's binomial or multinomial elastic net (Debian r-cran-glmnet) on
# a sparse matrix written by bench/glmnet-en/main.go, along the λ sequence
# given, and prints "T seconds" for each of reps timed path fits, "P n" with
# glmnet's count of coordinate-descent passes over the path, then one
# line "l k j value" per non-zero coefficient of the last fit (l: λ index
# from 1, k: class from 1 (binomial: 1), j: 0 for the intercept, else the
# column from 1), original scale.
# Usage: Rscript en.R DIR family alpha thresh maxit reps
#   DIR holds x.txt ("i j value" triplets from 1, first line "rows cols"),
#   y.txt (a class index per row from 0) and lambda.txt.
suppressMessages(library(glmnet))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]; family <- args[2]; alpha <- as.numeric(args[3])
thresh <- as.numeric(args[4]); maxit <- as.integer(args[5]); reps <- as.integer(args[6])
con <- file(file.path(dir, "x.txt"), "r")
dims <- scan(con, what = integer(), n = 2, quiet = TRUE)
tr <- matrix(scan(con, quiet = TRUE), ncol = 3, byrow = TRUE)
close(con)
X <- Matrix::sparseMatrix(i = tr[, 1], j = tr[, 2], x = tr[, 3], dims = dims)
y <- factor(scan(file.path(dir, "y.txt"), quiet = TRUE))
lambda <- scan(file.path(dir, "lambda.txt"), quiet = TRUE)
glmnet.control(fdev = 0, devmax = 1)
for (r in 1:reps) {
  t0 <- proc.time()[["elapsed"]]
  fit <- glmnet(X, y, family = family, alpha = alpha, lambda = lambda, standardize = TRUE,
                intercept = TRUE, thresh = thresh, maxit = maxit)
  cat("T", proc.time()[["elapsed"]] - t0, "\n")
}
if (length(fit$lambda) != length(lambda)) stop("glmnet stopped the path early")
cat("P", fit$npasses, "\n")
betas <- if (family == "binomial") list(fit$beta) else fit$beta
for (k in seq_along(betas)) {
  a0 <- if (family == "binomial") fit$a0 else fit$a0[k, ]
  for (l in seq_along(lambda)) cat(l, k, 0, formatC(a0[l], digits = 17, format = "g"), "\n")
  s <- Matrix::summary(as(betas[[k]], "CsparseMatrix"))
  s <- s[s$x != 0, ]
  if (nrow(s) > 0) cat(paste(s$j, k, s$i, formatC(s$x, digits = 17, format = "g")), sep = "\n")
  cat("\n")
}
