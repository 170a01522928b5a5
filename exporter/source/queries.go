package source

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/storcast/storcast/exporter/config"
)

// Mapping gives, per kind, the metric of each signal, as config.MetricRef
// strings (`name` or `name{fixed="matchers"}`). Counters are rated; latency
// entries are the base of a _sum/_count pair in seconds.
type Mapping struct {
	ReadOps, WriteOps, ReadBytes, WriteBytes string
	ReadLatency, WriteLatency, OpLatency     string
}

// CephMapping is the Ceph mgr prometheus module's naming, which ceph-exporter
// (Quincy+) keeps; both put the daemon in the ceph_daemon label, so per-daemon
// joins go on ceph_daemon, never instance (mgr and ceph-exporter scrape
// different instances).
var CephMapping = Mapping{
	ReadOps: "ceph_osd_op_r", WriteOps: "ceph_osd_op_w",
	ReadBytes: "ceph_osd_op_r_out_bytes", WriteBytes: "ceph_osd_op_w_in_bytes",
	ReadLatency: "ceph_osd_op_r_latency", WriteLatency: "ceph_osd_op_w_latency", OpLatency: "ceph_osd_op_latency",
}

// SwiftMapping is statsd_exporter's translation of Swift's proxy-server
// StatsD metrics with the shipped mapping (deploy/swift): object GETs are
// reads, PUTs writes; policy="all" carries the totals (Swift emits every
// object metric per policy and once without, so only one may be summed).
// The load is what the cluster served: a 5xx (the cluster failed the
// request: under overload a proxy's 503 after its node timeout) or a 499
// (the client went away) is not, and counted it would lift the served
// IOPS of the very windows that saturate, and with them the history's
// bound on capacity. The latency is every answer a client waited for,
// errors included (a 503 after the node timeout is the overload the SLO is
// for), but a 499's, whose length is the client's patience.
var SwiftMapping = Mapping{
	ReadOps:      `swift_proxy_count{type="object",method="GET",policy="all",` + swiftServed + `}`,
	WriteOps:     `swift_proxy_count{type="object",method="PUT",policy="all",` + swiftServed + `}`,
	ReadBytes:    `swift_proxy_transfer{type="object",method="GET",policy="all",` + swiftServed + `}`,
	WriteBytes:   `swift_proxy_transfer{type="object",method="PUT",policy="all",` + swiftServed + `}`,
	ReadLatency:  `swift_proxy{type="object",method="GET",policy="all",` + swiftAnswered + `}`,
	WriteLatency: `swift_proxy{type="object",method="PUT",policy="all",` + swiftAnswered + `}`,
	OpLatency:    `swift_proxy{type="object",method=~"GET|PUT",policy="all",` + swiftAnswered + `}`,
}

// swiftServed and swiftAnswered are the statuses of SwiftMapping's load and
// of its latency.
const (
	swiftServed   = `status!~"5..|499"`
	swiftAnswered = `status!="499"`
)

// disks selects a host's physical disks in a node_disk_* selector (see
// physicalDisks), before the host selector.
var disks = physicalDisks.String() + ","

// HostMetrics are the node_exporter series Inside-Out learns from, as
// per-second rates (counters) or gauges. Name -> PromQL template; %[1]s is
// the selector, %[2]s the rate window. The disks are the physical ones,
// as for the sequential share.
var HostMetrics = map[string]string{
	"cpu_busy":          `sum by (instance) (rate(node_cpu_seconds_total{mode!="idle",%[1]s}[%[2]s]))`,
	"cpu_iowait":        `sum by (instance) (rate(node_cpu_seconds_total{mode="iowait",%[1]s}[%[2]s]))`,
	"disk_reads":        `sum by (instance) (rate(node_disk_reads_completed_total{` + disks + `%[1]s}[%[2]s]))`,
	"disk_writes":       `sum by (instance) (rate(node_disk_writes_completed_total{` + disks + `%[1]s}[%[2]s]))`,
	"disk_read_bytes":   `sum by (instance) (rate(node_disk_read_bytes_total{` + disks + `%[1]s}[%[2]s]))`,
	"disk_write_bytes":  `sum by (instance) (rate(node_disk_written_bytes_total{` + disks + `%[1]s}[%[2]s]))`,
	"disk_io_time":      `sum by (instance) (rate(node_disk_io_time_seconds_total{` + disks + `%[1]s}[%[2]s]))`,
	"net_rx_bytes":      `sum by (instance) (rate(node_network_receive_bytes_total{device!="lo",%[1]s}[%[2]s]))`,
	"net_tx_bytes":      `sum by (instance) (rate(node_network_transmit_bytes_total{device!="lo",%[1]s}[%[2]s]))`,
	"net_rx_packets":    `sum by (instance) (rate(node_network_receive_packets_total{device!="lo",%[1]s}[%[2]s]))`,
	"net_tx_packets":    `sum by (instance) (rate(node_network_transmit_packets_total{device!="lo",%[1]s}[%[2]s]))`,
	"load1":             `max by (instance) (node_load1{%[1]s})`,
	"memory_used_bytes": `max by (instance) (node_memory_MemTotal_bytes{%[1]s} - node_memory_MemAvailable_bytes{%[1]s})`,
}

// RateWindow is the window of rate() for a step: 2 steps, at least 1m.
func RateWindow(step time.Duration) string { return model.Duration(RateWindowOf(step)).String() }

// RateWindowOf is RateWindow as a duration.
func RateWindowOf(step time.Duration) time.Duration { return max(2*step, time.Minute) }

// Signal references of a cluster: what each signal is computed from.
type SignalRefs map[string]config.MetricRef

// RefsFor returns the metric of each signal of a ceph or swift cluster:
// the kind's mapping with the cluster's overrides. The latency signal (the
// SLO's) is the kind's read, write or op latency by the SLO's kind, unless
// the cluster overrides it (metrics.latency), which wins whatever the
// kind. Latency refs name the base of the _sum/_count pair.
func RefsFor(cl *config.Cluster) SignalRefs {
	m := CephMapping
	if cl.Kind == config.KindSwift {
		m = SwiftMapping
	}
	raw := map[string]string{
		ReadOps: m.ReadOps, WriteOps: m.WriteOps, ReadBytes: m.ReadBytes, WriteBytes: m.WriteBytes,
		ReadLatency: m.ReadLatency, WriteLatency: m.WriteLatency, Latency: m.OpLatency,
	}
	for k, v := range cl.Metrics { // validated by config
		raw[k] = v
	}
	if _, overridden := cl.Metrics[Latency]; !overridden {
		switch cl.LatencySLO.Latency {
		case "read":
			raw[Latency] = raw[ReadLatency]
		case "write":
			raw[Latency] = raw[WriteLatency]
		}
	}
	refs := SignalRefs{}
	for k, v := range raw {
		r, err := config.ParseMetricRef(v)
		if err != nil {
			panic(fmt.Sprintf("source: built-in mapping %s=%q: %v", k, v, err))
		}
		refs[k] = r
	}
	return refs
}

// IsLatency reports whether a signal is a latency (a _sum/_count ratio).
func IsLatency(signal string) bool {
	return signal == Latency || signal == ReadLatency || signal == WriteLatency
}

// physicalDisks leaves out device-mapper and md devices: an LVM volume (how
// ceph-volume lays out OSDs) or a RAID counts each request again above
// the disk it lands on, and never merges (the disk below does), so with
// them the sequential share would read about half.
var physicalDisks = config.Matcher{Name: "device", Op: "!~", Value: "dm-.*|md.*"}

// diskRequests is the rate of the cluster's hosts' reads and writes merged
// or completed by the block layer, over the physical disks of the hosts
// hosts.matchers and each role select (a host in two roles counted once:
// "or" keeps one series per label set).
func diskRequests(cl *config.Cluster, kind, window string) string {
	var sels []string
	if len(cl.Hosts.Roles) == 0 {
		sels = append(sels, config.Selector(cl.Hosts.Matchers, []config.Matcher{physicalDisks}))
	}
	for _, r := range cl.Hosts.Roles {
		sels = append(sels, config.Selector(cl.Hosts.Matchers, r.Matchers, []config.Matcher{physicalDisks}))
	}
	var sums []string
	for _, op := range []string{"reads", "writes"} {
		var rates []string
		for _, sel := range sels {
			rates = append(rates, fmt.Sprintf("rate(node_disk_%s_%s_total{%s}[%s])", op, kind, sel, window))
		}
		sums = append(sums, "sum("+strings.Join(rates, " or ")+")")
	}
	return strings.Join(sums, " + ")
}

// ClusterQueries returns the PromQL of each signal of cl for a rate window.
func ClusterQueries(cl *config.Cluster, window string) map[string]string {
	q := map[string]string{}
	if len(cl.Hosts.Roles) > 0 || len(cl.Hosts.Matchers) > 0 {
		q[DiskMerged] = diskRequests(cl, "merged", window)
		q[DiskCompleted] = diskRequests(cl, "completed", window)
	}
	if cl.Kind == config.KindGeneric {
		for _, s := range config.Signals {
			q[s] = cl.Queries[s]
		}
		return q
	}
	if cl.Kind == config.KindCeph {
		sel := config.Selector(cl.Matchers)
		// The join goes on ceph_daemon: with ceph-exporter the counters come
		// from per-host instances and the metadata from the mgr's, so
		// instance never matches.
		q[OSDHosts] = fmt.Sprintf("count(count by (hostname) ((ceph_osd_up{%s} == 1) * on (ceph_daemon) group_left (hostname) max by (ceph_daemon, hostname) (ceph_osd_metadata{%s})))", sel, sel)
	}
	for sig, ref := range RefsFor(cl) {
		if IsLatency(sig) {
			q[sig] = fmt.Sprintf("sum(rate(%s[%s])) / sum(rate(%s[%s]))",
				ref.Selector("_sum", cl.Matchers), window, ref.Selector("_count", cl.Matchers), window)
		} else {
			q[sig] = fmt.Sprintf("sum(rate(%s[%s]))", ref.Selector("", cl.Matchers), window)
		}
	}
	if cl.Kind == config.KindSwift {
		// statsd_exporter creates a method's series at its first request: a
		// cluster that has only read (or only written) since the exporter
		// started has no series for the other direction. Absent while the
		// other direction counts, it is 0; with both absent (no exporter,
		// a wrong matcher) the signals stay missing data.
		r, w := q[ReadOps], q[WriteOps]
		for _, d := range []struct{ sig, other string }{{ReadOps, w}, {ReadBytes, w}, {WriteOps, r}, {WriteBytes, r}} {
			q[d.sig] = fmt.Sprintf("(%s) or (0 * %s)", q[d.sig], d.other)
		}
	}
	return q
}

// Host statistics: what the host queries return per role, host metric and
// grid point, computed by the query engine across the role's hosts (the
// "stat" label of each series). StatMean, StatStd, StatSum and StatP95 are
// Inside-Out's features (insideout.Stats), over the host values smoothed
// by SmoothWindow; StatCount is the number of hosts reporting the metric;
// StatRawMean is the mean of the unsmoothed values (M-LISP's per-role
// column), fetched only when smoothing changes anything (a step shorter
// than SmoothWindow).
const (
	StatMean    = "mean"
	StatStd     = "std"
	StatSum     = "sum"
	StatP95     = "p95"
	StatCount   = "count"
	StatRawMean = "raw_mean"
)

// SmoothWindow is Inside-Out's trailing moving average over each host's
// metrics before they are aggregated across hosts (the paper's one minute;
// insideout.MovingAverage is the same average).
const SmoothWindow = time.Minute

// hostAggregations are the PromQL aggregations of the statistics, in the
// order the query lists them. stddev is the population standard deviation
// and quantile interpolates linearly at rank φ·(N−1), as
// insideout.Schema.Aggregate does.
var hostAggregations = []struct{ stat, agg string }{
	{StatMean, "avg("}, {StatStd, "stddev("}, {StatSum, "sum("}, {StatP95, "quantile(0.95, "}, {StatCount, "count("},
}

// hostStats lists the "stat" labels a host query's series carry.
func hostStats() []string {
	out := make([]string, 0, len(hostAggregations)+1)
	for _, a := range hostAggregations {
		out = append(out, a.stat)
	}
	return append(out, StatRawMean)
}

// hostStatNames is hostStats, made once: checkSeries asks it of every
// series of every host answer.
var hostStatNames = hostStats()

// isHostStat reports whether stat is one of hostStats.
func isHostStat(stat string) bool {
	return slices.Contains(hostStatNames, stat)
}

// HostInnerQueries returns, per role and host metric, the PromQL giving one
// series per host (by instance): what the host queries aggregate. Roles
// without matchers take the cluster's host matchers only. With no roles
// configured there is one role, "all".
func HostInnerQueries(cl *config.Cluster, window string) map[string]map[string]string {
	roles := cl.Hosts.Roles
	if len(roles) == 0 {
		roles = []config.Role{{Name: "all"}}
	}
	out := map[string]map[string]string{}
	for _, r := range roles {
		sel := config.Selector(cl.Hosts.Matchers, r.Matchers)
		qs := map[string]string{}
		for name, tmpl := range HostMetrics {
			s := sel
			if s == "" {
				// A selector needs one non-empty matcher; this one matches
				// every series that has an instance.
				s = `instance=~".+"`
			}
			qs[name] = fmt.Sprintf(tmpl, s, window)
		}
		out[r.Name] = qs
	}
	return out
}

// HostQueries returns, per role and host metric, the one PromQL query that
// gives the metric's statistics across the role's hosts at a step: one
// series per statistic (label "stat"), whatever the number of hosts, so
// that a fit reads O(metrics × steps) values instead of O(hosts × metrics
// × steps).
//
// With a step shorter than SmoothWindow each host's series is first
// smoothed by avg_over_time over a subquery at the step. Its range is
// (k−1)·step + step/2 for the k = ⌈SmoothWindow/step⌉ grid points of
// MovingAverage's window (t − SmoothWindow, t]: Prometheus 2 closes a
// range at its start and Prometheus 3 opens it, and half a step makes both
// select the same k points.
func HostQueries(cl *config.Cluster, step time.Duration) map[string]map[string]string {
	window := RateWindow(step)
	out := map[string]map[string]string{}
	for role, inner := range HostInnerQueries(cl, window) {
		qs := map[string]string{}
		for name, q := range inner {
			qs[name] = hostStatsQuery(q, step)
		}
		out[role] = qs
	}
	return out
}

// hostStatsQuery wraps one per-host query into the aggregations of
// hostAggregations, each labelled with its stat, joined by or.
func hostStatsQuery(inner string, step time.Duration) string {
	smoothed := inner
	k := int((SmoothWindow + step - 1) / step)
	if k > 1 {
		rng := time.Duration(k-1)*step + step/2
		smoothed = fmt.Sprintf("avg_over_time((%s)[%s:%s])", inner, model.Duration(rng), model.Duration(step))
	}
	var b strings.Builder
	part := func(stat, agg, expr string) {
		if b.Len() > 0 {
			b.WriteString(" or ")
		}
		fmt.Fprintf(&b, `label_replace(%s%s), "stat", %q, "", "")`, agg, expr, stat)
	}
	for _, a := range hostAggregations {
		part(a.stat, a.agg, smoothed)
	}
	if k > 1 {
		part(StatRawMean, "avg(", inner)
	}
	return b.String()
}
