package demo

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/storagesim"
)

func demoCluster(t testing.TB) *config.Cluster {
	t.Helper()
	c := &config.Config{Demo: true, Clusters: []config.Cluster{config.DemoCluster()}}
	d := config.Default()
	c.Prometheus, c.Fit, c.StateDir, c.Web = d.Prometheus, d.Fit, d.StateDir, d.Web
	c.Clusters[0].LatencySLO.Threshold = 20 * time.Millisecond
	c.Clusters[0].LatencySLO.Latency = "op"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return &c.Clusters[0]
}

// demoAt is the demo Prometheus of a scenario started age before now, its
// clock stopped at now, keeping retention of history (the demo's is
// MaxLookback+retentionMargin; tests reading a few hours keep less, which
// saves them appending a day of scrapes), read through the production
// source.
func demoAt(t testing.TB, scenario string, now time.Time, age, retention time.Duration) (*Prometheus, *source.Prometheus) {
	t.Helper()
	sc, err := storagesim.LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	c, err := storagesim.New(sc, 1, now.Add(-age))
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPrometheus(c, func() time.Time { return now }, retention, ScrapeInterval)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p, source.NewPrometheusQuerier(p, config.Default().Prometheus, nil, nil)
}

// TestFetchMatchesTruth: the rates the production PromQL computes on the
// demo Prometheus agree with the simulator's noise-free truth within the
// noise of the scenario.
func TestFetchMatchesTruth(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	p, s := demoAt(t, "steady", now, 24*time.Hour, 4*time.Hour)
	cl := demoCluster(t)
	r := source.Range{Start: now.Add(-3 * time.Hour), End: now, Step: time.Minute}
	f, err := s.Fetch(context.Background(), cl, r)
	if err != nil {
		t.Fatal(err)
	}
	var sumRel float64
	var n int
	for i, ts := range f.Times() {
		r, w := f.Signals[source.ReadOps][i], f.Signals[source.WriteOps][i]
		if math.IsNaN(r) || math.IsNaN(w) {
			continue
		}
		tr := p.Cluster.Truth(time.UnixMilli(int64(ts*1000)), 0)
		sumRel += math.Abs(r+w-tr.ServedIOPS.Total) / tr.ServedIOPS.Total
		n++
	}
	if n < r.N()*9/10 {
		t.Fatalf("only %d of %d points usable", n, r.N())
	}
	if mean := sumRel / float64(n); mean > 0.05 {
		t.Errorf("mean relative error of total IOPS vs truth %.3f > 0.05", mean)
	}
	if h, ok := f.Last(source.OSDHosts, 1); !ok || h != 3 {
		t.Errorf("osd_hosts %v (%v), want the scenario's 3", h, ok)
	}
	if h, ok := lastFinite(f.HostStats["osd"]["disk_reads"][source.StatCount]); len(f.HostStats["osd"]) == 0 || !ok || h != 3 {
		t.Errorf("host metrics: %d metrics, disk_reads of %v hosts", len(f.HostStats["osd"]), h)
	}
}

// BenchmarkFetchDay is one fit cycle's fetch of a day at 1 m through the
// in-process PromQL engine (7 cluster signals, the OSD host count and 13
// host metrics). The scrapes are appended before the timer starts; the
// first forecast's one-off cost of appending them is measured by
// BenchmarkScrapeDay.
func BenchmarkFetchDay(b *testing.B) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	p, s := demoAt(b, "steady", now, 7*24*time.Hour, MaxLookback+retentionMargin)
	cl := demoCluster(b)
	r := source.Range{Start: now.Add(-24 * time.Hour), End: now, Step: time.Minute}
	if err := p.scrapeUntil(context.Background(), now); err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuSeconds(b)
	for b.Loop() {
		if _, err := s.Fetch(context.Background(), cl, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
}

// cpuSeconds is the process's user+system CPU time: on a shared machine a
// steadier cost than wall time.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func TestFetchLatency(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	p, s := demoAt(t, "steady", now, 24*time.Hour, 2*time.Hour)
	f, err := s.Fetch(context.Background(), demoCluster(t), source.Range{Start: now.Add(-time.Hour), End: now, Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	tr := p.Cluster.Truth(now, 0)
	got, ok := f.Last(source.Latency, 3)
	if !ok || math.Abs(got-tr.Latency.Now)/tr.Latency.Now > 0.15 {
		t.Errorf("latency %v (ok %v), truth %v", got, ok, tr.Latency.Now)
	}
}

// TestFetchSwift: the Swift personality through the Swift mapping.
func TestFetchSwift(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	p, s := demoAt(t, "swift", now, 2*time.Hour, MaxLookback+retentionMargin)
	cl := demoCluster(t)
	cl.Kind = config.KindSwift
	f, err := s.Fetch(context.Background(), cl, source.Range{Start: now.Add(-30 * time.Minute), End: now, Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	tr := p.Cluster.Truth(now, 0)
	r, okR := f.Last(source.ReadOps, 3)
	w, okW := f.Last(source.WriteOps, 3)
	if !okR || !okW || math.Abs(r+w-tr.ServedIOPS.Total)/tr.ServedIOPS.Total > 0.1 {
		t.Errorf("swift ops %v+%v, truth %v", r, w, tr.ServedIOPS.Total)
	}
	if lat, ok := f.Last(source.Latency, 3); !ok || !(lat > 0) {
		t.Errorf("swift latency %v (ok %v)", lat, ok)
	}
}

// TestFetchCounterResets: with OSDs restarting every few minutes (their
// counters start again from zero), rates stay non-negative and on the truth.
func TestFetchCounterResets(t *testing.T) {
	data, err := os.ReadFile("../../storagesim/scenarios/steady.yml")
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(string(data), "restarts_per_osd_per_day: 0.2", "restarts_per_osd_per_day: 100", 1)
	if y == string(data) {
		t.Fatal("steady.yml no longer sets restarts_per_osd_per_day: 0.2")
	}
	path := filepath.Join(t.TempDir(), "restarts.yml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	p, s := demoAt(t, path, now, 2*time.Hour, MaxLookback+retentionMargin)
	f, err := s.Fetch(context.Background(), demoCluster(t), source.Range{Start: now.Add(-time.Hour), End: now, Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var sumRel float64
	var n int
	for i, ts := range f.Times() {
		r, w := f.Signals[source.ReadOps][i], f.Signals[source.WriteOps][i]
		if r < 0 || w < 0 {
			t.Fatalf("negative rate %v/%v at %v", r, w, ts)
		}
		if math.IsNaN(r) || math.IsNaN(w) {
			continue
		}
		tr := p.Cluster.Truth(time.UnixMilli(int64(ts*1000)), 0)
		sumRel += math.Abs(r+w-tr.ServedIOPS.Total) / tr.ServedIOPS.Total
		n++
	}
	// A restart inside a window loses the increments before it (as
	// Prometheus's rate does): the error grows a little, not wildly.
	if mean := sumRel / float64(n); n < 50 || mean > 0.1 {
		t.Errorf("%d points, mean relative error %.3f (limit 0.1)", n, mean)
	}
}

// TestScrapesKeepArriving: as the clock runs, each query first appends the
// scrapes produced since the last one (the newest grid point is there and
// on the truth), and data older than the retention leaves the head.
func TestScrapesKeepArriving(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	sc, err := storagesim.LoadScenario("steady")
	if err != nil {
		t.Fatal(err)
	}
	c, err := storagesim.New(sc, 1, now.Add(-3*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	clock := now
	p, err := newPrometheus(c, func() time.Time { return clock }, time.Hour, ScrapeInterval)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := source.NewPrometheusQuerier(p, config.Default().Prometheus, nil, nil)
	cl := demoCluster(t)
	last := func(end time.Time) (float64, bool) {
		f, err := s.Fetch(context.Background(), cl, source.Range{Start: end.Add(-10 * time.Minute), End: end, Step: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return f.Last(source.ReadOps, 1)
	}
	if _, ok := last(now); !ok {
		t.Fatal("no read_ops at the clock's time")
	}
	seriesBefore := p.head.NumSeries()
	if _, ok := last(now.Add(2 * time.Hour)); ok {
		t.Fatal("read_ops 2 h ahead of the clock")
	}
	clock = now.Add(2 * time.Hour)
	got, ok := last(clock)
	if tr := p.Cluster.Truth(clock, 0); !ok || math.Abs(got-tr.ServedIOPS.Read)/tr.ServedIOPS.Read > 0.1 {
		t.Errorf("read_ops after the clock moved: %v (ok %v), truth %v", got, ok, tr.ServedIOPS.Read)
	}
	if mint := p.head.MinTime(); mint <= now.UnixMilli() {
		t.Errorf("head starts at %v, want after %v (retention 1 h, clock at %v)", time.UnixMilli(mint).UTC(), now, clock)
	}
	f, err := s.Fetch(context.Background(), cl, source.Range{Start: now.Add(-time.Hour), End: now, Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := f.Last(source.ReadOps, f.Range.N()); ok {
		t.Errorf("read_ops %v older than the retention still answered", v)
	}
	if n := p.head.NumSeries(); n > seriesBefore {
		t.Errorf("head holds %d series after truncation, %d before", n, seriesBefore)
	}
}

// TestQueryErrors: errors carry the HTTP API's types, so the production
// source classifies them (a query that does not parse is bad_data, not
// retried).
func TestQueryErrors(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	p, _ := demoAt(t, "steady", now, time.Hour, MaxLookback+retentionMargin)
	_, _, _, err := p.QueryRange(context.Background(), "sum(rate(ceph_osd_op_r[2m])", v1.Range{Start: now.Add(-time.Hour), End: now, Step: time.Minute})
	var apiErr *v1.Error
	if !errors.As(err, &apiErr) || apiErr.Type != v1.ErrBadData {
		t.Errorf("unparsable query: %v, want a bad_data API error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := p.QueryRange(ctx, "up", v1.Range{Start: now.Add(-time.Hour), End: now, Step: time.Minute}); err == nil {
		t.Error("canceled context: no error")
	}
}

// TestScrapeGapIsStale: while a target is in a simulated scrape gap its
// series are stale (a marker, as Prometheus writes after a failed scrape):
// an instant selector there finds nothing instead of the last value.
func TestScrapeGapIsStale(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	sc, err := storagesim.LoadScenario("steady")
	if err != nil {
		t.Fatal(err)
	}
	c, err := storagesim.New(sc, 1, now.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// A gap lasts scrape_gap_duration (1 m in steady): a 1 m grid meets
	// each; its first scrape is within the minute before.
	down := func(ts time.Time) string {
		for _, tg := range c.Sample(ts).Targets {
			if !tg.Up && tg.Job == "node" {
				return tg.Instance
			}
		}
		return ""
	}
	var gap time.Time
	var instance string
	for ts := now.Add(-23 * time.Hour).Truncate(time.Minute); ts.Before(now) && instance == ""; ts = ts.Add(time.Minute) {
		instance, gap = down(ts), ts
	}
	if instance == "" {
		t.Fatal("steady has no node scrape gap in its last day")
	}
	for ts := gap.Add(-ScrapeInterval); down(ts) == instance; ts = ts.Add(-ScrapeInterval) {
		gap = ts
	}
	p, _ := demoAt(t, "steady", now, 24*time.Hour, now.Sub(gap)+time.Hour)
	v, _, _, err := p.QueryRange(context.Background(), `node_load1{instance="`+instance+`"}`, v1.Range{Start: gap.Add(-time.Minute), End: gap, Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	m := v.(model.Matrix)
	if len(m) != 1 || len(m[0].Values) != 1 || m[0].Values[0].Timestamp.Time().UTC() != gap.Add(-time.Minute).UTC() {
		t.Errorf("node_load1 of %s around its gap at %v: %v, want the point a minute before only", instance, gap, m)
	}
}

// BenchmarkScrapeDay appends a day of scrapes at ScrapeInterval (523
// series of the steady scenario): the one-off cost before the demo's first
// forecast.
func BenchmarkScrapeDay(b *testing.B) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	var cpu float64
	for b.Loop() {
		b.StopTimer()
		p, _ := demoAt(b, "steady", now, 24*time.Hour, MaxLookback+retentionMargin)
		p.Cluster.Sample(now.Add(-24 * time.Hour)) // the simulator's own start-up
		b.StartTimer()
		cpu0 := cpuSeconds(b)
		if err := p.scrapeUntil(context.Background(), now); err != nil {
			b.Fatal(err)
		}
		cpu += cpuSeconds(b) - cpu0
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}

// lastFinite is the last non-NaN value of v.
func lastFinite(v []float64) (float64, bool) {
	for i := len(v) - 1; i >= 0; i-- {
		if !math.IsNaN(v[i]) {
			return v[i], true
		}
	}
	return 0, false
}
