// Package source fetches a cluster's signals from a metrics backend and
// returns them as a Frame: every series aligned on one time grid
// (start, start+step, ...), NaN where no value exists.
//
// Prometheus is the one Source: it sends its PromQL through a Querier (the
// range-query part of client_golang's v1.API). In production the Querier is
// the HTTP API of any Prometheus-compatible backend (Prometheus, Thanos,
// Mimir, VictoriaMetrics); under `storcast --demo` it is the in-process
// Prometheus of exporter/demo (Prometheus's TSDB head and PromQL engine
// scraping a storagesim cluster). The queries, retries, timeouts and
// alignment are the same code for both.
//
// # Queries
//
// Aggregation happens in PromQL, so one cluster-level signal costs one range
// query returning one series: e.g. for Ceph read ops
//
//	sum(rate(ceph_osd_op_r{cluster="a"}[2m]))
//
// and for host metrics one query per role and metric whose answer is the
// metric's statistics across the role's hosts, five series whatever the
// number of hosts (HostQueries): with I the per-host expression, e.g.
// sum by (instance) (rate(node_disk_reads_completed_total{...}[2m])),
//
//	label_replace(avg(I), "stat", "mean", "", "") or label_replace(stddev(I), ...)
//	  or sum(I) ... or quantile(0.95, I) ... or count(I) ...
//
// which are Inside-Out's features (mean, population standard deviation,
// sum, 95th percentile interpolated at rank 0.95·(N−1), as
// insideout.Schema.Aggregate computes them) and the host count. Below a
// one-minute step I is first smoothed per host by avg_over_time over a
// subquery (Inside-Out's one-minute moving average), and the unsmoothed
// mean comes as a sixth series. No model reads a per-host series, so a fit
// reads O(signals × steps) values, not O(hosts × steps).
// rate() absorbs counter resets. Latency is rate(sum)/rate(count) of the
// latency counters, summed over daemons before dividing. The rate window is
// max(2×step, 4×scrape interval guess = 1m) so that a single missed scrape
// makes no gap.
//
// Label matchers come from the configuration, parsed and re-rendered with
// strconv.Quote (config.Matcher.String); nothing from an HTTP request ever
// reaches a query.
//
// # Faults
//
// Each query has a timeout; failures that may pass (network errors, 5xx,
// timeouts) are retried with exponential backoff; 4xx (bad_data) are not.
// A query returning more than MaxSeriesPerQuery series fails instead of
// loading them. NaN and ±Inf samples (0/0 latency in an idle window) become
// gaps; so do missing steps and series that went stale.
package source
