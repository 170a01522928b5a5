// Package mlisp extrapolates storage latency beyond the highest observed
// load with a 95% band: M-LISP (Basak et al., 2012), plus two baselines.
// See shared/MODELS.md section 3.
//
// Fit runs the paper's pipeline on a Dataset of counters:
//
//  1. Cleansing: drop counters that are too often missing, constant or
//     inactive; drop windows with missing or non-positive IOPS or latency, or
//     missing any kept counter. Working sample set: up to 1000 windows,
//     sampled uniformly (seeded) or weighted towards recent windows.
//  2. Workload signature: S = {IOPS, latency}; the counters that the CART of
//     latency (on all other counters) splits on join S; for each new member
//     the counters its own CART splits on join too, to a fixed point (the
//     transitive closure).
//  3. One CART per signature counter (and latency) on the other signature
//     counters, keeping each leaf's samples (Algorithm 2).
//  4. Extrapolation (Algorithm 1): 21 points from X, the highest observed
//     IOPS, to Horizon·X; each step Kriges every signature counter, then
//     latency, from the CART-leaf samples plus the synthetic samples made so
//     far (package kriging, non-negative variant).
//
// The CARTs use the paper's tolerance rule (stop when best SSE reduction /
// node SSE < 0.1) and, by default, also rpart's cp = 0.01 pruning: with
// thousands of counters, some irrelevant counter always achieves a 10%
// reduction in a small node by chance, and would enter the signature.
//
// Baselines: LinearOIO (BASIL-style, latency linear in outstanding IO with
// Little's law closing the loop) and Queueing (L0/(1 − IOPS/Mu)).
package mlisp
