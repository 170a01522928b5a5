#!/usr/bin/Rscript
# Writes the data for the M5P goldens (gen_m5p.sh, golden_weka_test.go).
# Run from this directory: Rscript gen_data.R  (R from Debian's r-base-core;
# runif/rnorm under a fixed seed give the same numbers in every R >= 3.6).
#
# data-pwl.csv: a piecewise-linear target with three regimes far apart, so
# that any sensible split criterion puts the regime boundaries at the same
# two data points, and small noise (sd 0.05):
#   x2 <  0.4:              1 + 2 x0
#   x2 >= 0.4, x0 <  0.5:  10 + 2 x0 + 3 x1
#   x2 >= 0.4, x0 >= 0.5:  20 - 3 x0 + 5 x1
# (x3 is irrelevant). grid-*.csv are test points for every data set
# (data-friedman1.csv and data-steps.csv are ../trees/'s), with the
# noise-free truth as y.
set.seed(20261201)
wr <- function(d, file) {
  writeLines(c(paste(names(d), collapse = ","),
               apply(d, 1, function(r) paste(sprintf("%.17g", r), collapse = ","))), file)
}
pwl <- function(x0, x1, x2) ifelse(x2 < 0.4, 1 + 2 * x0,
                                  ifelse(x0 < 0.5, 10 + 2 * x0 + 3 * x1, 20 - 3 * x0 + 5 * x1))
n <- 300
x0 <- runif(n); x1 <- runif(n); x2 <- runif(n); x3 <- runif(n)
wr(data.frame(x0, x1, x2, x3, y = pwl(x0, x1, x2) + rnorm(n, 0, 0.05)), "data-pwl.csv")
m <- 200
x0 <- runif(m); x1 <- runif(m); x2 <- runif(m); x3 <- runif(m)
wr(data.frame(x0, x1, x2, x3, y = pwl(x0, x1, x2)), "grid-pwl.csv")
X <- matrix(runif(m * 8), m, 8)
colnames(X) <- paste0("x", 0:7)
wr(data.frame(X, y = 10 * sin(pi * X[, 1] * X[, 2]) + 20 * (X[, 3] - 0.5)^2 + 10 * X[, 4] + 5 * X[, 5]),
   "grid-friedman1.csv")
X <- matrix(rnorm(m * 4), m, 4)
colnames(X) <- paste0("x", 0:3)
wr(data.frame(X, y = ifelse(X[, 3] < 0.3, 1, 5) + ifelse(X[, 1] < -0.5, 2, 0)), "grid-steps.csv")
