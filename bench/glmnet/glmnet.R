# Fits the lasso on UCI abalone with R's glmnet (Debian r-cran-glmnet) at the
# lambdas given, standardize=TRUE, intercept=TRUE, and prints one line per
# lambda: "lambda seconds b0 b1 ... bp" (original-scale coefficients, columns
# in the order of bench/glmnet/main.go: sex F, I, M dummies, length,
# diameter, height, whole, shucked, viscera, shell; minus the dropped dummy).
# Usage: Rscript glmnet.R abalone.data thresh maxit drop lambda1 lambda2 ...
#   thresh, maxit: glmnet's convergence threshold and pass limit;
#   drop: a sex dummy to leave out (F, I or M), or "none".
suppressMessages(library(glmnet))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1], header = FALSE)
thresh <- as.numeric(args[2])
maxit <- as.integer(args[3])
drop <- args[4]
X <- cbind(F = as.numeric(d$V1 == "F"), I = as.numeric(d$V1 == "I"), M = as.numeric(d$V1 == "M"),
           as.matrix(d[, 2:8]))
if (drop != "none") X <- X[, colnames(X) != drop]
y <- d$V9
for (lam in as.numeric(args[-(1:4)])) {
  t0 <- proc.time()[["elapsed"]]
  reps <- 20
  for (r in 1:reps) fit <- glmnet(X, y, family = "gaussian", alpha = 1, lambda = lam,
                                   standardize = TRUE, intercept = TRUE, thresh = thresh, maxit = maxit)
  secs <- (proc.time()[["elapsed"]] - t0) / reps
  b <- as.numeric(coef(fit))
  cat(lam, secs, formatC(b, digits = 17, format = "g"), "\n")
}
