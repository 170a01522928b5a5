package engine

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/internal/promfake"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/internal/testtool"
)

// Real-Prometheus fit-cycle benchmark: its history, one day at a 5-minute
// scrape, is written once per size and day into the user's cache
// directory and kept across runs (one day's per size: a new day's
// replaces it, so that the data stays within Prometheus's retention).
const (
	promBenchLookback = 24 * time.Hour
	promBenchScrape   = 5 * time.Minute
)

// BenchmarkFitCyclePrometheus is BenchmarkFitCycle's "full" fit against a
// real Prometheus (Debian's) holding a cluster's history: per OSD the
// Ceph mgr's op and byte counters, the op latency's sum and count,
// ceph_osd_up and ceph_osd_metadata; per host 17 node_exporter series
// (three CPU modes, one disk, one NIC, load, memory). The history is a day
// at a 5-minute scrape (BenchmarkFitCycle's fake serves 7 days: the
// backfill of 10,000 OSDs for a week is some 200 million samples), written
// as a TSDB block by the Prometheus project's block writer (what promtool's
// backfill uses) into os.UserCacheDir()/storcast/bench-prometheus and
// reused by later runs. Prometheus runs in its own process: the CPU time
// and peak heap reported are storcast's alone; wall time includes the
// query engine's.
func BenchmarkFitCyclePrometheus(b *testing.B) {
	testtool.Need(b, "prometheus")
	for _, size := range []struct{ hosts, osds int }{{10, 100}, {100, 1000}, {1000, 10000}} {
		b.Run(fmt.Sprintf("hosts=%d/osds=%d", size.hosts, size.osds), func(b *testing.B) {
			end := time.Now().UTC().Truncate(24 * time.Hour)
			data := promBenchHistory(b, size.hosts, size.osds, end)
			base := testtool.StartPrometheus(b, "", "global: {scrape_interval: 5m}\n", data)
			for _, mode := range []string{"full", "incremental"} {
				b.Run(mode, func(b *testing.B) { benchFitCyclePrometheus(b, base, end, mode) })
			}
		})
	}
}

// benchFitCyclePrometheus runs fit cycles ending at end ("full": the whole
// lookback each time) or, "incremental", an hour apart from 3 h before end
// (each fetching the hour and the overlap; the clock passes end after the
// third, where the history has no more samples to read).
func benchFitCyclePrometheus(b *testing.B, base string, end time.Time, mode string) {
	c := config.Default()
	c.Prometheus.URL = base
	c.Prometheus.Timeout = 2 * time.Minute
	c.Fit.Lookback, c.Fit.Step = promBenchLookback-promBenchScrape, promBenchScrape
	c.StateDir = b.TempDir()
	c.Clusters = []config.Cluster{{Name: "big", Kind: config.KindCeph, Matchers: []config.Matcher{{Name: "cluster", Op: "=", Value: "big"}},
		Hosts:       config.Hosts{Matchers: []config.Matcher{{Name: "job", Op: "=", Value: "node"}}, Roles: []config.Role{{Name: "osd"}}},
		Calibration: config.Calibration{File: "testdata/calibration-bench.yml"},
		LatencySLO:  config.LatencySLO{Threshold: 5 * time.Millisecond, Latency: "op"}}}
	if err := c.Validate(); err != nil {
		b.Fatal(err)
	}
	m, err := source.NewMetrics(nil)
	if err != nil {
		b.Fatal(err)
	}
	src, err := source.NewPrometheus(c.Prometheus, m, nil)
	if err != nil {
		b.Fatal(err)
	}
	clk := &clock{t: end}
	e := New(Options{Source: src, Fitters: models.All(), Now: clk.Now}) // what storcast fits
	cl := &cluster{name: "big", cfg: c.Clusters[0], src: src}
	cl.snap.Store(&Snapshot{Cluster: "big", Models: e.emptyStatuses(&c.Clusters[0])})
	log := slog.New(slog.DiscardHandler)
	if mode == "incremental" {
		clk.t = end.Add(-3 * time.Hour)
		e.fit(context.Background(), &c, cl, log, "bench: first fit")
	}
	// Per-fit metrics summed and divided after the loop (as in
	// BenchmarkFitCycle); the GC outside the timer.
	var peak uint64
	var queries, respBytes, cpu float64
	for b.Loop() {
		b.StopTimer()
		if mode == "incremental" {
			clk.t = clk.t.Add(time.Hour)
			if clk.t.After(end) {
				b.Fatalf("incremental fit at %v: past the end of the backfilled data (%v); run with -benchtime 3x or less", clk.t, end)
			}
		} else {
			cl.history = nil
		}
		q0, bytes0 := testutil.ToFloat64(m.Queries.WithLabelValues("big")), testutil.ToFloat64(m.RespBytes.WithLabelValues("big"))
		runtime.GC()
		cpu0 := cpuSeconds()
		b.StartTimer()
		stop := peakHeap()
		e.fit(context.Background(), &c, cl, log, "bench")
		p := stop()
		cpu += cpuSeconds() - cpu0
		peak = max(peak, p)
		queries += testutil.ToFloat64(m.Queries.WithLabelValues("big")) - q0
		respBytes += testutil.ToFloat64(m.RespBytes.WithLabelValues("big")) - bytes0
	}
	n := float64(b.N) // the fits b.Loop ran
	b.ReportMetric(cpu/n, "cpu-s/op")
	b.ReportMetric(queries/n, "queries/op")
	b.ReportMetric(respBytes/n, "resp-bytes/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	s := cl.snap.Load()
	b.Logf("fit seconds per model: %v; hosts %d", s.FitSeconds, s.Hosts)
	for name, st := range s.Models {
		if !st.Fitted {
			b.Errorf("%s not fitted: %s", name, st.Error)
		}
	}
}

// promBenchHistory returns the TSDB directory holding the history of a
// cluster of hosts and osds ending at end, writing it when the cache does
// not hold it yet.
func promBenchHistory(b *testing.B, hosts, osds int, end time.Time) string {
	b.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(cache, "storcast", "bench-prometheus", fmt.Sprintf("h%d-o%d-%s-v1", hosts, osds, end.Format("20060102")))
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	t0 := time.Now()
	// Earlier days' histories of this size are not read again.
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), fmt.Sprintf("h%d-o%d-*", hosts, osds)))
	for _, d := range append(old, dir) {
		if err := os.RemoveAll(d); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	n, err := writePromBenchBlock(dir, hosts, osds, end.Add(-promBenchLookback), end)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("history of %d hosts and %d OSDs: %d samples written to %s in %s", hosts, osds, n, dir, time.Since(t0).Round(time.Millisecond))
	return dir
}

// writePromBenchBlock writes the history as one TSDB block: a diurnal
// client load (70% reads of 8 KiB, writes of 16 KiB, latency on a queueing
// curve) spread unevenly over the OSDs, the OSDs spread over the hosts,
// and host metrics that follow their OSDs' load with 5% noise.
func writePromBenchBlock(dir string, hosts, osds int, start, end time.Time) (int, error) {
	w, err := tsdb.NewBlockWriter(slog.New(slog.DiscardHandler), dir, int64(2*promBenchLookback/time.Millisecond))
	if err != nil {
		return 0, err
	}
	defer w.Close()
	type series struct {
		lset labels.Labels
		ref  uint64
		acc  float64
		next func(t time.Time, dt float64, noise float64) float64 // the value (gauge) or increment (counter)
		gaug bool
	}
	iops := promfake.Diurnal(60000, 0.4)
	lat := func(t time.Time) float64 { return 0.001 / (1 - 0.9*math.Min(iops(t)/150000, 1)) }
	osdShare := promfake.OSDShares(osds)
	hostShare := make([]float64, hosts)
	for i, s := range osdShare {
		hostShare[i%hosts] += s
	}
	var all []*series
	add := func(gauge bool, next func(t time.Time, dt, noise float64) float64, kv ...string) {
		all = append(all, &series{lset: labels.FromStrings(kv...), next: next, gaug: gauge})
	}
	for i := 0; i < osds; i++ {
		s := osdShare[i]
		d := fmt.Sprintf("osd.%d", i)
		inst := fmt.Sprintf("host-%d:9283", i%hosts)
		lbl := func(name string) []string {
			return []string{"__name__", name, "ceph_daemon", d, "cluster", "big", "instance", inst, "job", "ceph"}
		}
		rd := func(t time.Time) float64 { return 0.7 * iops(t) * s }
		wr := func(t time.Time) float64 { return 0.3 * iops(t) * s }
		add(false, func(t time.Time, dt, _ float64) float64 { return rd(t) * dt }, lbl("ceph_osd_op_r")...)
		add(false, func(t time.Time, dt, _ float64) float64 { return wr(t) * dt }, lbl("ceph_osd_op_w")...)
		add(false, func(t time.Time, dt, _ float64) float64 { return rd(t) * 8192 * dt }, lbl("ceph_osd_op_r_out_bytes")...)
		add(false, func(t time.Time, dt, _ float64) float64 { return wr(t) * 16384 * dt }, lbl("ceph_osd_op_w_in_bytes")...)
		add(false, func(t time.Time, dt, _ float64) float64 { return (rd(t) + wr(t)) * dt }, lbl("ceph_osd_op_latency_count")...)
		add(false, func(t time.Time, dt, _ float64) float64 { return (rd(t) + wr(t)) * lat(t) * dt }, lbl("ceph_osd_op_latency_sum")...)
		add(true, func(time.Time, float64, float64) float64 { return 1 }, lbl("ceph_osd_up")...)
		add(true, func(time.Time, float64, float64) float64 { return 1 },
			"__name__", "ceph_osd_metadata", "ceph_daemon", d, "cluster", "big", "hostname", fmt.Sprintf("host-%d", i%hosts), "instance", "mgr:9283", "job", "ceph")
	}
	for h := 0; h < hosts; h++ {
		s := hostShare[h]
		inst := fmt.Sprintf("host-%d:9100", h)
		lbl := func(name string, kv ...string) []string {
			return append([]string{"__name__", name, "instance", inst, "job", "node"}, kv...)
		}
		load := func(t time.Time) float64 { return iops(t) * s }
		ctr := func(per float64) func(t time.Time, dt, noise float64) float64 {
			return func(t time.Time, dt, noise float64) float64 { return per * load(t) * dt * (1 + 0.05*noise) }
		}
		add(false, ctr(0.7), lbl("node_disk_reads_completed_total", "device", "sda")...)
		add(false, ctr(0.9), lbl("node_disk_writes_completed_total", "device", "sda")...)
		add(false, ctr(0.1), lbl("node_disk_reads_merged_total", "device", "sda")...)
		add(false, ctr(0.3), lbl("node_disk_writes_merged_total", "device", "sda")...)
		add(false, ctr(0.7*8192), lbl("node_disk_read_bytes_total", "device", "sda")...)
		add(false, ctr(0.9*16384), lbl("node_disk_written_bytes_total", "device", "sda")...)
		add(false, ctr(1e-4), lbl("node_disk_io_time_seconds_total", "device", "sda")...)
		add(false, ctr(2e-5), lbl("node_cpu_seconds_total", "cpu", "0", "mode", "user")...)
		add(false, ctr(5e-6), lbl("node_cpu_seconds_total", "cpu", "0", "mode", "iowait")...)
		add(false, func(t time.Time, dt, _ float64) float64 { return dt * 0.5 }, lbl("node_cpu_seconds_total", "cpu", "0", "mode", "idle")...)
		add(false, ctr(12000), lbl("node_network_receive_bytes_total", "device", "eth0")...)
		add(false, ctr(9000), lbl("node_network_transmit_bytes_total", "device", "eth0")...)
		add(false, ctr(2), lbl("node_network_receive_packets_total", "device", "eth0")...)
		add(false, ctr(1.5), lbl("node_network_transmit_packets_total", "device", "eth0")...)
		add(true, func(t time.Time, _, noise float64) float64 { return 0.5 + 1e-3*load(t)*(1+0.05*noise) }, lbl("node_load1")...)
		add(true, func(time.Time, float64, float64) float64 { return 64e9 }, lbl("node_memory_MemTotal_bytes")...)
		add(true, func(t time.Time, _, noise float64) float64 { return 32e9 - 1e5*load(t)*(1+0.05*noise) }, lbl("node_memory_MemAvailable_bytes")...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	n := 0
	dt := promBenchScrape.Seconds()
	for t := start; !t.After(end); t = t.Add(promBenchScrape) {
		app := w.Appender(ctx)
		for _, s := range all {
			v := s.next(t, dt, rng.NormFloat64())
			if !s.gaug {
				s.acc += math.Max(v, 0)
				v = s.acc
			}
			ref, err := app.Append(storageRef(s.ref), s.lset, t.UnixMilli(), v)
			if err != nil {
				return n, fmt.Errorf("%s at %s: %w", s.lset, t, err)
			}
			s.ref = uint64(ref)
			n++
		}
		if err := app.Commit(); err != nil {
			return n, err
		}
	}
	if _, err := w.Flush(ctx); err != nil {
		return n, err
	}
	return n, nil
}

func storageRef(r uint64) storage.SeriesRef { return storage.SeriesRef(r) }
