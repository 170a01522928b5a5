#!/usr/bin/Rscript
# Golden CART results from R's rpart (Debian's r-cran-rpart) for the data
# sets written by gen_data.py. For each (data, minsplit, cp) it writes the
# number of leaves, the split variables and the fitted values at the training
# points to rpart-<data>-<minsplit>-<cp>.csv.
# xval = 0: cross-validation does not change the tree, it only costs time.
library(rpart)
cases <- list(
  list(data = "friedman1", minsplit = 20, cp = 0.01),
  list(data = "friedman1", minsplit = 10, cp = 0.001),
  list(data = "friedman1", minsplit = 40, cp = 0.05),
  list(data = "steps", minsplit = 20, cp = 0.01),
  list(data = "steps", minsplit = 6, cp = 0)
)
for (c in cases) {
  d <- read.csv(sprintf("data-%s.csv", c$data))
  fit <- rpart(y ~ ., data = d, method = "anova",
               control = rpart.control(minsplit = c$minsplit, cp = c$cp, xval = 0,
                                       maxcompete = 0, maxsurrogate = 0))
  leaves <- sum(fit$frame$var == "<leaf>")
  vars <- sort(unique(as.character(fit$frame$var[fit$frame$var != "<leaf>"])))
  out <- sprintf("rpart-%s-%d-%s.csv", c$data, c$minsplit, format(c$cp, scientific = FALSE))
  con <- file(out, "w")
  writeLines(sprintf("# rpart %s minsplit=%d cp=%s leaves=%d vars=%s",
                     as.character(packageVersion("rpart")), c$minsplit,
                     format(c$cp, scientific = FALSE), leaves, paste(vars, collapse = " ")), con)
  writeLines("fitted", con)
  writeLines(sprintf("%.17g", predict(fit, d)), con)
  close(con)
}
