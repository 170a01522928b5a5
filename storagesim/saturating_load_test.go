package storagesim

import (
	"testing"
	"time"
)

// On a CPU-bound host the load average counts the threads blocked on the
// requests the host holds, as Linux counts tasks in uninterruptible sleep:
// past saturation, in the closed-loop scenario, it keeps growing with the
// requests outstanding while CPU busy bends toward 1 and throughput toward
// capacity.
func TestSaturatingLoadFollowsOutstanding(t *testing.T) {
	c := mustCluster(t, "closed-loop", 1)
	const host = "ceph-node-1"
	type obs struct{ load1, busy, outstanding, served, capacity float64 }
	// The mean node_load1 over an hour of minutely scrapes and the share
	// of CPU time busy over the hour (neither idle nor iowait, which takes
	// what idle time is left at high load), from the hour at.
	measure := func(at time.Duration) obs {
		var o obs
		var idle0, total0, idle1, total1 float64
		const n = 61
		for i := 0; i < n; i++ {
			var idle, total float64
			for _, tg := range c.Sample(testOrigin.Add(at + time.Duration(i)*time.Minute)).Targets {
				if tg.Host != host {
					continue
				}
				for _, sr := range tg.Series {
					switch sr.Name {
					case "node_load1":
						o.load1 += sr.Value / n
					case "node_cpu_seconds_total":
						total += sr.Value
						if m := sr.Labels["mode"]; m == "idle" || m == "iowait" {
							idle += sr.Value
						}
					}
				}
			}
			if i == 0 {
				idle0, total0 = idle, total
			}
			idle1, total1 = idle, total
		}
		o.busy = 1 - (idle1-idle0)/(total1-total0)
		tr := c.Truth(testOrigin.Add(at), 0)
		o.outstanding, o.served, o.capacity = tr.Clients.Outstanding, tr.ServedIOPS.Total, tr.MaxIOPS.Total
		return o
	}
	a, b := measure(36*time.Hour), measure(54*time.Hour)
	t.Logf("36 h: %.1f outstanding, %.0f of %.0f IOPS (%.1f%%), load1 %.2f, busy %.3f", a.outstanding, a.served, a.capacity, 100*a.served/a.capacity, a.load1, a.busy)
	t.Logf("54 h: %.1f outstanding, %.0f of %.0f IOPS (%.1f%%), load1 %.2f, busy %.3f", b.outstanding, b.served, b.capacity, 100*b.served/b.capacity, b.load1, b.busy)
	if b.outstanding/a.outstanding < 2 {
		t.Fatalf("outstanding ×%.2f from 36 h to 54 h: the scenario no longer steps its load up", b.outstanding/a.outstanding)
	}
	if r := b.load1 / a.load1; r < 2 {
		t.Errorf("%s load1 ×%.2f from 36 h to 54 h while the requests outstanding grow ×%.2f: want ≥ 2", host, r, b.outstanding/a.outstanding)
	}
	if !(a.busy < 1 && b.busy < 1) || b.busy/a.busy > 1.1 {
		t.Errorf("%s CPU busy %.3f at 36 h, %.3f at 54 h: want below 1 and flat (< ×1.1) past saturation", host, a.busy, b.busy)
	}
	if b.served >= b.capacity {
		t.Errorf("throughput %.0f at 54 h reaches the capacity %.0f: a closed loop only approaches it", b.served, b.capacity)
	}
}
