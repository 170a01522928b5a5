// Package insideout predicts a storage cluster's end-to-end IOPS and
// throughput from its hosts' low-level metrics only (Hsu et al., "Inside-Out:
// Reliable Performance Prediction for Distributed Storage Systems in the
// Cloud", 2016; the math in docs/models.md, "Inside-Out").
//
// # Features
//
// Host metrics are aligned on a common step and smoothed with a one-minute
// trailing moving average (MovingAverage). For one time step, a Window holds
// value[role][host][metric]. For every (role, metric) of a Schema, Aggregate
// computes across the role's hosts
//
//	mean, std (population), sum, p95 (95th percentile, linear interpolation)
//
// named "role/metric/stat". The vector's length depends only on the schema,
// so a model trained on N hosts predicts from M ≠ N hosts: sum carries the
// aggregate load, mean/std the balance, p95 the hot spots. Where a role had
// one host count N through the whole training, sum = N·mean in every
// window: the two columns are one after standardization and the Lasso,
// visiting mean first, gave it all the weight, so that after a scale-out
// to M hosts at the same load the prediction read N/M of it. The weight of
// such a mean is moved to its sum, w/N (the same predictions on the
// training windows; TestFixedHostCountModelScalesOut).
//
// # Two-level learner (the paper's Algorithm 1)
//
// Per target y (read/write IOPS, read/write bytes per second):
//
//  1. Standardize every feature over all samples: z = (x − mean)/std.
//  2. Ridge on all features: minimize ||y − Zw − b||² + λ||w||² (λ =
//     Options.RidgeAlpha, default 1).
//  3. For each a in the threshold grid (default 0, 0.25, …, 2.25), keep the
//     features with |w_j| ≥ a · median_k |w_k|.
//  4. On the kept features, the Lasso (1/(2n))||y − Zw − b||² + α||w||₁
//     along a geometric grid of α from α_max = max|Z_c'y_c|/n down to
//     ε·α_max (warm-started coordinate descent on the Gram matrix), scored
//     by k-fold cross-validation (k = 10) on MAPE = mean |ŷ − y|/|y|.
//  5. The (a, α) with the lowest CV MAPE wins; the Lasso is refitted on all
//     samples and its coefficients are mapped back to raw feature units.
//
// The reported score is the paper's accuracy = max(1 − MAPE, 0) of step 4.
// As in the paper, the standardization and the Ridge filter see all samples
// (only the Lasso is cross-validated), so the CV score is slightly
// optimistic about the filter. Samples whose measured value is zero are left
// out of MAPE, where it is undefined.
//
// Cross-validation is cheap because least squares only needs moments: the
// cross products Z_f'Z_f of each held-out fold are computed once and shared
// by every target, threshold and α; a training set's Gram is the total minus
// its fold's.
//
// # Self-learning
//
// Model.Score measures accuracy on recent windows and NeedsRetrain compares
// it with a threshold (the paper's Fig. 8: retrain when accuracy drops).
//
// A Model is plain data and round-trips through encoding/json.
package insideout
