# Fits the lasso on UCI abalone with R's glmnet (Debian r-cran-glmnet) at the
# lambdas given, standardize=TRUE, intercept=TRUE, thresh=1e-12, and prints one
# line per lambda: "lambda seconds b0 b1 ... b10" (original-scale coefficients,
# columns in the order of bench/glmnet/main.go: sex F, I, M dummies, length,
# diameter, height, whole, shucked, viscera, shell).
# Usage: Rscript glmnet.R abalone.data lambda1 lambda2 ...
suppressMessages(library(glmnet))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1], header = FALSE)
X <- cbind(F = as.numeric(d$V1 == "F"), I = as.numeric(d$V1 == "I"), M = as.numeric(d$V1 == "M"),
           as.matrix(d[, 2:8]))
y <- d$V9
for (lam in as.numeric(args[-1])) {
  t0 <- proc.time()[["elapsed"]]
  reps <- 20
  for (r in 1:reps) fit <- glmnet(X, y, family = "gaussian", alpha = 1, lambda = lam,
                                   standardize = TRUE, intercept = TRUE, thresh = 1e-12)
  secs <- (proc.time()[["elapsed"]] - t0) / reps
  b <- as.numeric(coef(fit))
  cat(lam, secs, formatC(b, digits = 15, format = "g"), "\n")
}
