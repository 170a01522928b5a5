package storagesim

import (
	"math"
	"testing"
)

// The MVA against closed forms it must reproduce: one queue alone, K
// identical queues (a balanced network), and one queue behind a delay (the
// machine-repairman model, M/M/1//N).
func TestMVAKnownTruths(t *testing.T) {
	const c = 1000.0 // IOPS; demands are in units of 1/c
	// One station, no delay: the queue is never empty, X(N) = 1/D for N ≥ 1.
	one := closedNet{capacity: c, visits: []float64{1}}
	for _, n := range []float64{1, 2, 5, 37, 1000} {
		if x, r := one.at(n); !near(x, c, 1e-12) || !near(r, n/c, 1e-12) {
			t.Errorf("one queue, N=%v: X %v, R %v; want %v, %v", n, x, r, c, n/c)
		}
	}
	// K identical stations, no delay: X(N) = N/(D·(N + K − 1)).
	for _, k := range []int{2, 5, 12} {
		v := make([]float64, k)
		for i := range v {
			v[i] = 1
		}
		nw := closedNet{capacity: c, visits: v}
		for n := 1; n <= 300; n++ {
			want := float64(n) / (float64(n+k-1) / c)
			if x, _ := nw.at(float64(n)); !near(x, want, 1e-12) {
				t.Errorf("%d identical queues, N=%d: X %v, want %v", k, n, x, want)
			}
		}
	}
	// One queue (demand D) behind a delay Z: X(N) = (1 − p0)/D with
	// 1/p0 = Σ_{j=0..N} N!/(N−j)!·(D/Z)^j.
	for _, z := range []float64{0.5, 1, 8} {
		nw := closedNet{capacity: c, z: z, visits: []float64{1}}
		for n := 1; n <= 60; n++ {
			sum, term := 1.0, 1.0
			for j := 1; j <= n; j++ {
				term *= float64(n-j+1) / z
				sum += term
			}
			want := (1 - 1/sum) * c
			if x, _ := nw.at(float64(n)); !near(x, want, 1e-12) {
				t.Errorf("repairman Z=%v, N=%d: X %v, want %v", z, n, x, want)
			}
		}
	}
}

// On the closed-loop scenario's network: Little's law at any population,
// throughput increasing to capacity, latency non-decreasing, and the
// inverses (latency at a throughput, population at a latency) agreeing with
// the forward solution.
func TestMVAMonotoneAndLittle(t *testing.T) {
	tr := mustCluster(t, "closed-loop", 1).Truth(testOrigin, 0)
	nw := tr.st.closedNet()
	if len(nw.visits) != 12 || nw.z <= 0 {
		t.Fatalf("network: %d OSDs, delay %v", len(nw.visits), nw.z)
	}
	prevX, prevR := -1.0, 0.0
	for n := 0.0; n <= 600; n += 0.25 {
		x, r := nw.at(n)
		if !near(x*r, n, 1e-12) {
			t.Errorf("N=%v: X·R = %v", n, x*r)
		}
		if x <= prevX || r < prevR || x >= nw.capacity {
			t.Errorf("N=%v: X %v (previous %v, capacity %v), R %v (previous %v): want X increasing below capacity, R non-decreasing", n, x, prevX, nw.capacity, r, prevR)
		}
		if n > 1 && r <= prevR {
			t.Errorf("N=%v: R %v not above %v", n, r, prevR)
		}
		if got := nw.latencyAt(x); !near(got, r, 1e-9) {
			t.Errorf("N=%v: latency at X = %v is %v, want R = %v", n, x, got, r)
		}
		if n > 1 {
			if got := nw.atLatency(r); !near(got, n, 1e-9) {
				t.Errorf("N=%v: population at R = %v is %v", n, r, got)
			}
		}
		prevX, prevR = x, r
	}
	if x, _ := nw.at(5000); x < 0.999*nw.capacity {
		t.Errorf("N=5000: X %v, want within 0.1%% of capacity %v", x, nw.capacity)
	}
	if got := nw.latencyAt(nw.capacity); !math.IsInf(got, 1) {
		t.Errorf("latency at capacity %v, want +Inf", got)
	}
	if got := nw.atLatency(0.5 * tr.Latency.ZeroLoad); got != 0 {
		t.Errorf("population at half the zero-load latency: %v, want 0", got)
	}
	// Past the recursion each request adds D_max = 1/capacity, continuously.
	m := float64(nw.maxPopulation())
	_, r0 := nw.at(m)
	_, r1 := nw.at(m + 10)
	if !near(r1-r0, 10/nw.capacity, 1e-9) {
		t.Errorf("beyond %g: R grows by %v over 10 requests, want %v", m, r1-r0, 10/nw.capacity)
	}
}

// TestMVAWorkBounded: the exact recursion stops at mvaMaxWork
// multiply-adds whatever the network's size, so a scenario of thousands of
// OSDs cannot stall a tick; 12 OSDs run it to 1<<16 requests.
func TestMVAWorkBounded(t *testing.T) {
	for _, k := range []int{1, 12, 1000, 10000, 1 << 23} {
		nw := closedNet{capacity: 1000, visits: make([]float64, k)}
		p := nw.maxPopulation()
		if p < 1 || p > 1<<16 || (p > 1 && p*k > mvaMaxWork) {
			t.Errorf("%d stations: recursion to %d requests (%d steps), want within [1, 65536] and %d steps", k, p, p*k, mvaMaxWork)
		}
	}
	if p := (closedNet{visits: make([]float64, 12)}).maxPopulation(); p != 1<<16 {
		t.Errorf("12 stations: recursion to %d requests, want 65536", p)
	}
}

// TestLoadAtLatencyNotPositive: no load has a latency of 0 or less, closed
// loop or open (a closed loop's answer was 0/0, NaN).
func TestLoadAtLatencyNotPositive(t *testing.T) {
	for _, sc := range []string{"closed-loop", "growth-interference"} {
		tr := mustCluster(t, sc, 1).Truth(testOrigin, 0)
		for _, lat := range []float64{0, -1} {
			if got := tr.LoadAtLatency(lat); got != 0 {
				t.Errorf("%s: LoadAtLatency(%v) = %v, want 0", sc, lat, got)
			}
		}
	}
}
