package storagesim

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/internal/testtool"
)

var testOrigin = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

func mustCluster(t testing.TB, scenario string, seed int64) *Cluster {
	t.Helper()
	sc, err := LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(sc, seed, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func near(got, want, relTol float64) bool {
	return math.Abs(got-want) <= relTol*math.Abs(want)
}

// At the computed max IOPS utilization is 1 and latency is at the knee, and
// the SLO crossing load gives the SLO latency back.
func TestTruthSelfConsistent(t *testing.T) {
	for _, name := range ScenarioNames() {
		c := mustCluster(t, name, 1)
		for _, at := range []time.Duration{0, 13 * time.Hour, 3*24*time.Hour + 2*time.Hour, 5*24*time.Hour + time.Hour, 170 * time.Hour, 200 * time.Hour} {
			tr := c.Truth(testOrigin.Add(at), 0)
			if u := tr.UtilizationAt(tr.MaxIOPS.Total); math.Abs(u-1) > 1e-12 {
				t.Errorf("%s at %s: utilization at max IOPS = %v, want 1", name, at, u)
			}
			if tr.Clients != nil {
				continue // the client models have their own knee (frontier_test.go)
			}
			if l := tr.LatencyAt(tr.MaxIOPS.Total); !near(l, tr.Latency.Knee, 1e-12) {
				t.Errorf("%s at %s: latency at max IOPS = %v, want the knee %v", name, at, l, tr.Latency.Knee)
			}
			if !near(tr.Latency.Knee, c.sc.Latency.KneeFactor*tr.Latency.ZeroLoad, 1e-12) {
				t.Errorf("%s: knee %v != knee_factor × zero-load %v", name, tr.Latency.Knee, tr.Latency.ZeroLoad)
			}
			for _, slo := range []float64{0.003, 0.01, 0.02, 0.05, 0.5} {
				tr := c.Truth(testOrigin.Add(at), slo)
				if tr.SLOCrossingIOPS == 0 {
					if tr.Latency.ZeroLoad < slo {
						t.Errorf("%s at %s: SLO %v: crossing 0 but zero-load latency %v is below it", name, at, slo, tr.Latency.ZeroLoad)
					}
					continue
				}
				if l := tr.LatencyAt(tr.SLOCrossingIOPS); !near(l, slo, 1e-9) {
					t.Errorf("%s at %s: latency at the SLO crossing %v = %v, want %v", name, at, tr.SLOCrossingIOPS, l, slo)
				}
				if (slo < tr.Latency.Knee) != (tr.SLOCrossingIOPS < tr.MaxIOPS.Total) {
					t.Errorf("%s at %s: SLO %v below the knee %v must cross below max IOPS", name, at, slo, tr.Latency.Knee)
				}
			}
			if !near(tr.MaxIOPS.Read+tr.MaxIOPS.Write, tr.MaxIOPS.Total, 1e-12) || !near(tr.MaxIOPS.Read, tr.ReadRatio*tr.MaxIOPS.Total, 1e-12) {
				t.Errorf("%s: max IOPS split %+v does not follow read ratio %v", name, tr.MaxIOPS, tr.ReadRatio)
			}
			if !near(tr.Utilization, tr.OfferedIOPS.Total/tr.MaxIOPS.Total, 1e-12) || tr.ServedUtilization > 1 {
				t.Errorf("%s: utilization %v / served %v inconsistent", name, tr.Utilization, tr.ServedUtilization)
			}
			if tr.Latency.At1_25x > tr.Latency.At1_5x || tr.Latency.At1_5x > tr.Latency.At2x || tr.Latency.Now > tr.Latency.At1_25x {
				t.Errorf("%s: latency not increasing with load: %+v", name, tr.Latency)
			}
		}
	}
}

// Conservation: with deviation 0 the capacity at read ratio r of one size is
// the harmonic combination 1/(r/R + (1−r)/W); pure read and pure write give
// the calibration points; the deviation lowers mixed capacity by 1+4dr(1−r).
func TestCapacityConservation(t *testing.T) {
	sc, err := LoadScenario("testdata/small.yml")
	if err != nil {
		t.Fatal(err)
	}
	const R, W = 8000.0, 3000.0
	for _, d := range []float64{0, 0.1} {
		for _, r := range []float64{0, 0.3, 0.6, 1} {
			sc.Capacity.ConservationDeviation = d
			sc.Load.ReadRatio = r
			sc.Load.Diurnal.Amplitude = 0
			c, err := New(sc, 1, testOrigin)
			if err != nil {
				t.Fatal(err)
			}
			tr := c.Truth(testOrigin, 0)
			want := 1 / ((r/R + (1-r)/W) * (1 + 4*d*r*(1-r)))
			if !near(tr.MaxIOPS.Total, want, 1e-12) {
				t.Errorf("d=%v r=%v: max IOPS %v, want %v", d, r, tr.MaxIOPS.Total, want)
			}
			// The op-share utilization of the conservation model is exactly
			// the truth's utilization when d = 0.
			if d == 0 {
				u := tr.OfferedIOPS.Read/R + tr.OfferedIOPS.Write/W
				if !near(u, tr.Utilization, 1e-12) {
					t.Errorf("r=%v: Σ rate_i/max_i = %v, truth utilization %v", r, u, tr.Utilization)
				}
			}
		}
	}
}

// The growth scenario saturates exactly 180 h after its origin.
func TestGrowthSaturationTime(t *testing.T) {
	c := mustCluster(t, "growth", 1)
	for _, from := range []time.Duration{0, 100 * time.Hour, 179 * time.Hour} {
		tr := c.Truth(testOrigin.Add(from), 0)
		if tr.SaturationTime == nil {
			t.Fatalf("from %s: no saturation time", from)
		}
		if got := tr.SaturationTime.Sub(testOrigin); got != 180*time.Hour {
			t.Errorf("from %s: saturation at origin+%s, want 180h", from, got)
		}
	}
	tr := c.Truth(testOrigin.Add(180*time.Hour), 0)
	if !near(tr.Utilization, 1, 1e-9) || !near(tr.MaxIOPS.Total, 25000, 1e-12) {
		t.Errorf("at 180h: utilization %v, max IOPS %v; want 1 and 25000", tr.Utilization, tr.MaxIOPS.Total)
	}
	if tr := c.Truth(testOrigin.Add(181*time.Hour), 0); tr.ServedIOPS.Total != tr.MaxIOPS.Total || tr.Latency.Now <= tr.Latency.Knee {
		t.Errorf("beyond saturation served %v must equal max %v and latency %v exceed the knee %v",
			tr.ServedIOPS.Total, tr.MaxIOPS.Total, tr.Latency.Now, tr.Latency.Knee)
	}
}

// Values depend only on (scenario, seed, origin, t): a fresh cluster, a
// rewound one and one that skipped ahead agree; another seed differs.
func TestSampleDeterministic(t *testing.T) {
	a := mustCluster(t, "steady", 7)
	at := testOrigin.Add(3*time.Hour + 7*time.Second + 300*time.Millisecond)
	s1 := a.Sample(at)
	_ = a.Sample(at.Add(5 * time.Hour)) // move the cursor past, then rewind
	s2 := a.Sample(at)
	s3 := mustCluster(t, "steady", 7).Sample(at)
	s4 := mustCluster(t, "steady", 8).Sample(at)
	if !sameSample(s1, s2) || !sameSample(s1, s3) {
		t.Fatal("the same instant gave different values")
	}
	if sameSample(s1, s4) {
		t.Fatal("seeds 7 and 8 gave identical values")
	}
}

func sameSample(a, b Sample) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func seriesValue(s Sample, instance, name string, labels map[string]string) (float64, bool) {
	for _, tg := range s.Targets {
		if tg.Instance != instance {
			continue
		}
	next:
		for _, se := range tg.Series {
			if se.Name != name {
				continue
			}
			for k, v := range labels {
				if se.Labels[k] != v {
					continue next
				}
			}
			return se.Value, true
		}
	}
	return 0, false
}

// Counters follow the truth: over an hour, the pool read counter grows by the
// integral of the true served read IOPS times the pool share, the latency
// ratio of _sum/_count matches the true mean latency, and counters never go
// down except when their OSD restarts.
func TestCountersFollowTruth(t *testing.T) {
	c := mustCluster(t, "testdata/small.yml", 3)
	t0 := testOrigin.Add(10 * time.Hour)
	t1 := t0.Add(10 * time.Minute)
	s0, s1 := c.Sample(t0), c.Sample(t1)
	var wantReads, wantLat float64
	for tt := t0; tt.Before(t1); tt = tt.Add(Tick) {
		tr := c.Truth(tt, 0)
		wantReads += tr.ServedIOPS.Read * tickSeconds
		wantLat += tr.Latency.Now / float64(t1.Sub(t0)/Tick)
	}
	r0, _ := seriesValue(s0, "ceph-mgr:9283", "ceph_pool_rd", map[string]string{"pool_id": "1"})
	r1, _ := seriesValue(s1, "ceph-mgr:9283", "ceph_pool_rd", map[string]string{"pool_id": "1"})
	if got := r1 - r0; !near(got, 0.75*wantReads, 0.01) {
		t.Errorf("pool 1 reads over 10m: %v, want %v ± 1%%", got, 0.75*wantReads)
	}
	var sum, cnt float64
	for _, osd := range []string{"osd.0", "osd.1"} {
		a0, _ := seriesValue(s0, "ceph-mgr:9283", "ceph_osd_op_latency_sum", map[string]string{"ceph_daemon": osd})
		a1, _ := seriesValue(s1, "ceph-mgr:9283", "ceph_osd_op_latency_sum", map[string]string{"ceph_daemon": osd})
		b0, _ := seriesValue(s0, "ceph-mgr:9283", "ceph_osd_op_latency_count", map[string]string{"ceph_daemon": osd})
		b1, _ := seriesValue(s1, "ceph-mgr:9283", "ceph_osd_op_latency_count", map[string]string{"ceph_daemon": osd})
		sum += a1 - a0
		cnt += b1 - b0
	}
	if got := sum / cnt; !near(got, wantLat, 0.02) {
		t.Errorf("mean op latency over 10m: %v, want %v ± 2%%", got, wantLat)
	}
}

func TestCounterResetsAndGaps(t *testing.T) {
	sc, err := LoadScenario("testdata/small.yml")
	if err != nil {
		t.Fatal(err)
	}
	sc.Faults.RestartsPerOSDPerDay = 24 // one an hour per OSD
	sc.Faults.ScrapeGapsPerDay = 12
	c, err := New(sc, 5, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	var resets, gaps, samples int
	prev := map[string]float64{}
	for tt := testOrigin; tt.Before(testOrigin.Add(12 * time.Hour)); tt = tt.Add(15 * time.Second) {
		s := c.Sample(tt)
		for _, tg := range s.Targets {
			samples++
			if !tg.Up {
				gaps++
				if len(tg.Series) != 0 {
					t.Fatalf("target %s down with %d series", tg.Instance, len(tg.Series))
				}
				continue
			}
			for _, se := range tg.Series {
				if se.Name != "ceph_osd_op_r" && se.Name != "ceph_pool_rd" && se.Name != "node_cpu_seconds_total" {
					continue
				}
				key := se.Name + se.Labels["ceph_daemon"] + se.Labels["pool_id"] + se.Labels["cpu"] + se.Labels["mode"] + tg.Instance
				if p, ok := prev[key]; ok && se.Value < p {
					if se.Name != "ceph_osd_op_r" {
						t.Fatalf("%s went down: %v -> %v", key, p, se.Value)
					}
					resets++
				}
				prev[key] = se.Value
			}
		}
	}
	if resets < 10 || resets > 40 {
		t.Errorf("%d OSD counter resets in 12h with 2 OSDs at 1/h, want about 24", resets)
	}
	if gaps == 0 || gaps > samples/10 {
		t.Errorf("%d of %d scrapes in gaps, want a few", gaps, samples)
	}
	// A gap answers 503 over HTTP.
	for tt := testOrigin; tt.Before(testOrigin.Add(12 * time.Hour)); tt = tt.Add(15 * time.Second) {
		if c.inGap(0, c.secondsAt(tt)) {
			rec := httptest.NewRecorder()
			c.HandlerWithClock(func() time.Time { return tt }).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			if rec.Code != http.StatusServiceUnavailable {
				t.Errorf("in a gap /metrics answered %d", rec.Code)
			}
			break
		}
	}
}

// Hosts come and go with add_hosts/remove_hosts events.
func TestScaleOutTargets(t *testing.T) {
	c := mustCluster(t, "scale-out", 1)
	for _, tc := range []struct {
		at    time.Duration
		hosts int
	}{{time.Hour, 3}, {3*24*time.Hour + time.Hour, 4}, {6*24*time.Hour + time.Hour, 3}} {
		tr := c.Truth(testOrigin.Add(tc.at), 0)
		n := 0
		for _, tg := range c.Targets(testOrigin.Add(tc.at)) {
			if tg.Job == "node" {
				n++
			}
		}
		if tr.Hosts != tc.hosts || n != tc.hosts || tr.OSDsUp != 4*tc.hosts {
			t.Errorf("at %s: truth %d hosts %d OSDs, %d node targets; want %d hosts", tc.at, tr.Hosts, tr.OSDsUp, n, tc.hosts)
		}
	}
	before := c.Truth(testOrigin.Add(3*24*time.Hour-time.Second), 0)
	after := c.Truth(testOrigin.Add(3*24*time.Hour), 0)
	if !near(after.MaxIOPS.Total/before.MaxIOPS.Total, 4.0/3, 1e-9) {
		t.Errorf("adding a 4th host scaled capacity by %v, want 4/3", after.MaxIOPS.Total/before.MaxIOPS.Total)
	}
	nn := c.Truth(testOrigin.Add(5*24*time.Hour+time.Hour), 0)
	if !near(nn.MaxIOPS.Total/after.MaxIOPS.Total, 0.7, 1e-9) {
		t.Errorf("noisy neighbour: capacity ratio %v, want 0.7", nn.MaxIOPS.Total/after.MaxIOPS.Total)
	}
	rec := httptest.NewRecorder()
	c.HandlerWithClock(func() time.Time { return testOrigin.Add(time.Hour) }).ServeHTTP(rec, httptest.NewRequest("GET", "/hosts/ceph-node-4/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("host 4 before it joined: HTTP %d, want 404", rec.Code)
	}
}

func TestTruthEndpoint(t *testing.T) {
	c := mustCluster(t, "growth", 1)
	h := c.HandlerWithClock(func() time.Time { return testOrigin.Add(24 * time.Hour) })
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/truth?slo_seconds=0.005", nil))
	if rec.Code != 200 {
		t.Fatalf("/truth: HTTP %d: %s", rec.Code, rec.Body)
	}
	var tr Truth
	if err := json.Unmarshal(rec.Body.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	want := c.Truth(testOrigin.Add(24*time.Hour), 0.005)
	if tr.SLOSeconds != 0.005 || tr.MaxIOPS != want.MaxIOPS || tr.SLOCrossingIOPS != want.SLOCrossingIOPS ||
		tr.SaturationTime == nil || !tr.SaturationTime.Equal(testOrigin.Add(180*time.Hour)) {
		t.Errorf("/truth = %+v, want %+v", tr, want)
	}
	for _, bad := range []string{"/truth?slo_seconds=-1", "/truth?slo_seconds=x", "/truth?time=yesterday"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", bad, nil))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s: HTTP %d, want 400", bad, rec.Code)
		}
	}
}

func scrape(t *testing.T, c *Cluster, at time.Time, path string) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	c.HandlerWithClock(func() time.Time { return at }).ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != 200 {
		t.Fatalf("GET %s at %s: HTTP %d: %s", path, at, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// goldenAt is an instant outside the steady scenario's scrape gaps (seed 1).
var goldenAt = testOrigin.Add(26*time.Hour + 13*time.Minute + 7*time.Second)

func TestGoldenMetrics(t *testing.T) {
	c := mustCluster(t, "steady", 1)
	for _, g := range []struct{ path, file string }{
		{"/metrics", "testdata/golden.prom"},
		{"/hosts/ceph-node-2/metrics", "testdata/golden-node.prom"},
	} {
		got := scrape(t, c, goldenAt, g.path)
		if *update {
			if err := os.WriteFile(g.file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(g.file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (run go test ./storagesim -run TestGoldenMetrics -update after checking the change)", g.path, g.file)
		}
	}
}

// upstreamLint lists the promtool lint findings that the real exporters also
// produce, because the simulator keeps their exact metric names: ceph-mgr
// exposes counters without _total and _sum/_count pairs as separate counters,
// node_exporter has camelCase /proc field names.
var upstreamLint = []string{
	`counter metrics should have "_total" suffix`,
	`non-histogram and non-summary metrics should not have "_sum" suffix`,
	`non-histogram and non-summary metrics should not have "_count" suffix`,
	`metric names should be written in 'snake_case' not 'camelCase'`,
	`metric names should not contain abbreviated units`, // ceph_osd_apply_latency_ms
}

func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := testtool.Need(t, "promtool")
	// Every target of one Ceph scenario, and the cluster target of each
	// personality.
	for _, scenario := range []string{"steady", "swift", "closed-loop"} {
		if _, err := LoadScenario(scenario); err != nil {
			continue // not shipped (yet)
		}
		c := mustCluster(t, scenario, 1)
		at := goldenAt
		for c.inGap(0, c.secondsAt(at)) || c.inGap(1, c.secondsAt(at)) {
			at = at.Add(time.Minute)
		}
		for i, tg := range c.Targets(at) {
			if scenario == "swift" && i > 0 {
				break
			}
			body := scrape(t, c, at, tg.Path)
			cmd := exec.Command(promtool, "check", "metrics")
			cmd.Stdin = bytes.NewReader(body)
			out, err := cmd.CombinedOutput()
			if err == nil {
				continue
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
				t.Fatalf("%s %s: promtool check metrics: %v\n%s", scenario, tg.Path, err, out)
			}
			// Exit code 3: lint problems only. Each must be an upstream name.
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				ok := false
				for _, l := range upstreamLint {
					ok = ok || strings.HasSuffix(line, l)
				}
				if !ok {
					t.Errorf("%s %s: promtool: %s", scenario, tg.Path, line)
				}
			}
		}
	}
}

func TestExamplePrometheusConfig(t *testing.T) {
	promtool := testtool.Need(t, "promtool")
	if out, err := exec.Command(promtool, "check", "config", "examples/prometheus.yml").CombinedOutput(); err != nil {
		t.Fatalf("promtool check config examples/prometheus.yml: %v\n%s", err, out)
	}
}

// Scrapes, samples and truths may run concurrently (go test -race).
func TestConcurrentUse(t *testing.T) {
	c := mustCluster(t, "scale-out", 2)
	want := c.Sample(testOrigin.Add(2 * time.Hour))
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func(g int) {
			ok := true
			for i := 0; i < 5; i++ {
				at := testOrigin.Add(time.Duration(g*7+i) * 13 * time.Minute)
				_ = c.Truth(at, 0)
				rec := httptest.NewRecorder()
				c.HandlerWithClock(func() time.Time { return at }).ServeHTTP(rec, httptest.NewRequest("GET", "/hosts/ceph-node-1/metrics", nil))
				ok = ok && (rec.Code == 200 || rec.Code == 503)
				ok = ok && sameSample(c.Sample(testOrigin.Add(2*time.Hour)), want)
			}
			done <- ok
		}(g)
	}
	for g := 0; g < 4; g++ {
		if !<-done {
			t.Error("concurrent use gave a different sample or a bad scrape")
		}
	}
}
