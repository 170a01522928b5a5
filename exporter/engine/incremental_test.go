package engine

import (
	"context"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/internal/promfake"
	"github.com/storcast/storcast/exporter/source"
)

// sameValues reports whether a and b are equal point by point, NaN
// matching NaN.
func sameValues(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// TestIncrementalFetchEqualsFullFetch: the second fit's fetch asks only for
// the steps since the first and an overlap (lateSteps), and the frame it
// splices is the one a full fetch of the lookback gives on the same data,
// point by point (cluster signals with gaps, and the hosts' statistics
// with the smoothing subquery of a 15 s step). A reload that restarts the
// cluster's loop drops the history.
func TestIncrementalFetchEqualsFullFetch(t *testing.T) {
	w := testWorkload()
	fake := promfake.New(func(q string) []promfake.Series {
		s := w.Answer(q)
		if strings.Contains(q, "ceph_osd_op_r{") {
			for i := range s {
				f := s[i].Value
				s[i].Value = func(t time.Time) float64 {
					if t.Unix()/60%17 == 3 { // a scrape gap
						return math.NaN()
					}
					return f(t)
				}
			}
		}
		return s
	})
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	cfg.Prometheus.Timeout = 5 * time.Second
	cfg.Fit.Step = 15 * time.Second
	cfg.Clusters[0].Hosts = config.Hosts{Matchers: []config.Matcher{{Name: "job", Op: "=", Value: "node"}}, Roles: []config.Role{{Name: "osd"}}}
	p := fetchTwice(t, cfg)
	e, cl, clk, first, second, r1, r2 := p.e, p.cl, p.clk, p.first, p.second, p.r1, p.r2
	full, err := p.src.Fetch(context.Background(), &cl.cfg, r2)
	if err != nil {
		t.Fatal(err)
	}
	if second.Range != full.Range || r2.N() != r1.N() {
		t.Fatalf("spliced range %+v, full %+v", second.Range, full.Range)
	}
	for k, v := range full.Signals {
		if !sameValues(second.Signals[k], v) {
			t.Errorf("signal %s: spliced differs from the full fetch", k)
		}
	}
	compared := 0
	for role, metrics := range full.HostStats {
		for m, stats := range metrics {
			for st, v := range stats {
				if !sameValues(second.HostStats[role][m][st], v) {
					t.Errorf("%s/%s/%s: spliced differs from the full fetch", role, m, st)
				}
				compared++
			}
		}
	}
	if compared != len(source.HostMetrics)*6 || len(second.Signals) != len(full.Signals) {
		t.Errorf("compared %d host statistics and %d signals", compared, len(second.Signals))
	}
	gaps := 0
	for _, v := range second.Signals[source.ReadOps] {
		if math.IsNaN(v) {
			gaps++
		}
	}
	if gaps == 0 {
		t.Error("the read ops have no gap: the test data lost its gaps")
	}
	// The second fetch read the 68 new steps and the overlap, per series.
	steps := 17*4 + lateSteps(cfg) + 1
	if max := steps * full.Stats.Series; second.Stats.Samples > max || second.Stats.Samples < max/2 {
		t.Errorf("second fetch read %d samples, want about %d (%d steps × %d series); the first read %d",
			second.Stats.Samples, max, steps, full.Stats.Series, first.Stats.Samples)
	}
	if first.Stats.Samples < 10*second.Stats.Samples {
		t.Errorf("first fetch %d samples, second %d: not incremental", first.Stats.Samples, second.Stats.Samples)
	}

	// A reload (Start) that restarts the loop drops the history: the next
	// fit fetches whole.
	cfg.Fit.RefreshInterval = time.Hour
	e.clusters["a"] = cl
	cl.lastFit = clk.Now() // no fit due at once
	e.Start(context.Background(), cfg)
	e.Stop()
	if cl.history != nil {
		t.Error("history kept across a reload")
	}
}

// TestLookbackOffTheStepGrid: a lookback that is not a whole number of
// steps (6h 20s at 15 s) still fetches incrementally: the range starts
// whole steps back from its end, on the grid the history splices onto (it
// started 20 s off, and every fit fetched the lookback whole).
func TestLookbackOffTheStepGrid(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	cfg.Prometheus.Timeout = 5 * time.Second
	cfg.Fit.Step = 15 * time.Second
	cfg.Fit.Lookback = 6*time.Hour + 20*time.Second
	p := fetchTwice(t, cfg)
	first, second, r := p.first, p.second, p.r2
	if r.End.Sub(r.Start)%r.Step != 0 || r.End.Sub(r.Start) != 6*time.Hour+15*time.Second {
		t.Errorf("range %v .. %v: want whole steps, 6h 15s", r.Start, r.End)
	}
	if first.Stats.Samples < 10*second.Stats.Samples {
		t.Errorf("first fetch %d samples, second %d: not incremental", first.Stats.Samples, second.Stats.Samples)
	}
}

// fetchPair is an engine's cluster "a" on cfg after two fetchLookback
// calls 17 minutes apart (the second incremental when it can be).
type fetchPair struct {
	e             *Engine
	cl            *cluster
	clk           *clock
	src           source.Source
	first, second *source.Frame
	r1, r2        source.Range
}

func fetchTwice(t *testing.T, cfg *config.Config) fetchPair {
	t.Helper()
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := fetchPair{clk: &clock{t: testNow}, src: src}
	p.e = New(Options{Source: src, Fitters: baseFitters(), Now: p.clk.Now})
	p.cl = &cluster{name: "a", cfg: cfg.Clusters[0], src: src}
	p.cl.snap.Store(&Snapshot{Cluster: "a", Models: p.e.emptyStatuses(&cfg.Clusters[0])})
	log := slog.New(slog.DiscardHandler)
	var ok bool
	if p.first, p.r1, ok = p.e.fetchLookback(context.Background(), cfg, p.cl, log); !ok {
		t.Fatal("first fetch failed")
	}
	p.clk.t = p.clk.t.Add(17 * time.Minute)
	if p.second, p.r2, ok = p.e.fetchLookback(context.Background(), cfg, p.cl, log); !ok {
		t.Fatal("second fetch failed")
	}
	return p
}
