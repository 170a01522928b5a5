// Package features turns a source.Frame into the inputs of the models in
// forecaster/:
//
//   - Current: the observed mix now (read and write IOPS, read ratio by
//     operations, op-weighted mean IO size = bytes/s ÷ ops/s, latency), from
//     the last finite grid point within a few steps; older is stale.
//   - OpClasses: the two op classes of conservation.Model.AtMix, reads at the
//     mean read size and writes at the mean write size.
//   - CapacityWindows: conservation.Window per grid point, for
//     EstimateFromHistory when no benchmark calibration is configured.
//   - LatencyColumns: the counter table M-LISP learns from (total IOPS,
//     latency, the cluster signals and, per role, the mean across hosts of
//     each host metric); NaN gaps are kept, M-LISP's cleansing drops them.
//   - HostSchema and HostFeatures: Inside-Out's feature rows (per role and
//     host metric the mean, std, sum and p95 across the role's hosts, which
//     the query engine computes: source.HostQueries) with the measured
//     targets of the same points; HostSchema leaves out a metric that some
//     host of its role lacks, seen from the host counts.
//   - Demand: (time, total IOPS) for the demand trend.
//
// Grid points where a needed value is missing (NaN) are dropped, never
// filled: a gap in the source is a gap in the data.
package features
