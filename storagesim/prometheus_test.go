package storagesim

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/storcast/storcast/internal/testtool"
)

// These tests run the real Prometheus and promtool (Debian's packages): one
// scrapes a live storagesim, the other backfills a generated week with
// promtool and queries it. Both compare PromQL results with the truth.

// query runs an instant query at at and returns its vector.
func query(t *testing.T, base, expr string, at time.Time) []testtool.Sample {
	t.Helper()
	res, err := testtool.Query(base, expr, at)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// scalarQuery runs a query that must return exactly one sample.
func scalarQuery(t *testing.T, base, expr string, at time.Time) float64 {
	t.Helper()
	res := query(t, base, expr, at)
	if len(res) != 1 {
		t.Fatalf("query %s at %s: %d samples, want 1: %v", expr, at.UTC().Format(time.RFC3339), len(res), res)
	}
	return res[0].Value
}

// windowTruth averages the truth over (from, to] tick by tick: the served
// read IOPS and the op-weighted mean latency.
func windowTruth(c *Cluster, from, to time.Time) (reads, latency float64) {
	var n, ops, latOps float64
	for tt := from; tt.Before(to); tt = tt.Add(Tick) {
		tr := c.Truth(tt, 0)
		reads += tr.ServedIOPS.Read
		ops += tr.ServedIOPS.Total
		latOps += tr.ServedIOPS.Total * tr.Latency.Now
		n++
	}
	return reads / n, latOps / ops
}

const (
	poolRead   = `rate(ceph_pool_rd{pool_id="1"}[%s])`
	latencyAvg = `sum(rate(ceph_osd_op_latency_sum[%[1]s])) / sum(rate(ceph_osd_op_latency_count[%[1]s]))`
)

func TestPrometheusScrapesLive(t *testing.T) {
	testtool.Need(t, "prometheus")
	t.Parallel()
	sc, err := LoadScenario("testdata/small.yml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(sc, 21, time.Now().Add(-30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: c.Handler()}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })

	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: storagesim
    http_sd_configs:
      - url: http://%s/sd
        refresh_interval: 5s
`, l.Addr())
	base := testtool.StartPrometheus(t, "", cfg, t.TempDir())

	// Wait for both targets (the ceph-mgr and the one host) to be up, then
	// for a 20s window of samples.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if res := query(t, base, `count(up == 1)`, time.Now()); len(res) == 1 && res[0].Value == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("targets not up after 60s")
		}
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(23 * time.Second)
	at := time.Now().Add(-time.Second)

	if v := scalarQuery(t, base, `up{job="node",instance="ceph-node-1:9100"}`, at); v != 1 {
		t.Errorf("node target ceph-node-1:9100 up = %v", v)
	}
	if v := scalarQuery(t, base, `up{job="ceph",instance="ceph-mgr:9283"}`, at); v != 1 {
		t.Errorf("ceph target up = %v", v)
	}
	wantReads, wantLat := windowTruth(c, at.Add(-20*time.Second), at)
	gotReads := scalarQuery(t, base, fmt.Sprintf(poolRead, "20s"), at)
	if !near(gotReads, 0.75*wantReads, 0.08) {
		t.Errorf("live rate(ceph_pool_rd[20s]) = %.1f, truth %.1f (±8%%)", gotReads, 0.75*wantReads)
	}
	gotLat := scalarQuery(t, base, fmt.Sprintf(latencyAvg, "20s"), at)
	if !near(gotLat, wantLat, 0.1) {
		t.Errorf("live latency ratio = %.5f s, truth %.5f s (±10%%)", gotLat, wantLat)
	}
	t.Logf("live: pool 1 reads %.1f/s (truth %.1f), latency %.3f ms (truth %.3f ms)", gotReads, 0.75*wantReads, gotLat*1e3, wantLat*1e3)
}

func TestPrometheusBackfilledWeek(t *testing.T) {
	promtool := testtool.Need(t, "promtool")
	testtool.Need(t, "prometheus")
	t.Parallel()
	sc, err := LoadScenario("testdata/small.yml")
	if err != nil {
		t.Fatal(err)
	}
	// A recent week, so that Prometheus's retention keeps it.
	end := time.Now().Truncate(time.Hour)
	origin := end.Add(-7 * 24 * time.Hour)
	c, err := New(sc, 11, origin)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "history.om")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	const step = 15 * time.Minute
	if err := WriteHistory(f, c, origin, end, step); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", file, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	base := testtool.StartPrometheus(t, "", "scrape_configs: []\n", data)

	for _, at := range []time.Duration{27 * time.Hour, 3*24*time.Hour + 14*time.Hour, 6*24*time.Hour + 21*time.Hour} {
		ts := origin.Add(at)
		wantReads, wantLat := windowTruth(c, ts.Add(-time.Hour), ts)
		gotReads := scalarQuery(t, base, fmt.Sprintf(poolRead, "1h"), ts)
		if !near(gotReads, 0.75*wantReads, 0.02) {
			t.Errorf("origin+%s: rate(ceph_pool_rd[1h]) = %.2f, truth %.2f (±2%%)", at, gotReads, 0.75*wantReads)
		}
		gotLat := scalarQuery(t, base, fmt.Sprintf(latencyAvg, "1h"), ts)
		if !near(gotLat, wantLat, 0.02) {
			t.Errorf("origin+%s: latency ratio = %.5f s, truth %.5f s (±2%%)", at, gotLat, wantLat)
		}
		t.Logf("backfill origin+%s: pool 1 reads %.1f/s (truth %.1f), latency %.3f ms (truth %.3f ms)", at, gotReads, 0.75*wantReads, gotLat*1e3, wantLat*1e3)
	}
	// One instance per target, with the labels a scrape would give them.
	if res := query(t, base, `count by (job, instance) (ceph_osd_op_r or node_load1)`, origin.Add(24*time.Hour)); len(res) != 2 {
		t.Errorf("backfilled targets: %v, want the ceph-mgr and one node", res)
	}
}
