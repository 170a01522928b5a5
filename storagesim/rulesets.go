package storagesim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gopkg.in/yaml.v3"
)

// Ground truth for traffic-control rule sets (Lu, "Storage Workload
// Characterization and Performance Prediction for Better I/O Traffic
// Management", thesis, 2015): a rule set changes a workload's throughput by
// a boost that depends on the workload's four features, and every run
// of an experiment is noisy. The generator writes the experiments an
// operator would keep in a rule-set catalog (the YAML that
// forecaster/advisor loads) and held-out workloads with their true boosts,
// so that the advisor can be scored against truth.
//
// The truth depends on the four features the advisor sees and on one it
// does not (the number of contending clients, drawn per workload), so a
// perfect model still has an error floor.

// RuleSetWorkload is a workload in the four features (original throughput
// follows from the other three, see RuleSetBaseline) plus the unobserved
// contention level.
type RuleSetWorkload struct {
	RequestBytes    float64 // sequential request size, bytes
	SequentialShare float64 // 0 random .. 1 sequential
	ReadShare       float64 // read bytes / all bytes
	// Contention in [−1, 1] stands for what the four features miss (how
	// many clients contend); it shifts every boost a little.
	Contention float64
}

// RuleSetNames lists the simulated rule sets, in catalog order.
var RuleSetNames = []string{"qos-cap", "read-window", "congestion-control"}

// ruleSetDescriptions describe them for the catalog.
var ruleSetDescriptions = []string{
	"per-client rate cap: helps large sequential writes, hurts small random reads and fast workloads",
	"large client RPC window: helps sequential reads once reads dominate (from about 6:1, fully above 8:1)",
	"congestion control that backs clients off: helps contended mixed workloads, hurts fast ones",
}

// ruleSetCommon are the common workloads the rule sets were tuned for.
var ruleSetCommon = []RuleSetWorkload{
	{RequestBytes: 8 << 20, SequentialShare: 1, ReadShare: 0.1},
	{RequestBytes: 1 << 20, SequentialShare: 1, ReadShare: 0.9},
	{RequestBytes: 1 << 20, SequentialShare: 0, ReadShare: 0.5},
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// RuleSetBaseline is the true throughput (bytes/s) of w without a rule
// set, a four-server cluster of disks: each request costs a positioning
// time unless sequential, a fixed overhead and its transfer at the
// direction's bandwidth; mixing reads and writes randomly costs up to 30%.
//
//	t = 8 ms·(1 − q) + 0.2 ms + s/B,   1/B = r/110 MB/s + (1 − r)/100 MB/s
//	T = 4·s/t · (1 − 0.3·4r(1 − r)(1 − q))
func RuleSetBaseline(w RuleSetWorkload) float64 {
	s, q, r := w.RequestBytes, w.SequentialShare, w.ReadShare
	t := 8e-3*(1-q) + 0.2e-3 + s*(r/110e6+(1-r)/100e6)
	return 4 * s / t * (1 - 0.3*4*r*(1-r)*(1-q))
}

// RuleSetTrueBoost is rule set i's true boost for w: with-rule-set
// throughput / baseline − 1. With L = log2(request bytes), q the sequential
// share, r the read share, T the baseline throughput, c the contention:
//
//	qos-cap:            0.22·σ((L−20)/1.2)·(1−r)·(0.4+0.6q) − 0.12·σ((17−L)/1)·r·(1−q)
//	                    − 0.5·max(0, T/420 MB/s − 0.7)² + 0.015c
//	read-window:        0.18·σ((r−0.85)/0.03)·q·σ((L−16)/1.5) − 0.06·(1−q)·r − 0.01 + 0.015c
//	congestion-control: 0.04 + 0.10·4r(1−r) − 0.22·σ((log2 T − log2 250 MB/s)/0.4) + 0.015c
//
// σ the logistic function: thresholds, products and a square, nothing an
// M5 tree's piecewise-linear form matches exactly.
func RuleSetTrueBoost(i int, w RuleSetWorkload) float64 {
	L := math.Log2(w.RequestBytes)
	q, r, c := w.SequentialShare, w.ReadShare, w.Contention
	T := RuleSetBaseline(w)
	switch i {
	case 0:
		over := math.Max(0, T/420e6-0.7)
		return 0.22*logistic((L-20)/1.2)*(1-r)*(0.4+0.6*q) - 0.12*logistic(17-L)*r*(1-q) - 0.5*over*over + 0.015*c
	case 1:
		return 0.18*logistic((r-0.85)/0.03)*q*logistic((L-16)/1.5) - 0.06*(1-q)*r - 0.01 + 0.015*c
	case 2:
		return 0.04 + 0.10*4*r*(1-r) - 0.22*logistic((math.Log2(T)-math.Log2(250e6))/0.4) + 0.015*c
	}
	return math.NaN()
}

// RuleSetCatalogOptions shape a generated catalog.
type RuleSetCatalogOptions struct {
	Runs     int     // runs of each of baseline and with-rule-set; default 5
	RunNoise float64 // relative sd of a run's throughput; default 0.04
}

func (o RuleSetCatalogOptions) withDefaults() RuleSetCatalogOptions {
	if o.Runs <= 0 {
		o.Runs = 5
	}
	if o.RunNoise == 0 {
		o.RunNoise = 0.04
	}
	return o
}

// ruleSetExperimentYAML, ruleSetYAML and ruleSetCatalogYAML are the catalog
// format of forecaster/advisor (LoadCatalog), written here without
// importing it.
type ruleSetExperimentYAML struct {
	Workload    map[string]float64 `yaml:"workload"`
	Baseline    []float64          `yaml:"baseline,flow"`
	WithRuleSet []float64          `yaml:"with_rule_set,flow"`
}

type ruleSetYAML struct {
	Name           string                  `yaml:"name"`
	Description    string                  `yaml:"description"`
	CommonWorkload map[string]float64      `yaml:"common_workload"`
	Experiments    []ruleSetExperimentYAML `yaml:"experiments"`
}

type ruleSetCatalogYAML struct {
	Features []string      `yaml:"features,flow"`
	RuleSets []ruleSetYAML `yaml:"rule_sets"`
}

func (w RuleSetWorkload) features() map[string]float64 {
	return map[string]float64{"request_bytes": w.RequestBytes, "sequential_share": w.SequentialShare, "read_share": w.ReadShare}
}

// RuleSetDerived returns the derived workloads of rule set i's common
// workload, the way Lu built training sets: the common workload itself,
// then one feature changed at a time (request size 4 KiB..64 MiB in
// powers of two, sequential share 0..1 by 0.2, read share 0..1 by 0.1),
// then the access type flipped and the request size and read share swept
// again. The contention of each workload is drawn from rng.
func RuleSetDerived(i int, rng *rand.Rand) []RuleSetWorkload {
	c := ruleSetCommon[i]
	var out []RuleSetWorkload
	add := func(w RuleSetWorkload) {
		w.Contention = 2*rng.Float64() - 1
		out = append(out, w)
	}
	add(c)
	sweep := func(base RuleSetWorkload, sizeStep int, shareStep float64) {
		for L := 12; L <= 26; L += sizeStep {
			w := base
			w.RequestBytes = math.Ldexp(1, L)
			add(w)
		}
		for r := 0.0; r <= 1+1e-9; r += shareStep {
			w := base
			w.ReadShare = math.Round(r*100) / 100
			add(w)
		}
	}
	sweep(c, 1, 0.1)
	for q := 0.0; q <= 1+1e-9; q += 0.2 {
		w := c
		w.SequentialShare = math.Round(q*10) / 10
		add(w)
	}
	flipped := c
	flipped.SequentialShare = 1 - math.Round(c.SequentialShare)
	sweep(flipped, 2, 0.2)
	return out
}

// measure runs w without and with rule set i, runs times each, with a
// relative run-to-run noise sd.
func measure(i int, w RuleSetWorkload, runs int, sd float64, rng *rand.Rand) (base, with []float64) {
	t0 := RuleSetBaseline(w)
	t1 := t0 * (1 + RuleSetTrueBoost(i, w))
	for range runs {
		base = append(base, t0*math.Max(0.05, 1+sd*rng.NormFloat64()))
		with = append(with, t1*math.Max(0.05, 1+sd*rng.NormFloat64()))
	}
	return base, with
}

// RuleSetCatalog generates a rule-set catalog in forecaster/advisor's YAML
// format: for every simulated rule set, its common workload and the
// derived workloads of RuleSetDerived, each run opt.Runs times without and
// with the rule set. The same seed gives the same bytes.
func RuleSetCatalog(seed uint64, opt RuleSetCatalogOptions) ([]byte, error) {
	opt = opt.withDefaults()
	if opt.Runs < 2 || !(opt.RunNoise >= 0 && opt.RunNoise < 1) {
		return nil, fmt.Errorf("storagesim: rule-set catalog: runs %d (need >= 2), run noise %v (need [0, 1))", opt.Runs, opt.RunNoise)
	}
	cat := ruleSetCatalogYAML{Features: []string{"request_bytes", "sequential_share", "read_share", "original_throughput"}}
	for i, name := range RuleSetNames {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		rs := ruleSetYAML{Name: name, Description: ruleSetDescriptions[i], CommonWorkload: ruleSetCommon[i].features()}
		for _, w := range RuleSetDerived(i, rng) {
			b, x := measure(i, w, opt.Runs, opt.RunNoise, rng)
			rs.Experiments = append(rs.Experiments, ruleSetExperimentYAML{Workload: w.features(), Baseline: b, WithRuleSet: x})
		}
		cat.RuleSets = append(cat.RuleSets, rs)
	}
	return yaml.Marshal(cat)
}

// HeldOutWorkload is a workload the catalog does not hold, with what a
// live measurement gives and the truth.
type HeldOutWorkload struct {
	// From is the index of the rule set whose common workload it derives
	// from.
	From     int
	Workload RuleSetWorkload
	// MeasuredThroughput is the mean of opt.Runs noisy baseline runs: the
	// original throughput as the advisor would see it live.
	MeasuredThroughput float64
	// TrueBoost[i] is rule set i's true boost (noise-free).
	TrueBoost []float64
}

// Features returns the advisor's feature map of the workload, with the
// measured original throughput.
func (h HeldOutWorkload) Features() map[string]float64 {
	f := h.Workload.features()
	f["original_throughput"] = h.MeasuredThroughput
	return f
}

// RuleSetHeldOut generates perRuleSet held-out derived workloads of each
// rule set's common workload: one or two features changed to values drawn
// uniformly (log2 request size in [12, 26], shares in [0, 1]), so they fall
// between and beside the catalog's grid. Seeds differ from the catalog's.
func RuleSetHeldOut(seed uint64, perRuleSet int, opt RuleSetCatalogOptions) []HeldOutWorkload {
	opt = opt.withDefaults()
	var out []HeldOutWorkload
	for i := range RuleSetNames {
		rng := rand.New(rand.NewPCG(seed^0x4e1d07, uint64(i)))
		for range perRuleSet {
			w := ruleSetCommon[i]
			changes := 1 + rng.IntN(2)
			for _, f := range rng.Perm(3)[:changes] {
				switch f {
				case 0:
					w.RequestBytes = math.Round(math.Exp2(12 + 14*rng.Float64()))
				case 1:
					w.SequentialShare = rng.Float64()
				case 2:
					w.ReadShare = rng.Float64()
				}
			}
			w.Contention = 2*rng.Float64() - 1
			h := HeldOutWorkload{From: i, Workload: w}
			base, _ := measure(0, w, opt.Runs, opt.RunNoise, rng)
			for _, b := range base {
				h.MeasuredThroughput += b / float64(len(base))
			}
			for k := range RuleSetNames {
				h.TrueBoost = append(h.TrueBoost, RuleSetTrueBoost(k, w))
			}
			out = append(out, h)
		}
	}
	return out
}
