package storagesim_test

import (
	"fmt"
	"time"

	"github.com/storcast/storcast/storagesim"
)

// The growth scenario: 25000 IOPS of capacity at its mix, demand
// 10000·(1 + 0.2·days), so it saturates 180 h after the origin. By hand:
// L0 = 0.7·(0.5 ms + 4 KiB·8 ms/MiB) + 0.3·(1.5 ms + 4 KiB·8 ms/MiB) =
// 0.83125 ms, knee 20·L0 = 16.6 ms; at ρ = 0.48 latency L0/(1 − 0.95·0.48)
// = 1.53 ms; the 5 ms SLO is crossed at ρ = (1 − L0/5 ms)/0.95 = 0.8776.
func ExampleCluster_Truth() {
	sc, err := storagesim.LoadScenario("growth")
	if err != nil {
		panic(err)
	}
	origin := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	c, err := storagesim.New(sc, 1, origin)
	if err != nil {
		panic(err)
	}
	tr := c.Truth(origin.Add(24*time.Hour), 0.005)
	fmt.Printf("max %.0f IOPS (read %.0f, write %.0f)\n", tr.MaxIOPS.Total, tr.MaxIOPS.Read, tr.MaxIOPS.Write)
	fmt.Printf("offered %.0f IOPS, utilization %.2f\n", tr.OfferedIOPS.Total, tr.Utilization)
	fmt.Printf("latency %.2f ms now, %.1f ms at the knee\n", tr.Latency.Now*1e3, tr.Latency.Knee*1e3)
	fmt.Printf("5 ms SLO crossed at %.0f IOPS\n", tr.SLOCrossingIOPS)
	fmt.Println("saturates at origin +", tr.SaturationTime.Sub(origin))
	// Output:
	// max 25000 IOPS (read 17500, write 7500)
	// offered 12000 IOPS, utilization 0.48
	// latency 1.53 ms now, 16.6 ms at the knee
	// 5 ms SLO crossed at 21941 IOPS
	// saturates at origin + 180h0m0s
}

// Sample returns what each target would answer to a scrape.
func ExampleCluster_Sample() {
	sc, _ := storagesim.LoadScenario("steady")
	origin := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	c, _ := storagesim.New(sc, 1, origin)
	s := c.Sample(origin.Add(time.Hour))
	for _, tg := range s.Targets {
		fmt.Println(tg.Job, tg.Instance, tg.Path, tg.Up, len(tg.Series) > 0)
	}
	// Output:
	// ceph ceph-mgr:9283 /metrics true true
	// node ceph-node-1:9100 /hosts/ceph-node-1/metrics true true
	// node ceph-node-2:9100 /hosts/ceph-node-2/metrics true true
	// node ceph-node-3:9100 /hosts/ceph-node-3/metrics true true
}

// A closed loop: clients with a fixed number of requests outstanding, in a
// queueing network of the 12 OSDs behind a delay (exact MVA), get a
// throughput that bends toward capacity while latency keeps growing, and
// throughput × latency is the number outstanding (Little's law).
func ExampleTruth_AtOutstanding() {
	sc, _ := storagesim.LoadScenario("closed-loop")
	origin := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	c, _ := storagesim.New(sc, 1, origin)
	tr := c.Truth(origin, 0)
	fmt.Printf("capacity %.0f IOPS, N* = %.1f outstanding\n", tr.MaxIOPS.Total, tr.Clients.SaturationOutstanding)
	for _, n := range []float64{8, 32, 128, 512} {
		x, l, _ := tr.AtOutstanding(n)
		fmt.Printf("N=%3.0f: %5.0f IOPS, %5.2f ms, X·L = %.0f\n", n, x, l*1e3, x*l)
	}
	// Output:
	// capacity 22500 IOPS, N* = 29.7 outstanding
	// N=  8:  5551 IOPS,  1.44 ms, X·L = 8
	// N= 32: 15393 IOPS,  2.08 ms, X·L = 32
	// N=128: 21788 IOPS,  5.87 ms, X·L = 128
	// N=512: 22500 IOPS, 22.76 ms, X·L = 512
}

// Under read/write interference the capacity at a mix is below what the
// pure-read and pure-write points predict by conservation; MaxIOPSAt gives
// the true capacity at any read ratio and size mix. By hand at 50/50 with
// γ = 0.3: U = X/72000 + X/24000 + 1.2·X²/(72000·24000); with y = X/18000,
// y + 0.225·y² = 1, so X = 18000·(√1.9 − 1)/0.45 = 15136.
func ExampleTruth_MaxIOPSAt() {
	sc, _ := storagesim.LoadScenario("growth-interference")
	origin := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	c, _ := storagesim.New(sc, 1, origin)
	tr := c.Truth(origin, 0)
	for _, r := range []float64{1, 0.7, 0.5, 0.3, 0} {
		m, _ := tr.MaxIOPSAt(r, []float64{1})
		conservation := 1 / (r/36000 + (1-r)/12000)
		fmt.Printf("read %.1f: %5.0f IOPS (conservation %5.0f)\n", r, m, conservation)
	}
	// Output:
	// read 1.0: 36000 IOPS (conservation 36000)
	// read 0.7: 18168 IOPS (conservation 22500)
	// read 0.5: 15136 IOPS (conservation 18000)
	// read 0.3: 13423 IOPS (conservation 15000)
	// read 0.0: 12000 IOPS (conservation 12000)
}
