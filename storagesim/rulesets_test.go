package storagesim

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"gopkg.in/yaml.v3"
)

// The stated shape of each rule set's truth, at workloads where it is
// clear-cut.
func TestRuleSetTruthShape(t *testing.T) {
	largeSeqWrite := RuleSetWorkload{RequestBytes: 16 << 20, SequentialShare: 1, ReadShare: 0}
	smallRandRead := RuleSetWorkload{RequestBytes: 16 << 10, SequentialShare: 0, ReadShare: 1}
	seqRead := RuleSetWorkload{RequestBytes: 1 << 20, SequentialShare: 1, ReadShare: 0.95}
	seqRead7030 := RuleSetWorkload{RequestBytes: 1 << 20, SequentialShare: 1, ReadShare: 0.7}
	mixedRandom := RuleSetWorkload{RequestBytes: 1 << 20, SequentialShare: 0, ReadShare: 0.5}
	for _, tc := range []struct {
		name    string
		i       int
		w       RuleSetWorkload
		lo, hi  float64
		because string
	}{
		{"qos-cap large sequential writes", 0, largeSeqWrite, 0.10, 0.25, "the cap's purpose"},
		{"qos-cap small random reads", 0, smallRandRead, -0.15, -0.05, "the cap starves them"},
		{"read-window sequential reads 95%", 1, seqRead, 0.10, 0.20, "reads dominate"},
		{"read-window sequential reads 70%", 1, seqRead7030, -0.02, 0.01, "below the 8:1 threshold"},
		{"congestion-control mixed random", 2, mixedRandom, 0.08, 0.16, "slow and contended"},
		{"congestion-control large sequential writes", 2, largeSeqWrite, -0.20, -0.10, "fast already"},
	} {
		if b := RuleSetTrueBoost(tc.i, tc.w); !(b >= tc.lo && b <= tc.hi) {
			t.Errorf("%s: boost %.3f, want [%.2f, %.2f] (%s)", tc.name, b, tc.lo, tc.hi, tc.because)
		}
	}
	if !math.IsNaN(RuleSetTrueBoost(len(RuleSetNames), largeSeqWrite)) {
		t.Error("unknown rule set index gives a number")
	}
	// Baseline: positioning dominates small random requests, bandwidth large
	// sequential ones (4 disks at 100-110 MB/s).
	if tp := RuleSetBaseline(smallRandRead); tp < 5e6 || tp > 10e6 {
		t.Errorf("16 KiB random reads: %.3g B/s", tp)
	}
	if tp := RuleSetBaseline(largeSeqWrite); tp < 390e6 || tp > 400e6 {
		t.Errorf("16 MiB sequential writes: %.3g B/s", tp)
	}
	// The contention term is the unobserved part: ±0.015.
	c := largeSeqWrite
	c.Contention = 1
	if d := RuleSetTrueBoost(0, c) - RuleSetTrueBoost(0, largeSeqWrite); math.Abs(d-0.015) > 1e-12 {
		t.Errorf("contention shift %v", d)
	}
}

type catalogShape struct {
	Features []string `yaml:"features"`
	RuleSets []struct {
		Name           string             `yaml:"name"`
		CommonWorkload map[string]float64 `yaml:"common_workload"`
		Experiments    []struct {
			Workload    map[string]float64 `yaml:"workload"`
			Baseline    []float64          `yaml:"baseline"`
			WithRuleSet []float64          `yaml:"with_rule_set"`
		} `yaml:"experiments"`
	} `yaml:"rule_sets"`
}

func TestRuleSetCatalog(t *testing.T) {
	data, err := RuleSetCatalog(3, RuleSetCatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := RuleSetCatalog(3, RuleSetCatalogOptions{})
	other, _ := RuleSetCatalog(4, RuleSetCatalogOptions{})
	if !bytes.Equal(data, again) || bytes.Equal(data, other) {
		t.Error("the catalog is not a function of the seed")
	}
	var c catalogShape
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Features) != 4 || len(c.RuleSets) != len(RuleSetNames) {
		t.Fatalf("features %v, %d rule sets", c.Features, len(c.RuleSets))
	}
	// 1 common + 15 sizes + 11 read shares + 6 sequential shares + flipped
	// access: 8 sizes + 6 read shares.
	const perRuleSet = 47
	var z []float64 // standardized run noise
	for i, rs := range c.RuleSets {
		if rs.Name != RuleSetNames[i] || len(rs.Experiments) != perRuleSet {
			t.Errorf("rule set %d: %s, %d experiments", i, rs.Name, len(rs.Experiments))
		}
		for k, e := range rs.Experiments {
			w := RuleSetWorkload{RequestBytes: e.Workload["request_bytes"], SequentialShare: e.Workload["sequential_share"], ReadShare: e.Workload["read_share"]}
			if k == 0 && (w.RequestBytes != rs.CommonWorkload["request_bytes"] || w.ReadShare != rs.CommonWorkload["read_share"]) {
				t.Errorf("rule set %d: first experiment %v is not the common workload", i, e.Workload)
			}
			if len(e.Baseline) != 5 || len(e.WithRuleSet) != 5 {
				t.Fatalf("runs %d, %d", len(e.Baseline), len(e.WithRuleSet))
			}
			tp := RuleSetBaseline(w)
			for _, v := range e.Baseline {
				z = append(z, (v/tp-1)/0.04)
			}
		}
	}
	// The runs scatter around the true baseline with the stated 4% sd.
	var m, ss float64
	for _, v := range z {
		m += v / float64(len(z))
	}
	for _, v := range z {
		ss += (v - m) * (v - m) / float64(len(z)-1)
	}
	if math.Abs(m) > 4/math.Sqrt(float64(len(z))) || math.Abs(math.Sqrt(ss)-1) > 0.1 {
		t.Errorf("run noise: mean %.3f sd %.3f in units of 4%%, want 0 and 1 (n = %d)", m, math.Sqrt(ss), len(z))
	}
	if _, err := RuleSetCatalog(1, RuleSetCatalogOptions{Runs: 1}); err == nil {
		t.Error("one run accepted")
	}
}

func TestRuleSetDerivedOneFeatureAtATime(t *testing.T) {
	for i := range RuleSetNames {
		c := ruleSetCommon[i]
		for _, w := range RuleSetDerived(i, rand.New(rand.NewPCG(1, 2))) {
			changed := 0
			if w.RequestBytes != c.RequestBytes {
				changed++
			}
			if w.SequentialShare != c.SequentialShare {
				changed++
			}
			if w.ReadShare != c.ReadShare {
				changed++
			}
			// The flipped-access sweeps change the access type and one more.
			if changed > 2 || changed == 2 && w.SequentialShare == c.SequentialShare {
				t.Errorf("rule set %d: %+v changes %d features of %+v", i, w, changed, c)
			}
		}
	}
}

func TestRuleSetHeldOut(t *testing.T) {
	h := RuleSetHeldOut(5, 10, RuleSetCatalogOptions{})
	if len(h) != 10*len(RuleSetNames) {
		t.Fatalf("%d held-out workloads", len(h))
	}
	for _, x := range h {
		tp := RuleSetBaseline(x.Workload)
		// Mean of 5 runs at 4%: within 4 standard errors (7.2%).
		if math.Abs(x.MeasuredThroughput/tp-1) > 0.072 {
			t.Errorf("%+v: measured %.3g, true %.3g", x.Workload, x.MeasuredThroughput, tp)
		}
		for k := range RuleSetNames {
			if x.TrueBoost[k] != RuleSetTrueBoost(k, x.Workload) {
				t.Errorf("true boost %d", k)
			}
		}
		f := x.Features()
		if len(f) != 4 || f["original_throughput"] != x.MeasuredThroughput {
			t.Errorf("features %v", f)
		}
	}
}
