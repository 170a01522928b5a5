// Package conservation implements the conservation-of-processing-capability
// model of Ra and Lee ("Fighting with Unknowns: Estimating the Performance
// of Scalable Distributed Storage Systems with Minimal Measurement Data",
// 2019), extended by what a real Ceph cluster showed: read/write interference,
// calibration noise, and a cost model across IO sizes.
//
// # The paper's law
//
// For a fixed cluster and IO size S the work per second is constant across
// read/write mixes,
//
//	C(S) = T_read + f_rw(S) T_write = T_read100(S),   f_rw(S) = T_read100(S) / T_write100(S)   (eqs. 3, 4)
//
// so two saturated measurements per IO size (100% reads, 100% writes) give
// the max IOPS at any mix.
//
//   - ReadWriteAtReadPercent is eq. 6 as published (R in percent):
//     k = T_read100 / (R + (100−R) f_rw), T_read = kR, T_write = k(100−R).
//   - TotalFromCapacityShares is eq. 7 as published, P_i being the share of
//     *capacity* given to size S_i: T_total = 100 Σ P_i k^{S_i} = Σ P_i M_i.
//   - TotalFromOpShares takes P_i as the share of *operations* (what Prometheus
//     rates give): T_total = 1 / Σ P_i/M_i. OpToCapacityShares and
//     CapacityToOpShares convert between the two; converted shares give the
//     same total in either form.
//
// The API takes read ratios in 0..1 (the Prometheus convention) and converts
// to the paper's percent internally.
//
// # The frontier with interference
//
// On the live form every op class i (direction, size, rate) uses the share
// x_i = rate_i / max_i of the capacity, max_i = T_read100(S_i) for reads and
// T_write100(S_i) for writes. The paper's law says the cluster saturates at
// U = Σ x_i = 1. Saturated mixes on a real cluster sat 9-14% inside that
// line, every repetition the same way; the form used here adds a pairwise
// interference term between reads and writes:
//
//	U = Σ_i x_i + 4 Σ_{i read, j write} γ_ij x_i x_j = L + Q,
//
// one size: U = a + b + 4γab with a = rate_read/T_read100, b =
// rate_write/T_write100. γ = 0 is the paper exactly; γ > 0 puts mixes inside
// the line (at a 50/50 capacity split, a = b = ½, the paper's saturated load
// reads U = 1 + γ). γ_ij is γ at the geometric mean of the two classes'
// sizes, so a read class at 4095 bytes and a write class at 4100 bytes (mean
// sizes from counters) interfere like 4 KiB.
//
// # Interference between sizes
//
// A read class and a write class at different sizes add, on top of γ_ij,
//
//	4 η w_ij x_i x_j,   w_ij = min(|ln S_i − ln S_j| / D, 1),
//
// η fitted by least squares on U = 1 at the calibration's mixed-size points
// (reads of one size with writes of another at once: MixedPoint with
// WriteIOSizeBytes; fio randrw with bs=4k,64k), given the capacities and γ
// at their sizes; D is their largest log size ratio, below which the term
// is linear in the log size distance (0 at equal sizes) and beyond which it
// is held. η = 0 (no mixed-size point, or an estimate the runs cannot tell
// from 0 that the frontier cannot take; one it can take is used as
// estimated, as γ is) is the model without it, bit for bit. Classes of one direction at
// different sizes get no pairwise term: the exporter observes one mean size
// per direction, so sizes mixed within a direction are not visible to it;
// a calibration point at the workload's own size split (fio bssplit, at its
// mean size) carries their interference instead.
//
// U is no longer linear in load. Scaling every rate by s keeps the mix and
// gives U(s) = sL + s²Q; the max at the mix is s·current with U(s) = 1,
//
//	s = 2 / (L + √(L² + 4Q)),
//
// the smaller root, written without cancellation (and evaluated as
// 1/s = L(1 + √(1 + 4Q/L²))/2 with Q/L² formed from the shares relative to
// L, so that nothing underflows). Result gives both U at the current load
// (Utilization) and LoadRatio = current/max = 1/s; HeadroomRatio =
// 1 − LoadRatio. With Q = 0 the code takes the paper's path, and results are
// bit-identical to the law without interference.
//
// γ ≥ MinGamma = −¼ is required: below it U(s) can peak under 1 at some
// mixes and the model would promise unbounded capacity. A mixed point must
// also lie where U still rises along its ray (a + b + 8γab > 0; for one
// point, a + b < 2), or the frontier would cross 1 before reaching it.
//
// # Fitting γ
//
// From a benchmark: a MixedPoint (size, read ratio ρ, saturated total IOPS
// m) gives a = ρm/T_read100, b = (1−ρ)m/T_write100 and U = 1, so
//
//	γ = (1 − a − b) / (4ab)        (GammaFromMixed)
//
// and several mixed points at one size are fitted by least squares on
// U_k − 1, linear in γ.
//
// With repeated runs, γ is tested against 0 once for the calibration: the
// runs' relative noise is pooled over every figure with two or more runs,
// σ² = Σ_j Σ_k (x_jk/x̄_j − 1)² / Σ_j (n_j − 1) with Σ_j (n_j − 1) degrees of
// freedom, each figure's standard error is σ·x/√n, γ's standard error at a
// size is the delta method over the figures it depends on, and the test is
// on the inverse-variance weighted mean of the sizes' γ (its standard error
// by the delta method over the figures, which counts the ones sizes share):
// beyond the two-sided 95% Student t quantile it is "kept", else "not
// significant". Either way every size uses its estimate: the test informs,
// the max-IOPS band (a prediction interval whose delta method runs through
// the mixed points) carries the uncertainty, and a fallback to γ = 0 when
// not significant predicted worse on real Ceph (docs/models.md). Only a
// not-significant estimate the frontier cannot take (below MinGamma, or
// turning back before its point) gives γ = 0 everywhere ("zero"). Pooling
// assumes the relative noise is common to the figures, and the test is
// liberal where the mixed points are much noisier than the pure ones
// (measured in the tests). γ between the sizes that have mixed points is
// interpolated linearly in log size and held constant beyond them (a trend
// in γ is not extrapolated); without mixed points γ = 0.
//
// From history (EstimateOptions.Interference): saturated windows lie on
// a·r + b·w + c·r·w = 1 with c = 4γab, linear in (a, b, c), fitted by least
// squares; γ = c/(4ab), its standard error by the delta method from the
// least-squares covariance σ²(XᵀX)⁻¹. Three unknowns need saturated windows
// at three or more read ratios at least MinReadRatioSpread/2 apart
// (counted: with two mixes, rate noise along each keeps the design's rank in
// arithmetic while γ trades against the capacities at will). With the capacities known from a
// benchmark, InterferenceFromHistory fits γ alone (linear in γ) from
// saturated windows at two or more mixes.
//
// # Calibration as a distribution
//
// Re-running the same fio calibration at once moved its figures by
// +43/+22/−18/−27% on a busy 2-core machine. Every figure may carry its
// repeated runs (Point.ReadRuns, Point.WriteRuns, MixedPoint.Runs; several
// fio groups of one job, several files via MergeCalibrations, or a YAML
// list); the figure is their mean. The band says where one more saturated
// run at the mix would land, 95%:
//
//	max·exp(∓h),  h = t₀.₉₇₅(ν)·σ·√(1 + Σ_j e_j²/n_j),
//
// with σ the relative run-to-run noise pooled over every figure that has
// runs (ν = Σ(n_j − 1) degrees of freedom, the pool γ's test uses), n_j the
// runs of figure j and e_j = ∂log max/∂log x_j the max's elasticity to it
// at the mix (the delta method; taken by raising each figure by 1e-4 in a
// model that keeps the central one's decisions: form across sizes, γ and η
// kept or held at 0). The 1 is the new run's own noise: what an operator
// compares the band with, a saturated load measured later, is one more run
// of the cluster (on the real test cluster the saturated steps fell outside
// the runs' own min..max, the band before, at 2 to 5 of 5 mixes). At a pure
// mix the max is one figure (e = 1); between figures the e_j share the
// max (Σ e_j = 1, so the band is narrower than any one figure's), except
// where γ moves it against them. A per-figure t would be useless (12.7 for
// 2 runs); pooled over 7 figures it is 2.36 with 2 runs each, 2.14 with 3.
// The band also covers the runs' own ends: whole models of every figure at
// its runs' min (γ refitted there), resp. max; MaxTotalIOPSLower/Upper are
// the hull of those, the central max and the prediction interval, so at a
// calibrated mix the band covers the mixed runs' range. Without two runs
// of any figure the band is the runs' ends alone (the central figures
// without runs).
// GammaFit.Lower/Upper bound
// γ itself: γ falls as the mixed IOPS rise and rises with the pure ones, so
// they are γ(mixed max, pure mins) and γ(mixed min, pure maxes).
//
// # Sizes between and beyond calibration points
//
// LogLog: log C(S) and log T_write100(S) are linear in log S between
// calibrated sizes, i.e. piecewise power laws; outside the range the nearest
// segment is extended.
//
// Cost: each direction's time per op is a fixed part plus a per-byte part,
// 1/T100(S) = c0 + c1·S (c0, c1 ≥ 0), fitted by non-negative least squares
// on the relative residual (c0 + c1 S_k)T_k − 1. Two sizes determine it
// exactly when IOPS fall no faster than 1/S. Between two sizes it always
// lies on or above log-log: log T = −log(c0 + c1 eˣ) is concave in x = log S,
// so it lies above its chord, the log-log line. On the real Ceph lab's
// 4 KiB/64 KiB calibration it raises 16 KiB by 17% (reads) and 4% (writes)
// over log-log, which had been 10-16% under the measured 16 KiB capacity.
//
// Auto: with three or more sizes, each size is predicted from the others by
// both forms (leave-one-size-out), and the form with the lower RMS log error
// is used. With two sizes nothing is left to judge by: Cost when it passes
// through both in both directions, else LogLog. The default (no
// Interpolation) is Auto with two sizes and LogLog with three or more, so
// that every calibrated figure is kept. Why Cost with two: the sources give
// mean sizes, and only a time per op linear in size makes the capacity at a
// mean size that of every mix of sizes with that mean; on 24 real Ceph runs
// calibrated at 4 and 64 KiB it put the held-out 16 KiB within 8% in 17,
// log-log in 14. Model.SizeForm reports the errors and the choice; At and
// Result name the form used.
//
// Outside the calibrated range results carry Extrapolated = true; a
// one-point calibration is taken as constant across sizes (also flagged).
//
// # History without saturation
//
// LowerBoundFromHistory: a cluster that served r reads and w writes per
// second can serve any load needing no more of either, so at read ratio ρ
// the max is at least max_k min(r_k/ρ, w_k/(1−ρ)) over the windows of the
// size band. It assumes nothing about the frontier's shape, but takes the
// IOPS a window served at its size as servable across its octave (the
// windows whose size rounds, in log2, to the same power of two as the asked
// one: within ×√2 of that power, so up to ×2 from the asked size): a window
// of smaller IOs than asked can claim more than a bandwidth-bound cluster
// serves at the asked size.
//
// # Calibration input
//
// LoadCalibration reads a strict YAML file (see testdata/calibration.yml
// and testdata/calibration-runs.yml), ImportFio reads
// `fio --output-format=json` (pure jobs give points, randrw jobs mixed
// points, randrw jobs with bs=R,W mixed-size points, bssplit jobs figures
// at the split's mean size, repeated groups runs), and EstimateFromHistory fits the capacity
// line a·T_read + b·T_write = 1 (a = 1/T_read100, b = 1/T_write100) by least
// squares over windows that show saturation, per octave size band; it needs
// saturated windows at two or more distinct read ratios (three at least
// MinReadRatioSpread/2 apart with Interference). Estimates from history are biased low on open-loop traffic
// (saturated-looking windows are near, not at, capacity);
// EstimateOptions.QueueingCorrection removes that bias for M/M/1-like
// queues but overestimates for closed-loop clients. Prefer a benchmark.
//
// All result types are plain structs that encode to JSON. A Model is
// immutable and safe for concurrent use; AtMix allocates nothing (up to 16
// op classes).
package conservation
