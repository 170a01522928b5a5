// Package conservation implements the conservation-of-processing-capability
// model of Ra and Lee ("Fighting with Unknowns: Estimating the Performance of
// Scalable Distributed Storage Systems with Minimal Measurement Data"):
// for a fixed cluster and IO size S the work per second is constant across
// read/write mixes,
//
//	C(S) = T_read + f_rw(S) T_write = T_read100(S),   f_rw(S) = T_read100(S) / T_write100(S)   (eqs. 3, 4)
//
// so two saturated measurements per IO size (100% reads, 100% writes) give
// the max IOPS at any mix.
//
// # Forms
//
//   - ReadWriteAtReadPercent is eq. 6 as published (R in percent):
//     k = T_read100 / (R + (100−R) f_rw), T_read = kR, T_write = k(100−R).
//   - TotalFromCapacityShares is eq. 7 as published, P_i being the share of
//     *capacity* given to size S_i: T_total = 100 Σ P_i k^{S_i} = Σ P_i M_i.
//   - TotalFromOpShares takes P_i as the share of *operations* (what Prometheus
//     rates give): T_total = 1 / Σ P_i/M_i. OpToCapacityShares and
//     CapacityToOpShares convert between the two; converted shares give the
//     same total in either form.
//   - Model.AtMix is the form used on live data: each op class i (direction,
//     size, rate) uses rate_i/max_i of the capacity, U = Σ rate_i/max_i,
//     max IOPS at the current mix = Σ rate_i / U, headroom = 1 − U. Eq. 6 is
//     this with two classes and eq. 7 (op shares) with many.
//
// The API takes read ratios in 0..1 (the Prometheus convention) and converts
// to the paper's percent internally.
//
// # Sizes between and beyond calibration points
//
// log C(S) and log T_write100(S) (hence log f_rw) are interpolated linearly
// in log S between calibrated sizes, i.e. piecewise power laws, which is how
// IOPS falls with size once bandwidth dominates. Outside the calibrated range
// the power law through the nearest two points is extended and the result
// carries Extrapolated = true; a one-point calibration is taken as constant
// across sizes (also flagged). Extrapolated figures should be shown as such.
//
// # Calibration input
//
// LoadCalibration reads a strict YAML file (see testdata/calibration.yml),
// ImportFio reads `fio --output-format=json`, and EstimateFromHistory fits the
// capacity line a·T_read + b·T_write = 1 (a = 1/T_read100, b = 1/T_write100)
// by least squares over windows that show saturation, per octave size band;
// it needs saturated windows at two or more distinct read ratios. Estimates
// from history are biased low on open-loop traffic (saturated-looking
// windows are near, not at, capacity); EstimateOptions.QueueingCorrection
// removes that bias for M/M/1-like queues but overestimates for closed-loop
// clients. The README has the error table. Prefer a benchmark.
//
// All result types are plain structs that encode to JSON. A Model is
// immutable and safe for concurrent use; AtMix allocates nothing.
package conservation
