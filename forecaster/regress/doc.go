// Package regress is the regression toolbox that Storcast's models stand on:
// standardization, Ridge (closed form), Lasso and Elastic Net by coordinate
// descent, CART and M5 regression trees, non-negative least squares,
// k-fold cross-validation and the error metrics.
//
// Conventions shared by every fit in this package:
//   - X is an n×p matrix (rows are samples), y has length n.
//   - Inputs are validated before any arithmetic: an empty, mismatched or
//     non-finite input returns an error wrapping ErrInput that names the
//     argument and what was wrong. No entry point panics on bad data.
//   - A fitted model implements Model; a fitting procedure implements Trainer,
//     so cross-validation and backtests take any of them.
package regress
