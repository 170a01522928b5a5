package source

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/forecaster/insideout"
	"github.com/storcast/storcast/internal/testtool"
)

// writeNodeHistory writes node_exporter-like history of hosts as OpenMetrics
// (one sample per scrape, timestamps in seconds) for promtool's backfill:
// per-host rates that differ in level and phase with noise, two disks and
// three CPU modes per host (summed by instance in the queries), host 5
// without a network collector and host 2 missing 3 minutes of scrapes.
func writeNodeHistory(path string, hosts int, start, end time.Time, scrape time.Duration) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(7, 13))
	type series struct {
		name, labels string
		counter      bool
		base, amp    float64
	}
	var all []series
	for _, m := range []struct {
		name    string
		labels  []string
		counter bool
		base    float64
	}{
		{"node_cpu_seconds_total", []string{`cpu="0",mode="user"`, `cpu="0",mode="iowait"`, `cpu="0",mode="idle"`}, true, 0.3},
		{"node_disk_reads_completed_total", []string{`device="sda"`, `device="sdb"`}, true, 400},
		{"node_disk_io_time_seconds_total", []string{`device="sda"`}, true, 0.4},
		{"node_load1", []string{""}, false, 2},
		{"node_memory_MemAvailable_bytes", []string{""}, false, 4e9},
		{"node_memory_MemTotal_bytes", []string{""}, false, 16e9},
		{"node_network_receive_bytes_total", []string{`device="eth0"`, `device="lo"`}, true, 5e7},
	} {
		for _, l := range m.labels {
			for h := 0; h < hosts; h++ {
				if h == 5 && m.name == "node_network_receive_bytes_total" {
					continue
				}
				lbl := fmt.Sprintf(`instance="host-%d:9100",job="node"`, h)
				if l != "" {
					lbl += "," + l
				}
				amp := 0.5
				if m.name == "node_memory_MemTotal_bytes" {
					amp = 0
				}
				all = append(all, series{m.name, lbl, m.counter, m.base * (0.5 + rng.Float64()), amp})
			}
		}
	}
	gapFrom, gapTo := start.Add(40*time.Minute), start.Add(43*time.Minute)
	for _, s := range all {
		phase := rng.Float64() * 2 * math.Pi
		acc := 0.0
		for t := start; !t.After(end); t = t.Add(scrape) {
			x := s.base * (1 + s.amp*math.Sin(2*math.Pi*float64(t.Unix())/1800+phase)) * (1 + 0.1*rng.NormFloat64())
			if s.counter {
				acc += math.Abs(x) * scrape.Seconds()
				x = acc
			}
			if s.labels[:len(`instance="host-2:`)] == `instance="host-2:` && !t.Before(gapFrom) && t.Before(gapTo) {
				continue
			}
			fmt.Fprintf(w, "%s{%s} %g %d\n", s.name, s.labels, x, t.Unix())
		}
	}
	fmt.Fprintln(w, "# EOF")
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// TestHostStatisticsAgreeWithInsideOutOnPrometheus: the statistics the
// query engine computes across hosts (HostQueries, in a real Prometheus)
// are the features Inside-Out's own aggregation gives on the same data
// fetched host by host: each host's series smoothed by
// insideout.MovingAverage over SmoothWindow, then mean, population std,
// sum and p95 (rank 0.95·(N−1), linear) by insideout.Schema.Aggregate.
// At steps of 15 s and 25 s (smoothed by a subquery of 4 and 3 points) and
// 1 m (no smoothing), with a host missing a metric and a host with a gap.
func TestHostStatisticsAgreeWithInsideOutOnPrometheus(t *testing.T) {
	promtool := testtool.Need(t, "promtool")
	testtool.Need(t, "prometheus")
	dir := t.TempDir()
	end := time.Now().Add(-time.Hour).Truncate(time.Hour)
	start := end.Add(-2 * time.Hour)
	om := filepath.Join(dir, "history.om")
	if err := writeNodeHistory(om, 6, start, end, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "prom")
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", om, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	base := testtool.StartPrometheus(t, "", "global: {scrape_interval: 15s}\n", data)
	p, _ := testSource(t, base, func(c *config.Prometheus) { c.Timeout = 30 * time.Second })
	cl := testCluster(t)
	for _, step := range []time.Duration{15 * time.Second, 25 * time.Second, time.Minute} {
		t.Run(step.String(), func(t *testing.T) {
			r := Range{Start: start.Add(10 * time.Minute).Truncate(step), End: end.Add(-10 * time.Minute).Truncate(step), Step: step}
			f, err := p.Fetch(context.Background(), cl, r)
			if err != nil {
				t.Fatal(err)
			}
			k := int((SmoothWindow + step - 1) / step) // points in the smoothing window
			times := f.Times()
			compared := 0
			for m, inner := range HostInnerQueries(cl, RateWindow(step))["osd"] {
				perHost, _, err := p.query(context.Background(), "a", inner, r)
				if err != nil {
					t.Fatal(err)
				}
				if len(perHost) == 0 {
					continue // no such series in the history (e.g. net_tx)
				}
				raw := map[string][]float64{}
				smoothed := map[string][]float64{}
				for _, s := range perHost {
					v := nanSlice(r.N())
					align(v, s.Values, r)
					raw[string(s.Metric["instance"])] = v
					if smoothed[string(s.Metric["instance"])], err = insideout.MovingAverage(times, v, SmoothWindow.Seconds()); err != nil {
						t.Fatal(err)
					}
				}
				got := f.HostStats["osd"][m]
				schema := insideout.Schema{Roles: []insideout.RoleMetrics{{Role: "osd", Metrics: []string{m}}}}
				// From the first point whose smoothing window lies in the
				// frame (MovingAverage sees only the frame).
				for i := k - 1; i < r.N(); i++ {
					w := insideout.Window{"osd": {}}
					var rawSum float64
					for h := range smoothed {
						if x := smoothed[h][i]; !math.IsNaN(x) {
							w["osd"][h] = map[string]float64{m: x}
						}
						if x := raw[h][i]; !math.IsNaN(x) {
							rawSum += x
						}
					}
					want, err := schema.Aggregate(w)
					if len(w["osd"]) == 0 {
						for _, st := range []string{StatMean, StatStd, StatSum, StatP95, StatCount} {
							if !math.IsNaN(got[st][i]) {
								t.Errorf("%s %s at %d: %v where no host reports", m, st, i, got[st][i])
							}
						}
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					scale := math.Abs(want[0]) + 1e-300
					for j, st := range insideout.Stats {
						if d := math.Abs(got[st][i] - want[j]); !(d <= 1e-9*scale) {
							t.Errorf("%s %s at point %d: PromQL %v, Inside-Out %v", m, st, i, got[st][i], want[j])
						}
					}
					if got[StatCount][i] != float64(len(w["osd"])) {
						t.Errorf("%s count at %d: %v, want %d", m, i, got[StatCount][i], len(w["osd"]))
					}
					if k > 1 {
						n := 0
						for h := range raw {
							if !math.IsNaN(raw[h][i]) {
								n++
							}
						}
						if wantRaw := rawSum / float64(n); !(math.Abs(got[StatRawMean][i]-wantRaw) <= 1e-9*math.Abs(wantRaw)) {
							t.Errorf("%s raw mean at %d: %v, want %v", m, i, got[StatRawMean][i], wantRaw)
						}
					}
					compared++
				}
			}
			metrics := make([]string, 0, len(f.HostStats["osd"]))
			for m := range f.HostStats["osd"] {
				metrics = append(metrics, m)
			}
			sort.Strings(metrics)
			if compared < 5*(r.N()-k) {
				t.Errorf("compared %d points over metrics %v, want ≥ %d", compared, metrics, 5*(r.N()-k))
			}
			if c := f.HostStats["osd"]["net_rx_bytes"][StatCount]; c[len(c)-1] != 5 {
				t.Errorf("net_rx_bytes reported by %v hosts at the end, want 5 (host-5 has none)", c[len(c)-1])
			}
			t.Logf("step %s: %d points × metrics compared, %d queries, %d series, %d bytes", step, compared, f.Stats.Queries, f.Stats.Series, f.Stats.ResponseBytes)
		})
	}
}
