#!/usr/bin/env Rscript
# Golden Lasso / Elastic Net fits from R's glmnet for forecaster/regress.
#
#   Rscript forecaster/regress/testdata/glmnet/gen.R
#
# Writes glmnet.txt next to this script (plain text, no R packages beyond
# glmnet): a line "n p", n lines of X, one line of y, then one line per fit:
# "fit <alpha> <lambda> <intercept> <coef_1> ... <coef_p>".
#
# glmnet's gaussian objective is (1/2n) RSS + lambda * ((1-alpha)/2 ||b||^2 +
# alpha ||b||_1), i.e. scikit-learn's ElasticNet with alpha = lambda and
# l1_ratio = alpha. glmnet standardizes y internally; its manual says to pass
# a y with unit (1/n) variance to compare with other software, so y is
# standardized here. standardize = FALSE keeps X as is; thresh = 1e-14.
suppressMessages(library(glmnet))
set.seed(20261122)
n <- 50; p <- 8
X <- matrix(rnorm(n * p), n, p)
X[, 2] <- 0.7 * X[, 1] + 0.3 * X[, 2]
X[, 5] <- 3 * X[, 5] + 10
beta <- c(2, 0, -1.5, 0, 0.4, 0, 0, 1)
y <- drop(5 + X %*% beta + rnorm(n, sd = 0.5))
y <- (y - mean(y)) / sqrt(mean((y - mean(y))^2))
out <- file(file.path(dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE))), "glmnet.txt"), "w")
f <- function(v) paste(sprintf("%.17g", v), collapse = " ")
writeLines(sprintf("%d %d", n, p), out)
for (i in 1:n) writeLines(f(X[i, ]), out)
writeLines(f(y), out)
for (a in c(1, 0.5, 0.2)) {
  for (lam in c(0.2, 0.05, 0.005)) {
    m <- glmnet(X, y, family = "gaussian", alpha = a, lambda = lam, standardize = FALSE,
                intercept = TRUE, thresh = 1e-14, maxit = 1e7)
    cf <- as.numeric(coef(m))
    writeLines(paste("fit", f(a), f(lam), f(cf)), out)
  }
}
close(out)
