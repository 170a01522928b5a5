// Command scorer plans the load of the real-Ceph end-to-end suite and scores
// storcast's forecasts against what the cluster did (run by e2e/ceph/run.sh).
//
//	scorer plan  -calibration calibration.json          > plan.txt
//	scorer score -steps steps.jsonl -prometheus URL -storcast URL ... -out results/latest.md
//	scorer whatif-curve -storcast URL -cluster e2e -out whatif_lower.json
//	scorer catalog | catalog-rate | catalog-loo | catalog-check   (the rule-set catalog, catalog.sh)
//
// catalog builds the advisor's rule-set catalog YAML from catalog.sh's fio
// runs, catalog-rate the offered rates of its rate-limited workloads,
// catalog-loo its leave-one-out figures (results/catalog.md), and
// catalog-check the CI's held-back workload against the advisor trained on
// the committed catalog (results/catalog-check.md).
//
// plan reads fio's calibration JSON through storcast's own importer
// (conservation.ImportFio) and prints the load steps: a ramp at 50% reads
// rate-limited at 20, 40 and 60% of the capacity the conservation model
// predicts, a "mark" (where run.sh takes the M-LISP snapshot), 80% and
// saturated; then 70% and 30% reads, each rate-limited at 50% and saturated,
// all at 4 KiB; then two held-out saturated steps: 50% reads at 16 KiB (a
// size not calibrated) and 4 KiB reads with 64 KiB writes at once.
//
// score compares, step by step (what each figure is measured against):
//
//   - Conservation: storcast_max_iops at the end of each saturated step, and
//     storcast's capacity curve at the step's read ratio, against the IOPS fio
//     measured there. error = |predicted - measured| / measured.
//   - Headroom: storcast_headroom_ratio at the end of each rate-limited step
//     against 1 - offered/measured_max(mix), where offered is the IOPS fio
//     achieved in the step and measured_max the saturated IOPS of the same
//     mix. error = |predicted - measured| in ratio points.
//   - Inside-Out: storcast_predicted_iops against the cluster's measured IOPS
//     (rate of ceph_osd_op_r + ceph_osd_op_w over the same 1m window storcast
//     uses), at each step's end and as the MAPE over the whole load.
//   - M-LISP: the latency curve of a storcast whose lookback held only the
//     ramp's lower steps, read at the IOPS of each higher step, against the
//     OSD op latency Ceph measured there (increase of ceph_osd_op_latency_sum
//     over _count across the step); covered = lower <= measured <= upper.
//   - Held-out points: the paper's model (the calibration without its mixed
//     points, γ = 0) and the interference-aware frontier (with them), both
//     through conservation.Model.AtMix at the mix fio measured in each
//     saturated step, against the measured max, with each model's band over
//     the calibration's runs; and storcast_max_iops at the step's end
//     against the scorer's models at the mix storcast saw (plumbing; names
//     the model storcast serves). A saturated step that repeats a
//     calibration point (same sizes and read share: the 50/50 4 KiB step)
//     is also reported against that point: the measurement's
//     reproducibility (the frontier passes through the point, so its error
//     there is that of the repeat, scored and bounded with the other 4 KiB
//     mixes).
//   - A rate-limited step that reached less than 97% of its rate is
//     flagged in the step and latency tables: the cluster saturated below
//     the planned load, so its latency is a saturated one.
//   - Passive calibration: the capacity curve of a storcast without
//     calibration file (estimated from the load history only) against the
//     fio-calibrated curve and the measured saturated IOPS.
//
// The same scorer serves the Swift suite (e2e/swift/run.sh) with -system
// swift: the calibration is the YAML file loadgen writes, the load tool's
// results are loadgen's fio-shaped JSON, Swift's op rate and latency are the
// proxy's (swift_proxy_count/_sum, object GET/PUT, policy="all"), and the
// plan adds 16 KiB objects (not calibrated) and a mixed 4 KiB / 64 KiB step
// (see System and SwiftPlan). Mixes are keyed by read share and IO size.
// Both systems also get the measured latency knee (where the ramp's latency
// crosses the SLO) next to M-LISP's, and storcast_max_iops against the model
// at the step's mix and size (plumbing: mix and size detection).
//
// Every comparison has a bound (flags -max-*); score exits 1 when any is
// exceeded or when a series storcast must serve is missing, after writing the
// table. Bounds are set from repeated runs (docs/e2e.md, "Bounds, and why").
package main
