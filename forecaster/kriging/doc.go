// Package kriging implements the Kriging predictor of M-LISP (Basak et al.,
// "Model Building for Dynamic Multi-tenant Provider Environments", 2012,
// section 3.3.2): ordinary Kriging for interpolation and the paper's
// non-negative, unconstrained variant for extrapolation.
//
// Given samples (x_i, f_i), x_i ∈ ℝᵖ:
//
//   - Experimental variogram: g_ij = ½ (f_i − f_j)² against the Euclidean
//     distance d_ij = ‖x_i − x_j‖ over all pairs i < j. Distances are taken
//     on the coordinates as given, so callers scale columns to comparable
//     units first (M-LISP divides each by its standard deviation).
//   - Model variogram: the cubic γ(d) = c1 t + c2 t² + c3 t³, t = d/max d,
//     fitted by least squares to the experimental pairs. It passes through
//     the origin (no nugget), which makes ordinary Kriging an exact
//     interpolator. If the least-squares cubic is not non-decreasing on
//     [0, 2·max d] it is refitted with c1, c2, c3 ≥ 0; beyond 2·max d the
//     cubic continues along its tangent. See Variogram and FitVariogram.
//   - Weights for a query x: with Γ_ij = γ(d_ij) and h_i = γ(‖x_i − x‖),
//     Ordinary solves [Γ 1; 1ᵀ 0][w; μ] = [h; 1] (Σw = 1) and reports the
//     ordinary Kriging variance w'h + μ; NonNegative solves
//     min ‖Γw − h‖ s.t. w ≥ 0 by Lawson–Hanson NNLS with Σw = 1 dropped, and
//     reports w'h (paper eq. 3).
//   - Prediction Σ w_i f_i; 95% band prediction ± 2√variance.
//
// Inputs are validated (non-finite, empty, mismatched, constant f, fewer
// than two distinct points) and errors wrap regress.ErrInput and name the
// argument. Exact duplicate rows are merged (their f averaged).
package kriging
