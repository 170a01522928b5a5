package source

import (
	"fmt"
	"sort"
	"time"

	"github.com/prometheus/common/model"
	"github.com/storcast/storcast/exporter/config"
)

// Mapping gives, per kind, the metric of each signal. Counters are rated;
// latency names are the base of a _sum/_count pair (seconds).
type Mapping struct {
	ReadOps, WriteOps, ReadBytes, WriteBytes string
	ReadLatency, WriteLatency, OpLatency     string
	// LatencyScale converts the latency counter's unit to seconds.
	LatencyScale float64
}

// CephMapping is the Ceph mgr prometheus module's naming, which ceph-exporter
// (Quincy+) keeps; both put the daemon in the ceph_daemon label, so per-daemon
// joins go on ceph_daemon, never instance (mgr and ceph-exporter scrape
// different instances).
var CephMapping = Mapping{
	ReadOps: "ceph_osd_op_r", WriteOps: "ceph_osd_op_w",
	ReadBytes: "ceph_osd_op_r_out_bytes", WriteBytes: "ceph_osd_op_w_in_bytes",
	ReadLatency: "ceph_osd_op_r_latency", WriteLatency: "ceph_osd_op_w_latency", OpLatency: "ceph_osd_op_latency",
	LatencyScale: 1,
}

// SwiftMapping is statsd_exporter's default translation of Swift's
// proxy-server StatsD metrics (proxy-server.object.GET.timing -> a summary
// swift_proxy_server_object_get_timing in seconds; .xfer -> bytes counters).
var SwiftMapping = Mapping{
	ReadOps: "swift_proxy_server_object_get_timing_count", WriteOps: "swift_proxy_server_object_put_timing_count",
	ReadBytes: "swift_proxy_server_object_get_xfer_total", WriteBytes: "swift_proxy_server_object_put_xfer_total",
	ReadLatency: "swift_proxy_server_object_get_timing", WriteLatency: "swift_proxy_server_object_put_timing", OpLatency: "swift_proxy_server_object_timing",
	LatencyScale: 1,
}

// HostMetrics are the node_exporter series Inside-Out learns from, as
// per-second rates (counters) or gauges. Name -> PromQL template; %[1]s is
// the selector, %[2]s the rate window.
var HostMetrics = map[string]string{
	"cpu_busy":          `sum by (instance) (rate(node_cpu_seconds_total{mode!="idle",%[1]s}[%[2]s]))`,
	"cpu_iowait":        `sum by (instance) (rate(node_cpu_seconds_total{mode="iowait",%[1]s}[%[2]s]))`,
	"disk_reads":        `sum by (instance) (rate(node_disk_reads_completed_total{%[1]s}[%[2]s]))`,
	"disk_writes":       `sum by (instance) (rate(node_disk_writes_completed_total{%[1]s}[%[2]s]))`,
	"disk_read_bytes":   `sum by (instance) (rate(node_disk_read_bytes_total{%[1]s}[%[2]s]))`,
	"disk_write_bytes":  `sum by (instance) (rate(node_disk_written_bytes_total{%[1]s}[%[2]s]))`,
	"disk_io_time":      `sum by (instance) (rate(node_disk_io_time_seconds_total{%[1]s}[%[2]s]))`,
	"net_rx_bytes":      `sum by (instance) (rate(node_network_receive_bytes_total{device!="lo",%[1]s}[%[2]s]))`,
	"net_tx_bytes":      `sum by (instance) (rate(node_network_transmit_bytes_total{device!="lo",%[1]s}[%[2]s]))`,
	"net_rx_packets":    `sum by (instance) (rate(node_network_receive_packets_total{device!="lo",%[1]s}[%[2]s]))`,
	"net_tx_packets":    `sum by (instance) (rate(node_network_transmit_packets_total{device!="lo",%[1]s}[%[2]s]))`,
	"load1":             `max by (instance) (node_load1{%[1]s})`,
	"memory_used_bytes": `max by (instance) (node_memory_MemTotal_bytes{%[1]s} - node_memory_MemAvailable_bytes{%[1]s})`,
}

// HostMetricNames are the keys of HostMetrics, sorted.
func HostMetricNames() []string {
	out := make([]string, 0, len(HostMetrics))
	for k := range HostMetrics {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RateWindow is the window of rate() for a step: 2 steps, at least 1m.
func RateWindow(step time.Duration) string {
	w := 2 * step
	if w < time.Minute {
		w = time.Minute
	}
	return model.Duration(w).String()
}

// mappingFor returns the kind's mapping with the cluster's overrides.
func mappingFor(cl *config.Cluster) Mapping {
	m := CephMapping
	if cl.Kind == config.KindSwift {
		m = SwiftMapping
	}
	for k, v := range cl.Metrics {
		switch k {
		case config.Signals[0]:
			m.ReadOps = v
		case config.Signals[1]:
			m.WriteOps = v
		case config.Signals[2]:
			m.ReadBytes = v
		case config.Signals[3]:
			m.WriteBytes = v
		case config.Signals[4]:
			m.OpLatency = v
		}
	}
	return m
}

// ClusterQueries returns the PromQL of each signal of cl for a rate window.
func ClusterQueries(cl *config.Cluster, window string) map[string]string {
	if cl.Kind == config.KindGeneric {
		q := map[string]string{}
		for _, s := range config.Signals {
			q[s] = cl.Queries[s]
		}
		return q
	}
	m := mappingFor(cl)
	sel := config.Selector(cl.ParsedMatchers)
	rate := func(metric string) string { return fmt.Sprintf("sum(rate(%s{%s}[%s]))", metric, sel, window) }
	lat := func(base string) string {
		q := fmt.Sprintf("sum(rate(%s_sum{%s}[%s])) / sum(rate(%s_count{%s}[%s]))", base, sel, window, base, sel, window)
		if m.LatencyScale != 1 && m.LatencyScale != 0 {
			q = fmt.Sprintf("(%s) * %g", q, m.LatencyScale)
		}
		return q
	}
	q := map[string]string{
		ReadOps:      rate(m.ReadOps),
		WriteOps:     rate(m.WriteOps),
		ReadBytes:    rate(m.ReadBytes),
		WriteBytes:   rate(m.WriteBytes),
		ReadLatency:  lat(m.ReadLatency),
		WriteLatency: lat(m.WriteLatency),
	}
	switch cl.LatencySLO.Latency {
	case "read":
		q[Latency] = q[ReadLatency]
	case "write":
		q[Latency] = q[WriteLatency]
	default:
		q[Latency] = lat(m.OpLatency)
	}
	return q
}

// HostQueries returns, per role and host metric, the PromQL giving one series
// per host (by instance). Roles without matchers take the cluster's host
// matchers only. With no roles configured there is one role, "all".
func HostQueries(cl *config.Cluster, window string) map[string]map[string]string {
	roles := cl.Hosts.Roles
	if len(roles) == 0 {
		roles = []config.Role{{Name: "all"}}
	}
	out := map[string]map[string]string{}
	for _, r := range roles {
		sel := config.Selector(cl.Hosts.ParsedMatchers, r.ParsedMatchers)
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
