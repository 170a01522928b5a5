package engine

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/internal/promfake"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
)

// peakHeap samples the live heap every 5 ms until stop is called and
// returns the largest value seen.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); <-finished; return peak.Load() }
}

// cpuSeconds is the process's user and system CPU time so far: less
// sensitive than wall time to the other work on a shared machine.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkFitCycle is one fit of every model for a Ceph cluster over a
// 7-day lookback at a 5-minute step (2,017 points), read over HTTP from a
// Prometheus API fake, sized by hosts (10, 100, 1,000) and OSDs (100,
// 1,000, 10,000). The fake computes every answer from its per-OSD and
// per-host series at each query, as a Prometheus would: the client
// signals as sums over the OSDs, the host metrics' statistics (mean, std,
// sum, p95, count across the hosts; source.HostQueries) over the hosts.
// "full" is a first fit (the whole lookback), the fake computing every
// answer; "memo" the same fit with the fake's answers computed once
// before and sent again (the client's side alone: HTTP, decoding,
// features, fits); "incremental" a fit an hour after the last, which
// fetches the hour and the overlap (fetchLookback). Reported: wall time,
// the fake's time computing answers (summed over concurrent queries),
// queries and response bytes per cycle, peak live heap (the fake's
// included: it runs in the same process).
func BenchmarkFitCycle(b *testing.B) {
	for _, hosts := range []int{10, 100, 1000} {
		for _, osds := range []int{100, 1000, 10000} {
			for _, mode := range []string{"full", "memo"} {
				b.Run(fmt.Sprintf("hosts=%d/osds=%d/%s", hosts, osds, mode), func(b *testing.B) { benchFitCycle(b, hosts, osds, mode) })
			}
		}
	}
	b.Run("hosts=1000/osds=10000/incremental", func(b *testing.B) { benchFitCycle(b, 1000, 10000, "incremental") })
}

func benchFitCycle(b *testing.B, hosts, osds int, mode string) {
	w := promfake.Workload{IOPS: promfake.Diurnal(60000, 0.4), ReadRatio: 0.7, ReadSize: 8192, WriteSize: 16384, Capacity: 150000, L0: 0.001, Hosts: hosts, OSDs: osds}
	fake := promfake.New(w.Answer)
	defer fake.Close()
	fake.Memo = mode == "memo"
	c := config.Default()
	c.Prometheus.URL = fake.URL
	c.Fit.Lookback, c.Fit.Step = 7*24*time.Hour, 5*time.Minute
	c.StateDir = b.TempDir()
	c.Clusters = []config.Cluster{{Name: "big", Kind: config.KindCeph, Matchers: []config.Matcher{{Name: "cluster", Op: "=", Value: "big"}},
		Hosts:       config.Hosts{Matchers: []config.Matcher{{Name: "job", Op: "=", Value: "node"}}, Roles: []config.Role{{Name: "osd"}}},
		Calibration: config.Calibration{File: "testdata/calibration-bench.yml"},
		LatencySLO:  config.LatencySLO{Threshold: 5 * time.Millisecond, Latency: "op"}}}
	if err := c.Validate(); err != nil {
		b.Fatal(err)
	}
	src, err := source.NewPrometheus(c.Prometheus, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	clk := &clock{t: testNow}
	e := New(Options{Source: src, Fitters: models.All(), Now: clk.Now}) // what storcast fits
	cl := &cluster{name: "big", cfg: c.Clusters[0], src: src}
	cl.snap.Store(&Snapshot{Cluster: "big", Models: e.emptyStatuses(&c.Clusters[0])})
	log := slog.New(slog.DiscardHandler)
	if mode != "full" { // the history to extend, or the answers to memoize
		e.fit(context.Background(), &c, cl, log, "bench: first fit")
	}
	// The per-fit metrics are summed and divided by the fits after the
	// loop (a ReportMetric inside it kept the last fit's only); the GC
	// that levels the heap runs outside the timer.
	var peak uint64
	var queries, respBytes, fakeSeconds, cpu float64
	for b.Loop() {
		b.StopTimer()
		if mode == "incremental" {
			clk.t = clk.t.Add(time.Hour)
		} else {
			cl.history = nil
		}
		fake.Queries()
		before, compute := fake.Bytes(), fake.ComputeTime()
		runtime.GC()
		cpu0 := cpuSeconds()
		b.StartTimer()
		stop := peakHeap()
		e.fit(context.Background(), &c, cl, log, "bench")
		p := stop()
		cpu += cpuSeconds() - cpu0
		peak = max(peak, p)
		queries += float64(len(fake.Queries()))
		respBytes += float64(fake.Bytes() - before)
		fakeSeconds += (fake.ComputeTime() - compute).Seconds()
	}
	n := float64(b.N) // the fits b.Loop ran
	b.ReportMetric(queries/n, "queries/op")
	b.ReportMetric(respBytes/n, "resp-bytes/op")
	b.ReportMetric(fakeSeconds/n, "fake-s/op")
	b.ReportMetric(cpu/n, "cpu-s/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	s := cl.snap.Load()
	b.Logf("fit seconds per model: %v", s.FitSeconds)
	for m := range s.Models {
		if st := s.Models[m]; !st.Fitted {
			b.Errorf("%s not fitted: %s", m, st.Error)
		}
	}
}
