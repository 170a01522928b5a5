// Package demo is the Source of `storcast --demo`: an in-process storagesim
// cluster read the way Prometheus would read it, so everything from the
// Source interface on (features, fitting, series, API) is the production
// code path.
//
// Fetch samples the simulated targets at every grid point (and one rate
// window before the first), computes per-series rates over the same window
// the PromQL of package source uses (source.RateWindow), with Prometheus's
// counter-reset rule (a decrease means the counter restarted from zero), and
// then sums per signal, or per host for host metrics, exactly as the
// sum(rate(...)) and sum by (instance) (rate(...)) queries do. A series
// missing at either end of the window (a simulated scrape gap) makes that
// grid point a gap.
package demo

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/storagesim"
)

// Source reads an in-process simulated cluster.
type Source struct {
	Cluster *storagesim.Cluster
}

// New loads a storagesim scenario (a shipped name or a path) whose history
// starts lookback before now.
func New(scenario string, seed int64, now time.Time, lookback time.Duration) (*Source, error) {
	sc, err := storagesim.LoadScenario(scenario)
	if err != nil {
		return nil, err
	}
	c, err := storagesim.New(sc, seed, now.Add(-lookback))
	if err != nil {
		return nil, err
	}
	return &Source{Cluster: c}, nil
}

// Calibration returns the scenario's benchmark points: what an operator
// would have measured with fio on this cluster before going live.
func (s *Source) Calibration() conservation.Calibration {
	cal := conservation.Calibration{Cluster: "demo"}
	for _, p := range s.Cluster.Scenario().Capacity.Points {
		cal.Points = append(cal.Points, conservation.Point{IOSizeBytes: float64(p.Size), ReadIOPS: p.ReadIOPS, WriteIOPS: p.WriteIOPS, Source: "storagesim scenario " + s.Cluster.Scenario().Name})
	}
	return cal
}

// hostMetric evaluates one of source.HostMetrics on a node target's series.
type hostMetric struct {
	name   string
	match  func(s storagesim.Series) bool
	rate   bool
	factor float64 // +1 or -1 (MemTotal − MemAvailable)
}

func eq(name string) func(storagesim.Series) bool {
	return func(s storagesim.Series) bool { return s.Name == name }
}

func netDev(name string) func(storagesim.Series) bool {
	return func(s storagesim.Series) bool { return s.Name == name && s.Labels["device"] != "lo" }
}

// hostMetrics mirrors source.HostMetrics.
var hostMetrics = []hostMetric{
	{name: "cpu_busy", rate: true, match: func(s storagesim.Series) bool {
		return s.Name == "node_cpu_seconds_total" && s.Labels["mode"] != "idle"
	}},
	{name: "cpu_iowait", rate: true, match: func(s storagesim.Series) bool {
		return s.Name == "node_cpu_seconds_total" && s.Labels["mode"] == "iowait"
	}},
	{name: "disk_reads", rate: true, match: eq("node_disk_reads_completed_total")},
	{name: "disk_writes", rate: true, match: eq("node_disk_writes_completed_total")},
	{name: "disk_read_bytes", rate: true, match: eq("node_disk_read_bytes_total")},
	{name: "disk_write_bytes", rate: true, match: eq("node_disk_written_bytes_total")},
	{name: "disk_io_time", rate: true, match: eq("node_disk_io_time_seconds_total")},
	{name: "net_rx_bytes", rate: true, match: netDev("node_network_receive_bytes_total")},
	{name: "net_tx_bytes", rate: true, match: netDev("node_network_transmit_bytes_total")},
	{name: "net_rx_packets", rate: true, match: netDev("node_network_receive_packets_total")},
	{name: "net_tx_packets", rate: true, match: netDev("node_network_transmit_packets_total")},
	{name: "load1", match: eq("node_load1")},
	{name: "memory_used_bytes", match: eq("node_memory_MemTotal_bytes")},
	{name: "memory_used_bytes", factor: -1, match: eq("node_memory_MemAvailable_bytes")},
}

// hostKey identifies a host series: the index of its hostMetrics entry and
// the series' identity.
type hostKey struct {
	metric int
	series string
}

func seriesKey(instance string, s storagesim.Series) string {
	var b strings.Builder
	b.WriteString(instance)
	b.WriteByte('|')
	b.WriteString(s.Name)
	for _, k := range []string{"ceph_daemon", "cpu", "mode", "device"} {
		if v, ok := s.Labels[k]; ok {
			b.WriteByte('|')
			b.WriteString(v)
		}
	}
	return b.String()
}

// Fetch implements source.Source.
func (s *Source) Fetch(ctx context.Context, cl *config.Cluster, r source.Range) (*source.Frame, error) {
	n := r.N()
	if n == 0 {
		return nil, fmt.Errorf("empty range")
	}
	md, err := model.ParseDuration(source.RateWindow(r.Step))
	win := time.Duration(md)
	if err != nil {
		win = 2 * r.Step
	}
	k := int(math.Round(float64(win) / float64(r.Step)))
	if k < 1 {
		k = 1
	}
	winSec := (time.Duration(k) * r.Step).Seconds()
	refs := source.RefsFor(cl)
	// parts are the counters to rate: signal -> (part -> ref, name suffix).
	type part struct {
		ref    config.MetricRef
		suffix string
	}
	parts := map[string]part{}
	for sig, ref := range refs {
		if source.IsLatency(sig) {
			parts[sig+"_sum"] = part{ref, "_sum"}
			parts[sig+"_count"] = part{ref, "_count"}
		} else {
			parts[sig] = part{ref, ""}
		}
	}

	// Sample everything once per grid point from k steps before start.
	type point struct {
		cluster map[string]map[string]float64  // part -> series key -> value
		hosts   map[string]map[hostKey]float64 // instance -> (host metric, series) -> value
		host    map[string]string              // instance -> role
		osdHost int                            // hosts with an OSD up
	}
	pts := make([]point, n+k)
	for i := range pts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t := r.Start.Add(time.Duration(i-k) * r.Step)
		smp := s.Cluster.Sample(t)
		p := point{cluster: map[string]map[string]float64{}, hosts: map[string]map[hostKey]float64{}, host: map[string]string{}}
		for _, tg := range smp.Targets {
			if !tg.Up {
				continue
			}
			if tg.Job == "node" {
				role := roleOf(cl, tg.Target)
				if role == "" {
					continue
				}
				p.host[tg.Instance] = role
				hv := map[hostKey]float64{}
				for _, se := range tg.Series {
					for hi, hm := range hostMetrics {
						if hm.match(se) {
							hv[hostKey{hi, seriesKey("", se)}] = se.Value
						}
					}
				}
				p.hosts[tg.Instance] = hv
				continue
			}
			up := map[string]bool{}       // ceph_daemon -> up
			hostOf := map[string]string{} // ceph_daemon -> hostname
			for _, se := range tg.Series {
				switch se.Name {
				case "ceph_osd_up":
					up[se.Labels["ceph_daemon"]] = se.Value == 1
				case "ceph_osd_metadata":
					hostOf[se.Labels["ceph_daemon"]] = se.Labels["hostname"]
				}
				for pn, pt := range parts {
					if se.Name != pt.ref.Name+pt.suffix || !matchAll(pt.ref.Matchers, se.Labels) {
						continue
					}
					if p.cluster[pn] == nil {
						p.cluster[pn] = map[string]float64{}
					}
					p.cluster[pn][seriesKey(tg.Instance, se)] = se.Value
				}
			}
			// The source's osd_hosts query: OSDs up joined with their
			// metadata on ceph_daemon, counted by hostname.
			hosts := map[string]bool{}
			for d, ok := range up {
				if h := hostOf[d]; ok && h != "" {
					hosts[h] = true
				}
			}
			p.osdHost += len(hosts)
		}
		pts[i] = p
	}

	rate := func(cur, prev float64) float64 {
		if cur < prev { // counter reset
			return cur / winSec
		}
		return (cur - prev) / winSec
	}
	// sumRate is sum(rate(part)) at grid index i; NaN when a series is
	// missing at either end of the window.
	sumRate := func(i int, pn string) float64 {
		cur, prev := pts[i+k].cluster[pn], pts[i].cluster[pn]
		if len(cur) == 0 {
			return math.NaN()
		}
		var sum float64
		for key, v := range cur {
			pv, ok := prev[key]
			if !ok {
				return math.NaN()
			}
			sum += rate(v, pv)
		}
		return sum
	}

	f := &source.Frame{Range: r, Signals: map[string][]float64{}, Hosts: map[string]map[string]map[string][]float64{}}
	for sig := range refs {
		v := make([]float64, n)
		for i := range v {
			if source.IsLatency(sig) {
				v[i] = sumRate(i, sig+"_sum") / sumRate(i, sig+"_count")
			} else {
				v[i] = sumRate(i, sig)
			}
		}
		f.Signals[sig] = v
	}

	if cl.Kind == config.KindCeph {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(pts[i+k].osdHost)
			if v[i] == 0 {
				v[i] = math.NaN()
			}
		}
		f.Signals[source.OSDHosts] = v
	}
	if len(cl.Hosts.Roles) > 0 || len(cl.Hosts.Matchers) > 0 {
		for i := 0; i < n; i++ {
			cur, prev := pts[i+k], pts[i]
			for inst, role := range cur.host {
				pv, ok := prev.hosts[inst]
				if !ok {
					continue
				}
				vals := map[string]float64{}
				for key, v := range cur.hosts[inst] {
					hm := hostMetrics[key.metric]
					name := hm.name
					if hm.rate {
						p, ok := pv[key]
						if !ok {
							continue
						}
						vals[name] += rate(v, p)
					} else {
						vals[name] += hm.factorOr1() * v
					}
				}
				for name, v := range vals {
					byRole := f.Hosts[role]
					if byRole == nil {
						byRole = map[string]map[string][]float64{}
						f.Hosts[role] = byRole
					}
					byHost := byRole[name]
					if byHost == nil {
						byHost = map[string][]float64{}
						byRole[name] = byHost
					}
					if byHost[inst] == nil {
						byHost[inst] = nanSlice(n)
					}
					byHost[inst][i] = v
				}
			}
		}
	}
	f.Stats.Queries = 1
	return f, nil
}

func (h hostMetric) factorOr1() float64 {
	if h.factor == 0 {
		return 1
	}
	return h.factor
}

func nanSlice(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// roleOf returns the role of a node target: the first role whose matchers
// (with the host matchers) match its job and instance labels; "" for none.
func roleOf(cl *config.Cluster, t storagesim.Target) string {
	labels := map[string]string{"job": t.Job, "instance": t.Instance}
	if !matchAll(cl.Hosts.Matchers, labels) {
		return ""
	}
	if len(cl.Hosts.Roles) == 0 {
		return "all"
	}
	for _, r := range cl.Hosts.Roles {
		if matchAll(r.Matchers, labels) {
			return r.Name
		}
	}
	return ""
}

// matchAll reports whether labels satisfy every matcher.
func matchAll(ms []config.Matcher, labels map[string]string) bool {
	for _, m := range ms {
		if !m.Matches(labels[m.Name]) {
			return false
		}
	}
	return true
}
