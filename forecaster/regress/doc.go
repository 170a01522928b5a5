// Package regress is the regression toolbox that Storcast's models stand on:
// standardization, Ridge (closed form), Lasso and Elastic Net by coordinate
// descent, CART and M5 regression trees, MARS, Cubist, linear regression
// with interactions, non-negative least squares, k-fold cross-validation,
// the error metrics, and the parameter search of Noorshams et al.,
// "Predictive Performance Modeling of Virtualized Storage Systems using
// Optimized Statistical Regression Techniques" (2013).
//
// Conventions shared by every fit in this package:
//   - X is an n×p matrix (rows are samples), y has length n.
//   - Inputs are validated before any arithmetic: an empty, mismatched or
//     non-finite input returns an error wrapping ErrInput that names the
//     argument and what was wrong. No entry point panics on bad data.
//   - A fitted model implements Model; a fitting procedure implements Trainer,
//     so cross-validation and backtests take any of them.
//
// # Learners and their parameter boxes
//
// A Learner fits rows X ([][]float64) and y with a parameter vector and
// describes its hyper-parameters as a box: per parameter a name, bounds,
// whether it is a whole number and whether it is searched on a log scale.
// Learners returns the five of the paper: LRM, MARS, CART, M5 and Cubist.
//
// LRM. Least squares on the features and, at degree 2, every pairwise
// product: ŷ = b + Σ_j w_j x_j + Σ_{j<k} w_jk x_j x_k. The expanded columns
// are standardized and solved by Ridge with α = 0; collinear designs fall
// back to α = 1e-8·n on the standardized columns (the minimum-norm limit),
// constant columns get weight 0.
//
// MARS (Friedman, "Multivariate Adaptive Regression Splines", 1991). The
// model is ŷ = β_0 + Σ_m β_m B_m(x), each basis function B_m a product of
// hinges max(0, x_v − t) or max(0, t − x_v) on distinct variables (at most
// Degree of them) or of a variable entering linearly. The forward pass
// starts from the intercept and repeatedly adds, for the parent term B,
// variable v and knot t that reduce the residual sum of squares most, the
// pair B·max(0, x_v − t), B·max(0, t − x_v). With q_1…q_m an orthonormal
// basis of the current terms (centred, so the intercept is implicit), r
// the residual and h = B·max(0, x_v − t), the reduction is
//
//	ΔRSS(t) = ΔRSS_lin + (h'r)² / (h'h − Σ_k (q_k'h)²)
//
// where ΔRSS_lin is the reduction from B·x_v, whose span with the pair's
// second hinge is the same. Scanning the knots from the largest x_v down,
// h'r, q_k'h and the centred h'h change by rank-one updates, so one
// (parent, variable) costs O(n·m). The search follows R's earth package
// (Milborrow) in every rule that decides which term is chosen: candidate
// knots are the observed x_v (the endspan cases at either end excluded,
// every minspan-th eligible case, where the parent is positive; Friedman's
// formulas when MinSpan/EndSpan are 0, endspan scaled by 1+AdjustEndSpan
// for interaction terms); a knot whose hinge is almost in the span
// (h̃'h̃/h'h ≤ 0.01 while the model has fewer than 15 slots, 1e-5 after) is
// skipped; a reduction above min(1.01·RSS, 10·previous reduction) is
// rejected; the linear term wins when no knot beats it; when every term
// already holds v the pair collapses to its upper hinge; the pass stops at
// nk slots, when no term improves the fit, when R² gains less than thresh,
// when R² ≥ 1 − thresh or GRSq < −10. Unlike earth there is no Fast MARS
// parent queue (earth's fast.k = 0). The backward pass removes, one at a
// time, the term whose deletion raises the RSS least (β_j²/[(B'B)⁻¹]_jj)
// and keeps the subset with the smallest
//
//	GCV = RSS / (n (1 − C/n)²),  C = M + d·(M − 1)/2
//
// for M terms (intercept included) and penalty d (2 for degree 1, 3 for
// degree 2, earth's defaults); the kept terms are refitted by least squares.
// The elimination factorizes the starting columns once (B = QR) and removes
// each deleted column from R by Givens rotations, O(m²) per step; the kept
// subset is refitted by QR from its columns.
// With the earth options listed in testdata/earth/gen_earth.R the selected
// hinges, coefficients and fitted values equal earth's.
//
// CART and M5: see Tree and M5Tree.
//
// Cubist (after Quinlan's Cubist, as described by Noorshams et al. and by
// Quinlan, "Combining Instance-Based and Model-Based Learning", 1993).
// Committee member 1 is an M5 model tree fitted to y, written as rules (one
// per leaf; the conditions are the tightest bounds on each variable along
// the leaf's path; the model is the leaf's linear model). Member t+1 is
// fitted to y' = 2y − f_t(x), f_t member t's prediction, so that it leans
// against member t's errors. The prediction is the mean of the members,
// f(x). With K > 0 neighbours it is corrected by the K nearest training
// cases n:
//
//	ŷ = Σ_n w_n (y_n + f(x) − f(n)) / Σ_n w_n,   w_n = 1/(d(x, n) + 0.5),
//
// d the Manhattan distance over features scaled by their training range.
// Departures from Quinlan's Cubist (whose source is not packaged here):
// rules are not simplified or pruned after extraction, so they do not
// overlap; the M5 trees are not smoothed; rules are not ordered or
// pruned by committee; the distance scaling by range and the use of all
// features in it are this package's choices; no extrapolation limits are
// put on the linear models; Cubist's automatic choice between the model,
// the instances and their combination is not made (the correction is used
// whenever Neighbors > 0).
//
// # Parameter search (Algorithm 1 of Noorshams et al.)
//
// Optimize minimizes an objective c(p) over a box ∏[a_i, b_i]. It
// evaluates the lower corner a, then in every round takes the Explore best
// points ν evaluated so far and, per parameter i, the nearest evaluated
// values a*_i < ν_i < b*_i (the box bounds if none), and evaluates the grid
// {a*_i + j·s_i : j = 0…Splits} ∪ {b*_i}, s_i = (b*_i − a*_i)/(Splits+1) over
// all parameters (log-spaced for Log parameters, rounded for Integer ones;
// points evaluated before are not evaluated again). It stops after
// MaxRounds rounds, when a round finds nothing new, or when the best value
// improves by less than Epsilon relative (from round 2 on). The box around
// each explored point shrinks every round; the paper argues that with
// unlimited rounds this reaches a local (for convex c, the global) minimum.
// Search also starts from the learner's defaults, so its winner never
// scores worse than them on the same folds. Search uses c(p) = mean RMSE over the folds of a seeded k-fold
// cross-validation (k = 10 by default, the same folds for every candidate),
// reports every candidate and the default parameters' score, and refits the
// winner; SearchAll does this for several learners and names the best.
//
// Search keeps, per fold, what does not depend on the candidate and gets
// the same models as Fit: MARS's forward pass adds the same terms whatever
// nk and thresh are (they only choose where it stops), so one pass per
// degree serves every candidate; Cubist's member t+1 depends only on y and
// members 1..t, so one chain per minleaf serves every committee count, and
// the nearest training cases of a query are found once; M5's trees at one
// minleaf differ only by where sdfraction stops them, so node splits and
// models are memoized; CART grows one unpruned tree per minsplit and prunes
// it per cp.
package regress
