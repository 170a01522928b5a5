#!/usr/bin/Rscript
# Golden least-squares fits for regress.FitLRM (golden_lm_test.go) from
# base R's lm() (Debian's r-base-core). Run from this directory:
#   Rscript gen_lm.R
# LRM's design (lrm.go, LRMTerms): degree 1 is x_j; degree 2 adds every
# product x_j*x_k with j < k and no squares, which is R's y ~ .^2. For each
# committed data set and degree it writes lm-<data>-deg<d>.txt with the
# coefficients in LRMTerms order (intercept first) and the fitted values.
# Both data sets are well posed (no NA coefficient; kappa of the
# standardized degree-2 design <= 22), so lm's QR and LRM's normal
# equations on standardized columns solve the same problem.
cases <- list(
  list(name = "friedman1", file = "../trees/data-friedman1.csv"),
  list(name = "workload", file = "../workload/workload.csv")
)
for (c in cases) {
  d <- read.csv(c$file)
  names(d)[ncol(d)] <- "y"
  p <- ncol(d) - 1
  x <- names(d)[1:p]
  for (deg in 1:2) {
    fit <- lm(if (deg == 1) y ~ . else y ~ .^2, data = d)
    cf <- coef(fit)
    stopifnot(!anyNA(cf))
    terms <- x
    if (deg == 2) {
      for (j in 1:(p - 1)) for (k in (j + 1):p) terms <- c(terms, paste0(x[j], ":", x[k]))
    }
    stopifnot(setequal(names(cf)[-1], terms))
    out <- c(sprintf("# R %s lm(%s) on %s; written by gen_lm.R", getRversion(),
                     if (deg == 1) "y ~ ." else "y ~ .^2", c$file),
             sprintf("degree %d", deg),
             sprintf("coef (Intercept) %.17g", cf[["(Intercept)"]]),
             sprintf("coef %s %.17g", terms, cf[terms]),
             sprintf("fitted %.17g", fitted(fit)))
    writeLines(out, sprintf("lm-%s-deg%d.txt", c$name, deg))
  }
}
