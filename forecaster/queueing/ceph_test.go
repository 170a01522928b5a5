package queueing

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

type cephStep struct {
	Step           string  `json:"step"`
	ReadPct        int     `json:"readPct"`
	IOPS           float64 `json:"iops"`
	LatencySeconds float64 `json:"latencySeconds"`
	CapacityIOPS   float64 `json:"capacityIops"`
}

// TestRealCephSteps scores the model on a real single-host Ceph lab run:
// testdata/ceph_steps.json, the 4 KiB steps of the run of 2026-11-28 12:13
// UTC, extracted by testdata/ceph_steps.py (its doc has the command). fio
// ramps at 30/50/70% reads, rate-limited steps and a saturated one per mix,
// U = the Ceph op rate over the frontier capacity storcast computed at the
// step's mix. Trained on the steps below U = 0.6 (five step means: one
// curve for three mixes), read at the higher steps' U. Data the project did
// not shape to this model. It asserts the contract (saturation at or past
// capacity; below it a finite, positive forecast inside its band) and that
// no held-out error grows past 1.3 times the one measured on this run
// (cephMeasured): a change that loses accuracy on real data fails here.
// docs/models.md carries the table.
//
//	go test -run TestRealCephSteps -v ./forecaster/queueing
func TestRealCephSteps(t *testing.T) {
	b, err := os.ReadFile("testdata/ceph_steps.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		When  string     `json:"when"`
		Steps []cephStep `json:"steps"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.When != cephRun {
		t.Fatalf("testdata/ceph_steps.json is the run of %s; cephMeasured was measured on %s: measure again", d.When, cephRun)
	}
	var train []Sample
	var test []cephStep
	for _, s := range d.Steps {
		u := s.IOPS / s.CapacityIOPS
		if u < 0.6 {
			train = append(train, Sample{U: u, Throughput: s.IOPS, Latency: s.LatencySeconds})
		} else {
			test = append(test, s)
		}
	}
	if len(train) != 5 || len(test) != 4 {
		t.Fatalf("%d steps below U = 0.6 and %d above, want 5 and 4", len(train), len(test))
	}
	var out strings.Builder
	for _, class := range []Class{Auto, Open, Closed} {
		m, err := Fit(train, Options{Class: class})
		if err != nil {
			t.Fatalf("class %v: %v", class, err)
		}
		fmt.Fprintf(&out, "fit %v -> class %v (AIC open %.1f, closed %.1f)\n", class, m.Class, m.AICOpen, m.AICClosed)
		for _, s := range test {
			u := s.IOPS / s.CapacityIOPS
			p, err := m.At(u)
			if err != nil {
				t.Fatal(err)
			}
			if (u >= 1) != p.Saturated {
				t.Errorf("%s U=%.3f: %+v breaks the saturation contract", s.Step, u, p)
			}
			e := p.Mean/s.LatencySeconds - 1
			fmt.Fprintf(&out, "| %s | %.3f | %.2f | %.2f [%.2f, %.2f] | %+.1f%% |\n", s.Step, u, 1e3*s.LatencySeconds,
				1e3*p.Mean, 1e3*p.Lower, 1e3*p.Upper, 100*e)
			if u >= 1 {
				continue
			}
			if !(p.Mean > 0 && p.Lower > 0 && p.Lower <= p.Mean && p.Mean <= p.Upper && !math.IsInf(p.Upper, 0)) {
				t.Errorf("class %v, %s U=%.3f: %+v, want 0 < lower <= mean <= upper, all finite", class, s.Step, u, p)
				continue
			}
			want, ok := cephMeasured[class][s.Step]
			if !ok {
				t.Errorf("class %v, %s: no measured error to hold it to", class, s.Step)
				continue
			}
			tol := math.Max(1.3*math.Abs(want), cephFloor)
			if math.Abs(e) > tol || (math.Abs(want) > cephFloor && e*want < 0) {
				t.Errorf("class %v, %s: error %+.1f%%, measured %+.1f%% on this run: want the same side, within %.1f%%", class, s.Step, 100*e, 100*want, 100*tol)
			}
		}
	}
	t.Log("\n" + out.String())
}

// cephRun is the run testdata/ceph_steps.json holds.
const cephRun = "2026-11-28T12:13:20.126232557Z"

// cephMeasured is the signed relative error (forecast/measured − 1) of each
// class at each held-out step below capacity, measured on cephRun. Open loop
// over-predicts the saturated steps (closed-loop fio: their latency is set by
// the iodepth), closed loop under-predicts them.
var cephMeasured = map[Class]map[string]float64{
	Auto:   {"r50-f80": -0.002, "r50-sat": 1.551, "r70-sat": 2.658},
	Open:   {"r50-f80": -0.002, "r50-sat": 1.551, "r70-sat": 2.658},
	Closed: {"r50-f80": -0.263, "r50-sat": -0.441, "r70-sat": -0.127},
}

// cephFloor is the least tolerance: 1.3 times the 4% the auto class erred at
// r50-f80 on the run of 2026-11-22 06:17 UTC (this run's error there is
// near 0, too small to scale).
const cephFloor = 0.052
