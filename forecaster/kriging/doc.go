// Package kriging implements the Kriging predictor of M-LISP (Basak et al.,
// "Model Building for Dynamic Multi-tenant Provider Environments", 2012,
// section 3.3.2): ordinary Kriging for interpolation, the paper's
// non-negative unconstrained variant for extrapolation, and an optional
// linear drift (regression Kriging).
//
// Given samples (x_i, f_i), x_i ∈ ℝᵖ:
//
//   - Experimental variogram: g_ij = ½ (f_i − f_j)² against the Euclidean
//     distance d_ij = ‖x_i − x_j‖ over all pairs i < j. Distances are taken
//     on the coordinates as given, so callers scale columns to comparable
//     units first (M-LISP divides each by its standard deviation).
//   - Model variogram: the full cubic γ(d) = c0 + c1 t + c2 t² + c3 t³,
//     t = d / max d, fitted by least squares to the experimental pairs. The
//     constant c0 ≥ 0 is the nugget; γ(0) = 0 exactly, so Kriging still
//     reproduces its training points. If the least-squares cubic has c0 < 0
//     or is not non-decreasing on [0, max d] it is refitted with all
//     coefficients ≥ 0. Beyond max d (no pair constrains it) γ is held at
//     γ(max d), a sill. See Variogram and FitVariogram.
//   - Weights for a query x: with Γ_ij = γ(d_ij) and h_i = γ(‖x_i − x‖),
//     Ordinary solves [Γ 1; 1ᵀ 0][w; μ] = [h; 1] (Σw = 1) and reports the
//     ordinary Kriging variance w'h + μ; NonNegative solves
//     min ‖Γw − h‖ s.t. w ≥ 0 by Lawson–Hanson NNLS with Σw = 1 dropped, and
//     reports w'h (paper eq. 3); Convex keeps w ≥ 0 and Σw = 1 (the
//     prediction is a convex combination of the samples) and reports w'h.
//   - Prediction Σ w_i f_i; 95% band prediction ± 2√variance.
//   - LinearDrift: f = β₀ + βᵀx + r with β by least squares (optionally on
//     chosen columns and rows); r is Kriged as above, the prediction is
//     β₀ + βᵀx + Σ w_i r_i and the variance adds the least-squares prediction
//     variance of the trend, s²(1/n + zᵀ(ZᵀZ)⁻¹z). The drift columns enter
//     in order, each only if the columns already in explain at most 90% of
//     its variance (R² ≤ 0.9, a variance inflation factor of 10) and a
//     residual degree of freedom is left; the others get no slope, so a
//     query off a near-exact linear relation between columns is not
//     carried along it.
//
// Inputs are validated (non-finite, empty, mismatched, constant f, fewer
// than two distinct points) and errors wrap regress.ErrInput and name the
// argument. Exact duplicate rows are merged (their f averaged).
package kriging
