package storagesim

import (
	"math"
	"testing"
	"time"
)

// The closed loop's latency is not a function of U of the hockey-stick
// family: at the utilization each population step reaches, L(0)·(1 +
// U^p/(1 − U)) misses the truth by more than half somewhere for every p the
// open loop accepts. (A latency of the form L0·shape(U) would be, at equal
// U, the open loop's, whatever the clients do.)
func TestClosedLoopNotAHockeyStick(t *testing.T) {
	c := mustCluster(t, "closed-loop", 1)
	type point struct{ u, l, l0 float64 }
	var pts []point
	for h := 0; h <= 48; h += 6 {
		tr := c.Truth(testOrigin.Add(time.Duration(h)*time.Hour+time.Minute), 0)
		pts = append(pts, point{tr.FrontierUtilization, tr.Latency.Now, tr.Latency.ZeroLoad})
	}
	for p := 1.0; p <= 20; p += 0.25 {
		worst := 0.0
		for _, pt := range pts {
			hs := pt.l0 * (1 + math.Pow(pt.u, p)/(1-pt.u))
			worst = math.Max(worst, math.Abs(hs/pt.l-1))
		}
		if worst < 0.5 {
			t.Errorf("hockey stick p=%v: within %.1f%% of the closed loop's latency at every step", p, 100*worst)
		}
	}
}
