package insideout

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The synthetic cluster used by the tests and the benchmark. Its truth is
// known: each target is the sum over OSD hosts of one disk counter, measured
// with 1% noise; every host counter carries 2% noise. Beside the relevant
// counters each host reports load-correlated distractors (cpu, network,
// memory) and pure-noise counters, so the learner must find the few sums
// among 4 × (role, metric) features.
//
// Recipe (window i of a data set with seed s): rng = PCG(s, i); the number
// of OSD hosts is uniform in [minHosts, maxHosts], 3 MON hosts; read IOPS
// R ~ U(1e3, 2e4), write IOPS W ~ U(5e2, 1e4), read size ~ U(4, 64) KiB,
// write size ~ U(4, 64) KiB; host h gets a share s_h ∝ U(0.5, 1.5) of the
// load.

var relevantOSD = []string{"disk_read_ops", "disk_write_ops", "disk_read_bytes", "disk_write_bytes"}

// synthSchema has osdMetrics metrics for role osd and monMetrics for mon.
func synthSchema(osdMetrics, monMetrics int) Schema {
	osd := append([]string(nil), relevantOSD...)
	osd = append(osd, "cpu_busy", "net_rx_bytes", "net_tx_bytes", "mem_used_bytes")
	for i := len(osd); i < osdMetrics; i++ {
		osd = append(osd, fmt.Sprintf("noise_%02d", i))
	}
	mon := []string{"cpu_busy", "net_rx_bytes"}
	for i := len(mon); i < monMetrics; i++ {
		mon = append(mon, fmt.Sprintf("noise_%02d", i))
	}
	return Schema{Roles: []RoleMetrics{{Role: "mon", Metrics: mon[:monMetrics]}, {Role: "osd", Metrics: osd[:osdMetrics]}}}
}

// synthWindow draws one window and its measured targets.
func synthWindow(seed uint64, i int, minHosts, maxHosts int, s Schema) (Window, map[Target]float64) {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	u := func(a, b float64) float64 { return a + (b-a)*rng.Float64() }
	noisy := func(v, rel float64) float64 { return v * (1 + rel*rng.NormFloat64()) }
	hosts := minHosts + rng.IntN(maxHosts-minHosts+1)
	R, W := u(1e3, 2e4), u(5e2, 1e4)
	rs, ws := u(4, 64)*1024, u(4, 64)*1024
	shares := make([]float64, hosts)
	var tot float64
	for h := range shares {
		shares[h] = u(0.5, 1.5)
		tot += shares[h]
	}
	w := Window{"osd": {}, "mon": {}}
	for h := 0; h < hosts; h++ {
		sh := shares[h] / tot
		m := map[string]float64{
			"disk_read_ops":    noisy(R*sh, 0.02),
			"disk_write_ops":   noisy(W*sh, 0.02),
			"disk_read_bytes":  noisy(R*rs*sh, 0.02),
			"disk_write_bytes": noisy(W*ws*sh, 0.02),
			"cpu_busy":         math.Min(1, noisy(0.05+(R+3*W)*sh/2e4, 0.2)),
			"net_rx_bytes":     noisy((W*ws)*sh*1.5+1e5, 0.2),
			"net_tx_bytes":     noisy((R*rs)*sh+1e5, 0.2),
			"mem_used_bytes":   noisy(8e9, 0.05),
		}
		for _, name := range s.Roles[1].Metrics {
			if _, ok := m[name]; !ok {
				m[name] = u(0, 100)
			}
		}
		w["osd"][fmt.Sprintf("osd-%d", h)] = m
	}
	for h := 0; h < 3; h++ {
		m := map[string]float64{"cpu_busy": noisy(0.1, 0.3), "net_rx_bytes": noisy(1e6+(R+W)*10, 0.3)}
		for _, name := range s.Roles[0].Metrics {
			if _, ok := m[name]; !ok {
				m[name] = u(0, 100)
			}
		}
		w["mon"][fmt.Sprintf("mon-%d", h)] = m
	}
	return w, map[Target]float64{
		ReadIOPS:   noisy(R, 0.01),
		WriteIOPS:  noisy(W, 0.01),
		ReadBytes:  noisy(R*rs, 0.01),
		WriteBytes: noisy(W*ws, 0.01),
	}
}

// synthWindows returns n windows and their targets.
func synthWindows(seed uint64, n, minHosts, maxHosts int, s Schema) ([]Window, map[Target][]float64) {
	ws := make([]Window, n)
	ys := map[Target][]float64{}
	for i := range ws {
		w, y := synthWindow(seed, i, minHosts, maxHosts, s)
		ws[i] = w
		for t, v := range y {
			ys[t] = append(ys[t], v)
		}
	}
	return ws, ys
}

// synthMatrix aggregates n windows on the fly (the windows are not kept), for
// large data sets.
func synthMatrix(seed uint64, n, minHosts, maxHosts int, s Schema) (*mat.Dense, map[Target][]float64) {
	X := mat.NewDense(n, s.NumFeatures(), nil)
	ys := map[Target][]float64{}
	for i := 0; i < n; i++ {
		w, y := synthWindow(seed, i, minHosts, maxHosts, s)
		if _, err := s.aggregateInto(X.RawRowView(i)[:0], w, nil); err != nil {
			panic(err)
		}
		for t, v := range y {
			ys[t] = append(ys[t], v)
		}
	}
	return X, ys
}
