package storagesim

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// newScenarios are the scenarios that break the models' assumptions.
var newScenarios = []string{"interference", "closed-loop", "growth-interference"}

// frontierUtilByClass is the scenario's U written per op class, as the
// scenario documents it: a_S = read IOPS of size S / read_iops(S), b_S
// likewise for writes, U = Σ (a+b+4γab) + 4η Σ_{S<S'} (a_S+b_S)(a_S'+b_S').
// It is written independently of frontierCoefficients so that the algebra
// there is checked.
func frontierUtilByClass(sc *Scenario, readIOPS, writeIOPS []float64, scale float64) float64 {
	var u float64
	c := make([]float64, len(readIOPS))
	for i := range readIOPS {
		pt := sc.Capacity.Points[i]
		a := readIOPS[i] / (pt.ReadIOPS * scale)
		b := writeIOPS[i] / (pt.WriteIOPS * scale)
		g := 0.0
		if sc.gamma != nil {
			g = sc.gamma[i]
		}
		u += a + b + 4*g*a*b
		c[i] = a + b
	}
	eta := 0.0
	if sc.Capacity.Interference != nil {
		eta = sc.Capacity.Interference.BetweenSizes
	}
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			u += 4 * eta * c[i] * c[j]
		}
	}
	return u
}

// classRates splits a total rate over read/write and the sizes of a truth.
func classRates(tr Truth, total float64) (rd, wr []float64) {
	for _, m := range tr.Mix {
		rd = append(rd, total*tr.ReadRatio*m.OpShare)
		wr = append(wr, total*(1-tr.ReadRatio)*m.OpShare)
	}
	return rd, wr
}

// twoPointMaxIOPS is the conservation law's capacity at the truth's mix,
// calibrated with the exact pure-read and pure-write points (the harmonic,
// op-share form of Ra & Lee's conservation of processing capability).
func twoPointMaxIOPS(sc *Scenario, tr Truth) float64 {
	var work float64
	for i, m := range tr.Mix {
		pt := sc.Capacity.Points[i]
		work += m.OpShare * (tr.ReadRatio/pt.ReadIOPS + (1-tr.ReadRatio)/pt.WriteIOPS)
	}
	return tr.st.scale / work
}

var selfConsistencyTimes = []time.Duration{0, 5 * time.Hour, 11*time.Hour + 59*time.Minute, 12*time.Hour + 5*time.Minute, 13 * time.Hour, 20 * time.Hour,
	30 * time.Hour, 36 * time.Hour, 2*24*time.Hour + 14*time.Hour, 50 * time.Hour, 4*24*time.Hour + 3*time.Hour, 6*24*time.Hour + 14*time.Hour}

// The frontier: served IOPS never exceed it, U(MaxIOPS) = 1, the per-class
// utilization agrees with the coefficients, and FrontierUtilization is U of
// the load.
func TestFrontierSelfConsistent(t *testing.T) {
	for _, name := range newScenarios {
		c := mustCluster(t, name, 1)
		for _, at := range selfConsistencyTimes {
			tr := c.Truth(testOrigin.Add(at), 0)
			if tr.ServedIOPS.Total > tr.MaxIOPS.Total*(1+1e-12) {
				t.Errorf("%s at %s: served %v above the frontier %v", name, at, tr.ServedIOPS.Total, tr.MaxIOPS.Total)
			}
			if u := tr.UtilizationAt(tr.MaxIOPS.Total); math.Abs(u-1) > 1e-9 {
				t.Errorf("%s at %s: U(max IOPS) = %v, want 1", name, at, u)
			}
			rd, wr := classRates(tr, tr.MaxIOPS.Total)
			if u := frontierUtilByClass(c.sc, rd, wr, tr.st.scale); math.Abs(u-1) > 1e-9 {
				t.Errorf("%s at %s: per-class U at max IOPS = %v, want 1", name, at, u)
			}
			load := tr.OfferedIOPS.Total
			rd, wr = classRates(tr, load)
			if u := frontierUtilByClass(c.sc, rd, wr, tr.st.scale); !near(u, tr.FrontierUtilization, 1e-9) {
				t.Errorf("%s at %s: per-class U of the load = %v, FrontierUtilization %v", name, at, u, tr.FrontierUtilization)
			}
			if !near(tr.HeadroomRatio, math.Max(0, 1-tr.Utilization), 1e-12) {
				t.Errorf("%s at %s: headroom ratio %v, want 1 − %v", name, at, tr.HeadroomRatio, tr.Utilization)
			}
			if tr.FrontierUtilization < 1 && tr.FrontierUtilization > tr.Utilization*(1+1e-12) {
				t.Errorf("%s at %s: U %v above the load ratio %v (U is convex in the load)", name, at, tr.FrontierUtilization, tr.Utilization)
			}
			m, err := tr.MaxIOPSAt(tr.ReadRatio, mixShares(tr))
			if err != nil || !near(m, tr.MaxIOPS.Total, 1e-12) {
				t.Errorf("%s at %s: MaxIOPSAt(current mix) = %v, %v; want %v", name, at, m, err, tr.MaxIOPS.Total)
			}
		}
	}
}

func mixShares(tr Truth) []float64 {
	var p []float64
	for _, m := range tr.Mix {
		p = append(p, m.OpShare)
	}
	return p
}

// Saturated: offered far beyond capacity, the cluster serves exactly the
// frontier, and the served per-class rates have U = 1.
func TestSaturatedServedFollowsFrontier(t *testing.T) {
	sc, err := LoadScenario("interference")
	if err != nil {
		t.Fatal(err)
	}
	sc.Load.BaseIOPS *= 3
	c, err := New(sc, 1, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range selfConsistencyTimes {
		tr := c.Truth(testOrigin.Add(at), 0)
		if tr.OfferedIOPS.Total <= tr.MaxIOPS.Total || tr.ServedIOPS != tr.MaxIOPS {
			t.Fatalf("at %s: offered %v, served %+v, max %+v: want saturated and served = max", at, tr.OfferedIOPS.Total, tr.ServedIOPS, tr.MaxIOPS)
		}
		rd, wr := classRates(tr, tr.ServedIOPS.Total)
		if u := frontierUtilByClass(c.sc, rd, wr, tr.st.scale); math.Abs(u-1) > 1e-9 {
			t.Errorf("at %s: U of the served rates = %v, want 1", at, u)
		}
		if tr.SaturationTime == nil || !tr.SaturationTime.Equal(tr.Time) {
			t.Errorf("at %s: saturated now but saturation time %v", at, tr.SaturationTime)
		}
	}
}

// The paper's two-point conservation model, calibrated with the exact
// pure-read and pure-write capacities, over-predicts the interference
// scenario's capacity by 10-20% at 50/50 (and at 30% and 70% reads).
func TestInterferenceBreaksTwoPointModel(t *testing.T) {
	c := mustCluster(t, "interference", 1)
	for _, tc := range []struct {
		at   time.Duration
		read float64
	}{{2*24*time.Hour + 18*time.Hour, 0.5}, {36 * time.Hour, 0.3}, {6 * time.Hour, 0.7}} {
		tr := c.Truth(testOrigin.Add(tc.at), 0)
		if math.Abs(tr.ReadRatio-tc.read) > 1e-12 {
			t.Fatalf("at %s: read ratio %v, want %v", tc.at, tr.ReadRatio, tc.read)
		}
		tp := twoPointMaxIOPS(c.sc, tr)
		if e := (tp - tr.MaxIOPS.Total) / tr.MaxIOPS.Total; e < 0.10 || e > 0.20 {
			t.Errorf("%.0f%% reads: two-point %v vs true %v: error %.1f%%, want 10-20%%", 100*tc.read, tp, tr.MaxIOPS.Total, 100*e)
		}
	}
	// A single size at pure read or pure write is exactly its calibration
	// point: interference only bends mixes.
	tr := c.Truth(testOrigin, 0)
	for _, tc := range []struct {
		r    float64
		want float64
	}{{1, 36000}, {0, 12000}} {
		m, err := tr.MaxIOPSAt(tc.r, []float64{1, 0})
		if err != nil || !near(m, tc.want, 1e-12) {
			t.Errorf("4KiB at read ratio %v: %v, %v; want %v", tc.r, m, err, tc.want)
		}
	}
	// By hand at 4KiB 50/50: U = X/72000 + X/24000 + 1.2·X²/(72000·24000),
	// so with y = X/18000: y + 0.225·y² = 1, y = (√1.9 − 1)/0.45.
	m, err := tr.MaxIOPSAt(0.5, []float64{1, 0})
	if want := 18000 * (math.Sqrt(1.9) - 1) / 0.45; err != nil || !near(m, want, 1e-12) {
		t.Errorf("4KiB 50/50: %v, %v; want %v", m, err, want)
	}
	for _, bad := range []struct {
		r     float64
		share []float64
		msg   string
	}{
		{1.5, []float64{1, 0}, "readRatio = 1.5, must be in [0, 1]"},
		{0.5, []float64{1}, "opShare has 1 entries, want 2"},
		{0.5, []float64{0.5, 0.6}, "opShare sums to 1.1, must sum to 1"},
		{0.5, []float64{math.NaN(), 1}, "opShare[0] = NaN, must be >= 0"},
	} {
		if _, err := tr.MaxIOPSAt(bad.r, bad.share); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("MaxIOPSAt(%v, %v): %v, want %q", bad.r, bad.share, err, bad.msg)
		}
	}
}

// Closed loop: Little's law N = X·L holds at every instant, U is the
// throughput over capacity (no interference here), throughput rises with
// the clients and flattens below capacity, and latency then grows like
// N / capacity.
func TestClosedLoopLittlesLaw(t *testing.T) {
	c := mustCluster(t, "closed-loop", 1)
	prevX, prevN := 0.0, 0.0
	for h := 0; h <= 54; h++ {
		tr := c.Truth(testOrigin.Add(time.Duration(h)*time.Hour+30*time.Minute), 0)
		n, x, l := tr.Clients.Outstanding, tr.ServedIOPS.Total, tr.Latency.Now
		if !near(x*l, n, 1e-9) {
			t.Errorf("h=%d: X·L = %v·%v = %v, want N = %v", h, x, l, x*l, n)
		}
		if x != tr.OfferedIOPS.Total || x >= tr.MaxIOPS.Total || tr.SaturationTime != nil {
			t.Errorf("h=%d: closed loop offered %v served %v max %v saturation %v", h, tr.OfferedIOPS.Total, x, tr.MaxIOPS.Total, tr.SaturationTime)
		}
		if got := tr.LatencyAt(x); !near(got, l, 1e-12) {
			t.Errorf("h=%d: LatencyAt(X) = %v, latency now %v", h, got, l)
		}
		if u := tr.FrontierUtilization; !near(u, x/tr.MaxIOPS.Total, 1e-12) {
			t.Errorf("h=%d: U %v, want X/capacity %v", h, u, x/tr.MaxIOPS.Total)
		}
		if n > prevN && x <= prevX {
			t.Errorf("h=%d: more clients (%v > %v) but throughput %v ≤ %v", h, n, prevN, x, prevX)
		}
		prevX, prevN = x, n
		if xi, li, err := tr.AtOutstanding(n); err != nil || xi != x || !near(li, l, 1e-15) {
			t.Errorf("h=%d: AtOutstanding(N) = %v, %v, %v; want the state %v, %v", h, xi, li, err, x, l)
		}
	}
	tr := c.Truth(testOrigin, 0)
	for _, n := range []float64{0.5, 3, 18.7, 200, 1e5} {
		x, l, err := tr.AtOutstanding(n)
		if err != nil || !near(x*l, n, 1e-9) {
			t.Errorf("N=%v: X·L = %v (%v)", n, x*l, err)
		}
	}
	x, l, _ := tr.AtOutstanding(1e5)
	if x < 0.999*tr.MaxIOPS.Total || !near(l, 1e5/tr.MaxIOPS.Total, 1e-3) {
		t.Errorf("N=1e5: X = %v (max %v), L = %v (N/max %v): throughput must flatten at capacity", x, tr.MaxIOPS.Total, l, 1e5/tr.MaxIOPS.Total)
	}
	if _, _, err := tr.AtOutstanding(-1); err == nil || !strings.Contains(err.Error(), "n = -1, must be a finite number >= 0") {
		t.Errorf("AtOutstanding(-1): %v", err)
	}
	if _, _, err := mustCluster(t, "growth-interference", 1).Truth(testOrigin, 0).AtOutstanding(4); err == nil ||
		!strings.Contains(err.Error(), "has no closed-loop clients") {
		t.Errorf("AtOutstanding on an open loop: %v", err)
	}
	// The SLO knee in clients is Little's law at the knee in IOPS.
	if tr.Clients.SLOCrossingOutstanding == 0 || !near(tr.Clients.SLOCrossingOutstanding, tr.SLOCrossingIOPS*tr.SLOSeconds, 1e-12) {
		t.Errorf("SLO crossing: %v outstanding, %v IOPS", tr.Clients.SLOCrossingOutstanding, tr.SLOCrossingIOPS)
	}
	if x, l, _ := tr.AtOutstanding(tr.Clients.SLOCrossingOutstanding); !near(l, tr.SLOSeconds, 1e-9) || !near(x, tr.SLOCrossingIOPS, 1e-9) {
		t.Errorf("at the SLO crossing population: X %v L %v, want %v and %v", x, l, tr.SLOCrossingIOPS, tr.SLOSeconds)
	}
}

// Open loop: the shapes are M/D/1 and the hockey stick, not M/M/1; the knee
// for an SLO is the inverse of the latency curve and lies below capacity.
func TestOpenLoopShapes(t *testing.T) {
	md1 := &ClientSpec{Loop: "open", Shape: "md1"}
	hs := &ClientSpec{Loop: "open", Shape: "hockey_stick", Exponent: 3}
	for _, tc := range []struct {
		cl   *ClientSpec
		u    float64
		want float64
	}{
		{md1, 0, 1}, {md1, 0.5, 1.5}, {md1, 0.8, 3}, {md1, 0.9, 5.5}, // M/M/1 would give 2, 5, 10
		{hs, 0.5, 1.25}, {hs, 0.8, 1 + 0.512/0.2}, {hs, 0.9, 1 + 0.729/0.1},
	} {
		if got := tc.cl.shapeMult(tc.u); !near(got, tc.want, 1e-12) {
			t.Errorf("%s at U=%v: %v, want %v", tc.cl.Shape, tc.u, got, tc.want)
		}
		if got := tc.cl.shapeInverse(tc.want); math.Abs(got-tc.u) > 1e-12 {
			t.Errorf("%s inverse of %v: %v, want %v", tc.cl.Shape, tc.want, got, tc.u)
		}
	}
	c := mustCluster(t, "growth-interference", 1)
	for _, at := range selfConsistencyTimes {
		tr := c.Truth(testOrigin.Add(at), 0)
		if !near(tr.Latency.Knee, tr.LatencyAt(tr.MaxIOPS.Total), 1e-12) || !near(tr.Latency.Now, tr.LatencyAt(tr.OfferedIOPS.Total), 1e-12) {
			t.Errorf("at %s: knee %v / now %v disagree with LatencyAt", at, tr.Latency.Knee, tr.Latency.Now)
		}
		if u := tr.FrontierUtilization; u < openLoopOverload {
			if want := tr.Latency.ZeroLoad * (1 + u/(2*(1-u))); !near(tr.Latency.Now, want, 1e-12) {
				t.Errorf("at %s: latency %v, M/D/1 gives %v", at, tr.Latency.Now, want)
			}
		}
		for _, slo := range []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.04, 0.2} {
			k := c.Truth(testOrigin.Add(at), slo).SLOCrossingIOPS
			if k == 0 {
				if tr.Latency.ZeroLoad < slo {
					t.Errorf("at %s SLO %v: no knee though zero-load latency %v is below", at, slo, tr.Latency.ZeroLoad)
				}
				continue
			}
			if l := tr.LatencyAt(k); !near(l, slo, 1e-9) {
				t.Errorf("at %s SLO %v: latency at the knee %v = %v", at, slo, k, l)
			}
			if (slo < tr.Latency.Knee) != (k < tr.MaxIOPS.Total) {
				t.Errorf("at %s SLO %v (latency at capacity %v): knee %v vs capacity %v", at, slo, tr.Latency.Knee, k, tr.MaxIOPS.Total)
			}
		}
		if !(tr.Latency.Now < tr.Latency.At1_25x && tr.Latency.At1_25x < tr.Latency.At1_5x && tr.Latency.At1_5x < tr.Latency.At2x) {
			t.Errorf("at %s: latency not increasing with load: %+v", at, tr.Latency)
		}
	}
}

// growth-interference saturates about 12 h after the origin: the first
// second at which U of the offered load reaches 1.
func TestGrowthInterferenceCrossing(t *testing.T) {
	c := mustCluster(t, "growth-interference", 1)
	tr := c.Truth(testOrigin, 0)
	if tr.SaturationTime == nil {
		t.Fatal("no saturation time")
	}
	sat := tr.SaturationTime.Sub(testOrigin)
	if sat < 11*time.Hour+30*time.Minute || sat > 12*time.Hour+30*time.Minute {
		t.Errorf("saturates at origin + %s, want about 12h", sat)
	}
	at := c.Truth(*tr.SaturationTime, 0)
	before := c.Truth(tr.SaturationTime.Add(-time.Second), 0)
	if at.FrontierUtilization < 1 || before.FrontierUtilization >= 1 || at.FrontierUtilization-1 > 1e-4 {
		t.Errorf("U at the crossing %v, one second before %v", at.FrontierUtilization, before.FrontierUtilization)
	}
	if from := c.Truth(testOrigin.Add(6*time.Hour), 0); from.SaturationTime == nil || !from.SaturationTime.Equal(*tr.SaturationTime) {
		t.Errorf("asked at 6h: saturation %v, want %v", from.SaturationTime, tr.SaturationTime)
	}
	// Demand in IOPS grows much less than utilization up to the crossing.
	dGrowth := at.OfferedIOPS.Total / tr.OfferedIOPS.Total
	uGrowth := at.FrontierUtilization / tr.FrontierUtilization
	if dGrowth > 1.3 || uGrowth < 1.6 {
		t.Errorf("demand grew ×%.2f and utilization ×%.2f; want demand ≤ ×1.3, utilization ≥ ×1.6", dGrowth, uGrowth)
	}
}

// Every value of a new scenario is a function of (scenario, seed, origin,
// t); another seed changes the noise, not the truth.
func TestNewScenariosDeterministic(t *testing.T) {
	for _, name := range newScenarios {
		at := testOrigin.Add(30*time.Hour + 17*time.Minute + 3*time.Second)
		a := mustCluster(t, name, 7)
		b := mustCluster(t, name, 7)
		_ = b.Sample(testOrigin.Add(40 * time.Hour)) // b went ahead and rewinds
		if !sameSample(a.Sample(at), b.Sample(at)) {
			t.Errorf("%s: same seed, different samples", name)
		}
		ta, tb := a.Truth(at, 0), b.Truth(at, 0)
		ja, _ := json.Marshal(ta)
		jb, _ := json.Marshal(tb)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s: same seed, different truth", name)
		}
		o := mustCluster(t, name, 8)
		if sameSample(a.Sample(at), o.Sample(at)) {
			t.Errorf("%s: seeds 7 and 8 give the same sample", name)
		}
		to := o.Truth(at, 0)
		to.Seed = ta.Seed
		jo, _ := json.Marshal(to)
		if !bytes.Equal(ja, jo) {
			t.Errorf("%s: the truth depends on the seed", name)
		}
	}
}

// A CPU-bound host (closed-loop scenario): busy time bends below the demand,
// the load average keeps rising with it, and iowait follows the cube of the
// cluster's utilization rather than the busy time.
func TestSaturatingHostCPU(t *testing.T) {
	c := mustCluster(t, "closed-loop", 1)
	type obs struct{ busy, iowait, load1, u float64 }
	measure := func(at time.Duration) obs {
		t0, t1 := testOrigin.Add(at), testOrigin.Add(at+time.Hour)
		modes := func(s Sample) map[string]float64 {
			m := map[string]float64{}
			for _, tg := range s.Targets {
				if tg.Host != "ceph-node-1" {
					continue
				}
				for _, sr := range tg.Series {
					if sr.Name == "node_cpu_seconds_total" {
						m[sr.Labels["mode"]] += sr.Value
					}
					if sr.Name == "node_load1" {
						m["load1"] = sr.Value
					}
				}
			}
			return m
		}
		a, b := modes(c.Sample(t0)), modes(c.Sample(t1))
		var total float64
		for _, mode := range cpuModes {
			total += b[mode] - a[mode]
		}
		tr := c.Truth(t0, 0)
		return obs{busy: 1 - (b["idle"]-a["idle"]+b["iowait"]-a["iowait"])/total, iowait: (b["iowait"] - a["iowait"]) / total, load1: b["load1"], u: tr.FrontierUtilization}
	}
	lo, hi := measure(1*time.Hour), measure(49*time.Hour)
	n := float64(c.sc.Host.CPUs)
	if !(hi.busy > 0.85 && hi.busy < 0.99) {
		t.Errorf("busy at high load %v, want saturating near 1", hi.busy)
	}
	if hi.load1/n < 1.2 {
		t.Errorf("load1 per CPU at high load %v: the queued demand must show (busy %v)", hi.load1/n, hi.busy)
	}
	// Load per CPU grows more than busy does.
	if (hi.load1/lo.load1)/(hi.busy/lo.busy) < 1.3 {
		t.Errorf("load1 ×%.2f vs busy ×%.2f: load must grow faster than busy", hi.load1/lo.load1, hi.busy/lo.busy)
	}
	// iowait ∝ U³ while idle time leaves room for it (host noise 3% on the
	// per-tick shares); at high load it is what idle time is left.
	mid := measure(13 * time.Hour)
	want := math.Pow(mid.u/lo.u, 3)
	if got := mid.iowait / lo.iowait; math.Abs(got/want-1) > 0.05 {
		t.Errorf("iowait ratio %v, want (U ratio)³ = %v", got, want)
	}
	if mid.busy/lo.busy > 0.8*want {
		t.Errorf("busy ratio %v close to the iowait ratio %v: iowait must not follow busy", mid.busy/lo.busy, want)
	}
	if hi.busy+hi.iowait > 1+1e-9 {
		t.Errorf("busy %v + iowait %v exceed the CPU time", hi.busy, hi.iowait)
	}
}

// The closed-loop scenario's scrapes, byte for byte.
func TestGoldenMetricsClosedLoop(t *testing.T) {
	c := mustCluster(t, "closed-loop", 1)
	at := testOrigin.Add(40*time.Hour + 13*time.Minute + 7*time.Second)
	for _, g := range []struct{ path, file string }{
		{"/metrics", "testdata/golden-closed-loop.prom"},
		{"/hosts/ceph-node-2/metrics", "testdata/golden-closed-loop-node.prom"},
	} {
		got := scrape(t, c, at, g.path)
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
			t.Errorf("%s differs from %s (run go test ./storagesim -run TestGoldenMetricsClosedLoop -update after checking the change)", g.path, g.file)
		}
	}
}

// The scenarios that existed before the interference and client models
// produce exactly what they produced then: every scrape's digest and every
// /truth field of that time (testdata/legacy-digests.txt, written by the
// code before the change).
func TestLegacyScenariosUnchanged(t *testing.T) {
	f, err := os.Open("testdata/legacy-digests.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	clusters := map[string]*Cluster{}
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		lines++
		name, rest, _ := strings.Cut(line, " ")
		atS, rest, _ := strings.Cut(rest, " ")
		what, want, _ := strings.Cut(rest, " ")
		at, err := time.ParseDuration(atS)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		c := clusters[name]
		if c == nil {
			c = mustCluster(t, name, 1)
			clusters[name] = c
		}
		ts := testOrigin.Add(at)
		if what != "truth" {
			rec := httptest.NewRecorder()
			c.HandlerWithClock(func() time.Time { return ts }).ServeHTTP(rec, httptest.NewRequest("GET", what, nil))
			got := fmt.Sprintf("%x", sha256.Sum256(append([]byte(fmt.Sprint(rec.Code)), withoutFamiliesAddedSince(rec.Body.Bytes())...)))
			if got != want {
				t.Errorf("%s at %s: %s changed", name, at, what)
			}
			continue
		}
		var old, now map[string]any
		if err := json.Unmarshal([]byte(want), &old); err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(c.Truth(ts, 0))
		if err := json.Unmarshal(j, &now); err != nil {
			t.Fatal(err)
		}
		for k := range now {
			if _, ok := old[k]; !ok {
				delete(now, k) // fields added since
			}
		}
		if !reflect.DeepEqual(old, now) {
			t.Errorf("%s at %s: /truth changed:\n was %s\n now %s", name, at, want, j)
		}
	}
	if lines != 158 {
		t.Errorf("read %d digests, want 158", lines)
	}
}

// familiesAddedSince are the series added to the scrapes after the legacy
// digests were taken; like the /truth fields added since, they are left out
// of the comparison (every other line must be what it was).
var familiesAddedSince = []string{"node_disk_reads_merged_total", "node_disk_writes_merged_total"}

func withoutFamiliesAddedSince(body []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(body, []byte("\n")) {
		added := false
		for _, f := range familiesAddedSince {
			name := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("# HELP ")), []byte("# TYPE "))
			added = added || bytes.HasPrefix(name, []byte(f+" ")) || bytes.HasPrefix(name, []byte(f+"{"))
		}
		if !added {
			out = append(out, line...)
		}
	}
	return out
}

// /truth encodes for the new scenarios at every kind of instant (a closed
// loop's latency at capacity is infinite and must not leak into the JSON).
func TestTruthEndpointNewScenarios(t *testing.T) {
	for _, name := range newScenarios {
		c := mustCluster(t, name, 1)
		for _, at := range []time.Duration{0, 11 * time.Hour, 13 * time.Hour, 38 * time.Hour, 60 * time.Hour} {
			ts := testOrigin.Add(at)
			rec := httptest.NewRecorder()
			c.HandlerWithClock(func() time.Time { return ts }).ServeHTTP(rec, httptest.NewRequest("GET", "/truth", nil))
			var tr Truth
			if err := json.Unmarshal(rec.Body.Bytes(), &tr); rec.Code != 200 || err != nil {
				t.Fatalf("%s at %s: /truth HTTP %d, %v: %s", name, at, rec.Code, err, rec.Body)
			}
			want := c.Truth(ts, 0)
			if tr.MaxIOPS != want.MaxIOPS || tr.FrontierUtilization != want.FrontierUtilization || !reflect.DeepEqual(tr.Clients, want.Clients) || tr.Latency != want.Latency {
				t.Errorf("%s at %s: /truth %+v, want %+v", name, at, tr, want)
			}
			if (name == "interference") != (tr.Clients == nil) {
				t.Errorf("%s: clients %+v", name, tr.Clients)
			}
		}
	}
}

// MaxIOPSAt at the current mix is MaxIOPS for every shipped scenario (the
// legacy conservation deviation included).
func TestMaxIOPSAtCurrentMix(t *testing.T) {
	for _, name := range ScenarioNames() {
		c := mustCluster(t, name, 1)
		for _, at := range []time.Duration{0, 3*24*time.Hour + 2*time.Hour, 5*24*time.Hour + time.Hour} {
			tr := c.Truth(testOrigin.Add(at), 0)
			if m, err := tr.MaxIOPSAt(tr.ReadRatio, mixShares(tr)); err != nil || !near(m, tr.MaxIOPS.Total, 1e-12) {
				t.Errorf("%s at %s: MaxIOPSAt = %v, %v; MaxIOPS %v", name, at, m, err, tr.MaxIOPS.Total)
			}
		}
	}
}
