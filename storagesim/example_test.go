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
