# Generates the MARS goldens for forecaster/regress (earth_golden_test.go).
# Run from this directory:  Rscript gen_earth.R
# Needs Debian's r-cran-earth (earth 5.3.x). Writes data-mars.csv and one
# earth-<case>.txt per case.
#
# The earth options are chosen so that the Go implementation and earth run
# the same algorithm:
#   fast.k = 0            every parent term is searched (no Fast MARS queue)
#   Force.xtx.prune=TRUE  backward elimination by beta^2 / diag(inv(B'B))
#                         (earth's EvalSubsetsUsingXtx; leaps is not used)
#   pmethod="backward", newvar.penalty=0, no weights, Auto.linpreds=TRUE
# and the remaining options (degree, penalty, nk, thresh, minspan, endspan,
# Adjust.endspan) are written in each output file and read by the test.
suppressMessages(library(earth))
set.seed(20261123)
n <- 200
x1 <- runif(n); x2 <- runif(n); x3 <- runif(n, -2, 3); x4 <- runif(n); x5 <- runif(n, 0, 10)
y <- 10 * sin(pi * x1 * x2) + 20 * (x3 / 5 - 0.1)^2 + 10 * x4 + 0.5 * x5 + rnorm(n)
d <- data.frame(x1, x2, x3, x4, x5, y)
writeLines(c(paste(names(d), collapse = ","),
             apply(d, 1, function(r) paste(sprintf("%.17g", r), collapse = ","))), "data-mars.csv")
d <- read.csv("data-mars.csv")  # fit on exactly the committed decimal values
x <- as.matrix(d[, 1:5]); y <- d$y

run <- function(name, degree, penalty, nk, thresh, minspan, endspan, adjust) {
  fit <- earth(x, y, degree = degree, penalty = penalty, nk = nk, thresh = thresh,
               minspan = minspan, endspan = endspan, Adjust.endspan = adjust,
               fast.k = 0, Force.xtx.prune = TRUE, pmethod = "backward",
               newvar.penalty = 0)
  sel <- fit$selected.terms
  out <- c(sprintf("options degree=%d penalty=%g nk=%d thresh=%g minspan=%d endspan=%d adjustendspan=%g",
                   degree, penalty, nk, thresh, minspan, endspan, adjust),
           sprintf("rss %.17g", fit$rss), sprintf("gcv %.17g", fit$gcv))
  for (k in seq_along(sel)) {
    t <- sel[k]
    f <- c()
    for (j in which(fit$dirs[t, ] != 0))
      f <- c(f, sprintf("%d:%d:%.17g", j - 1, fit$dirs[t, j], fit$cuts[t, j]))
    out <- c(out, sprintf("term %.17g %s", fit$coefficients[k], if (length(f)) paste(f, collapse = ";") else "-"))
  }
  out <- c(out, paste("fitted", paste(sprintf("%.17g", fit$fitted.values), collapse = " ")))
  writeLines(out, paste0("earth-", name, ".txt"))
}
run("deg1-span1", 1, 2, 21, 0.001, 1, 1, 0)
run("deg1-auto", 1, 2, 21, 0.001, 0, 0, 2)
run("deg1-thresh0", 1, 2, 15, 0, 0, 0, 2)
run("deg2-auto", 2, 3, 21, 0.001, 0, 0, 2)
run("deg2-span1", 2, 3, 25, 0.001, 1, 1, 0)
