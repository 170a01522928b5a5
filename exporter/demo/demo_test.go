package demo

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/source"
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

// TestFetchMatchesTruth: the rates the demo source computes agree with the
// simulator's noise-free truth within the noise of the scenario.
func TestFetchMatchesTruth(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	s, err := New("steady", 1, now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
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
		tr := s.Cluster.Truth(time.UnixMilli(int64(ts*1000)), 0)
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
	if len(f.Hosts["osd"]) == 0 || len(f.Hosts["osd"]["disk_reads"]) != 3 {
		t.Errorf("host metrics: %d metrics, disk_reads of %d hosts", len(f.Hosts["osd"]), len(f.Hosts["osd"]["disk_reads"]))
	}
}

func BenchmarkFetchDay(b *testing.B) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	s, _ := New("steady", 1, now, 7*24*time.Hour)
	cl := demoCluster(b)
	r := source.Range{Start: now.Add(-24 * time.Hour), End: now, Step: time.Minute}
	for b.Loop() {
		if _, err := s.Fetch(context.Background(), cl, r); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFetchLatency(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	s, _ := New("steady", 1, now, 24*time.Hour)
	f, err := s.Fetch(context.Background(), demoCluster(t), source.Range{Start: now.Add(-time.Hour), End: now, Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	tr := s.Cluster.Truth(now, 0)
	got, ok := f.Last(source.Latency, 3)
	if !ok || math.Abs(got-tr.Latency.Now)/tr.Latency.Now > 0.15 {
		t.Errorf("latency %v (ok %v), truth %v", got, ok, tr.Latency.Now)
	}
}

// TestFetchSwift: the Swift personality through the Swift mapping.
func TestFetchSwift(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	s, err := New("swift", 1, now, 2*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cl := demoCluster(t)
	cl.Kind = config.KindSwift
	f, err := s.Fetch(context.Background(), cl, source.Range{Start: now.Add(-30 * time.Minute), End: now, Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	tr := s.Cluster.Truth(now, 0)
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
	s, err := New(path, 1, now, 2*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
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
		tr := s.Cluster.Truth(time.UnixMilli(int64(ts*1000)), 0)
		sumRel += math.Abs(r+w-tr.ServedIOPS.Total) / tr.ServedIOPS.Total
		n++
	}
	// A restart inside a window loses the increments before it (as
	// Prometheus's rate does): the error grows a little, not wildly.
	if mean := sumRel / float64(n); n < 50 || mean > 0.1 {
		t.Errorf("%d points, mean relative error %.3f (limit 0.1)", n, mean)
	}
}
