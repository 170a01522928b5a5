// Package mlisp extrapolates storage latency beyond the highest observed
// load with a 95% band: M-LISP (Basak et al., "Model Building for Dynamic
// Multi-tenant Provider Environments", 2012), plus two baselines. See
// shared/MODELS.md section 3.
//
// Fit runs the paper's pipeline on a Dataset of counters:
//
//  1. Cleansing: drop counters missing in more than 20% of the windows,
//     constant, or inactive (non-zero in under 1%); drop windows with missing
//     or non-positive IOPS or latency, and windows missing any kept counter.
//     Working sample set: up to 1000 windows, drawn uniformly (seeded) or
//     weighted towards recent ones (RecencyHalfLife).
//  2. Workload signature: S = {IOPS, latency}; the counters the CART of
//     latency on all other counters splits on join S; for each new member,
//     the counters its own CART (on all other counters, latency included)
//     splits on join too, to a fixed point: the transitive closure.
//  3. Algorithm 2: one CART per signature counter on IOPS and the other
//     counters, and one for latency on IOPS and the counters, each leaf
//     keeping its samples.
//  4. Algorithm 1: 21 points from X, the highest observed IOPS, to
//     Horizon·X. At each step every signature counter is Kriged at (new IOPS,
//     the previous point's other counters), then latency at (new IOPS, the
//     new counters), each from the samples of the CART leaf the query falls
//     in plus the synthetic samples made so far. Kriging distances are
//     Euclidean on columns divided by their standard deviation.
//
// Outputs: Curve (observed bins plus the extrapolated points with lower,
// mean and upper band), Curve.SLOCrossing per bound (Storcast reports the
// upper band's crossing as the knee against an SLO) and Curve.Knee, the
// geometric knee by the Kneedle rule. The Model is JSON-serializable; the
// CARTs are rebuilt from the persisted working set on decoding.
//
// # Where this differs from the paper, and why
//
//   - CART: besides the tolerance rule (stop when best SSE reduction / node
//     SSE < 0.1), the trees are pruned at rpart's cp = 0.01. With thousands
//     of counters, some irrelevant counter always achieves a 10% reduction
//     in a small node by chance and would enter the signature.
//   - Counters are Kriged from IOPS and the other counters, not latency
//     (the paper's Algorithm 1 test vector); the closure CARTs may use
//     latency, as the paper says.
//   - Kriging: the paper's non-negative Kriging without Σw = 1 ("paper")
//     scales the weights up whenever the query lies outside the leaf's
//     samples, so the extrapolated value grows with the level of the data
//     rather than its slope, and the synthetic samples compound it. On our
//     simulated cluster it over-predicts latency 4–10× at 1.25–2× the
//     training load (README table). The default ("regression") fits a linear
//     trend in the Kriging inputs (IOPS and the signature counters) to the
//     leaf's observed samples (not the synthetic ones, which would steer the
//     trend they came from) and Kriges the residuals of the leaf and
//     synthetic samples with non-negative weights that sum to one
//     (kriging.Convex): without Σw = 1 the residuals are amplified through
//     the synthetic samples just like the values. The band adds the trend's
//     prediction variance. The model variogram is the paper's cubic, held at
//     its value beyond the largest training distance (package kriging).
//   - A Kriging leaf is capped at its 100 samples nearest to the query.
//
// Baselines: LinearOIO (BASIL-style, latency linear in outstanding IO,
// with Little's law closing the loop) and Queueing (L0/(1 − IOPS/Mu)).
// The Forecaster, BASILForecaster and QueueingForecaster types adapt all
// three to package backtest.
package mlisp
