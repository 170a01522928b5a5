#!/usr/bin/env Rscript
# Golden robust trend fits from R's MASS::rlm for forecaster/trend.
#
#   Rscript forecaster/trend/testdata/rlm/gen.R
#
# (R 4.2.2 and MASS 7.3-58.2 from Debian: r-base-core, r-cran-mass.)
# Writes rlm.txt next to this script: a line "n", n lines "t u" (Unix
# seconds, utilization), then one line per fit, "fit <harmonics> <coef...>"
# with the coefficients in FitUtilization's order: intercept, slope per day
# of (t - mean t), then cos and sin of each daily harmonic (phase of the
# Unix clock). rlm: Tukey's bisquare, c = 4.685, scale = median|r|/0.6745
# re-estimated each iteration (scale.est = "MAD"), least-squares start,
# iterated to acc = 1e-12.
#
# The series: two days at 5 minutes of a line with a daily cycle and small
# noise, and in the first half every fifth window dipped to 60% (an OSD
# restart, a scrape gap), all on one side; then the same line held exactly
# with one window in ten dipped (a read share that never moved).
suppressMessages(library(MASS))
set.seed(20261127)
t0 <- 1.7e9
t <- t0 + 300 * (0:575)
day <- 86400
line <- 0.5 + 0.2 * (t - t0) / day + 0.05 * sin(2 * pi * (t %% day) / day) + 0.02 * cos(4 * pi * (t %% day) / day)
u1 <- line + rnorm(length(t), sd = 0.005)
dip <- seq_along(t) <= length(t) / 2 & (seq_along(t) %% 5 == 0)
u1[dip] <- 0.6 * u1[dip]
u2 <- rep(0.7, length(t))
u2[seq_along(t) %% 10 == 4] <- 0.4
design <- function(t, h) {
  X <- cbind(1, (t - mean(t)) / day)
  w <- 2 * pi * (t %% day) / day
  for (k in seq_len(h)) X <- cbind(X, cos(k * w), sin(k * w))
  X
}
out <- file(file.path(dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE))), "rlm.txt"), "w")
f <- function(v) paste(sprintf("%.17g", v), collapse = " ")
for (u in list(u1, u2)) {
  writeLines(sprintf("%d", length(t)), out)
  for (i in seq_along(t)) writeLines(f(c(t[i], u[i])), out)
  fit <- rlm(design(t, 2), u, psi = psi.bisquare, c = 4.685, scale.est = "MAD", method = "M", acc = 1e-12, maxit = 200)
  writeLines(paste("fit 2", f(coef(fit))), out)
}
close(out)
