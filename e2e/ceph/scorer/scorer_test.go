package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/forecaster/conservation"
)

// testdata/calibration-fio.json is the output of calibrate.fio on this
// suite's cluster (fio 3.33, Ceph 16.2.15).
func loadCal(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/calibration-fio.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestPlanRatesAreFractionsOfPredictedCapacity(t *testing.T) {
	data := loadCal(t)
	cal, err := conservation.ImportFio(data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := conservation.NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := PlanFromFio(data)
	if err != nil {
		t.Fatal(err)
	}
	// The ramp (3 + mark + 2), 70% and 30% (2 each), the 16 KiB and the mixed-size steps.
	if len(steps) != 12 {
		t.Fatalf("plan has %d steps, want 12", len(steps))
	}
	if steps[3].Kind != "mark" {
		t.Fatalf("step 3 is %q, want the M-LISP mark after the 3 lower ramp steps", steps[3].Kind)
	}
	for _, s := range steps {
		if s.Kind == "mark" {
			continue
		}
		if s.Saturated() {
			if s.RateRead != 0 || s.RateWrite != 0 {
				t.Errorf("%s: saturated step has a rate limit", s.Name)
			}
			continue
		}
		pts, _, err := m.Curve(4096, []float64{float64(s.ReadPct) / 100})
		if err != nil {
			t.Fatal(err)
		}
		want := s.Fraction * pts[0].MaxIOPS
		got := float64(s.RateRead + s.RateWrite)
		if math.Abs(got-want) > 2 {
			t.Errorf("%s: rate %v, want %v", s.Name, got, want)
		}
		if r := float64(s.RateRead) / got; math.Abs(r-float64(s.ReadPct)/100) > 0.01 {
			t.Errorf("%s: read share of the rate %v, want %v", s.Name, r, float64(s.ReadPct)/100)
		}
	}
}

func TestParseFioStepSumsDirections(t *testing.T) {
	r, err := ParseFioStep(loadCal(t))
	if err != nil {
		t.Fatal(err)
	}
	// The calibration file holds four stonewalled jobs; summing them is
	// meaningless but exercises the arithmetic: IOPS add, latency is
	// op-weighted.
	if r.ReadIOPS <= 0 || r.WriteIOPS <= 0 {
		t.Fatalf("got %+v", r)
	}
	if r.Latency < math.Min(r.ReadLatency, r.WriteLatency) || r.Latency > math.Max(r.ReadLatency, r.WriteLatency) {
		t.Errorf("op-weighted latency %v outside [%v, %v]", r.Latency, r.ReadLatency, r.WriteLatency)
	}
	if _, err := ParseFioStep([]byte("fio: no JSON")); err == nil {
		t.Error("no error for output without JSON")
	}
	if _, err := ParseFioStep([]byte(`{"jobs":[{"jobname":"x","error":5}]}`)); err == nil {
		t.Error("no error for a job that failed")
	}
}

func TestCurveAndLatencyInterpolation(t *testing.T) {
	c := []apiv1.CapacityPoint{{ReadRatio: 1, MaxIOPS: 100}, {ReadRatio: 0, MaxIOPS: 10}}
	if v, ok := curveAt(c, 0.5); !ok || v != 55 {
		t.Errorf("curveAt(0.5) = %v, %v; want 55, true", v, ok)
	}
	three, six := 3.0, 6.0
	l := []apiv1.LatencyPoint{{IOPS: 100, Lower: 1, Mean: 2, Upper: &three}, {IOPS: 200, Lower: 2, Mean: 4, Upper: &six}, {IOPS: 300, Lower: 3, Mean: 8}}
	p, beyond, ok := latencyAt(l, 150)
	if !ok || beyond || p.Mean != 3 || p.Lower != 1.5 || orInf(p.Upper) != 4.5 {
		t.Errorf("latencyAt(150) = %+v beyond=%v ok=%v", p, beyond, ok)
	}
	// Next to a point without an upper bound (the cluster may be saturated
	// there), none.
	if p, _, ok := latencyAt(l, 250); !ok || p.Mean != 6 || p.Upper != nil || !math.IsInf(orInf(p.Upper), 1) {
		t.Errorf("latencyAt(250) = %+v ok=%v; want mean 6 and no upper bound", p, ok)
	}
	if _, beyond, _ := latencyAt(l, 350); !beyond {
		t.Error("latencyAt(350) not flagged beyond the curve")
	}
}

func TestMissingStorcastSeriesFail(t *testing.T) {
	r := &Report{Sys: cephSystem, Bounds: Bounds{ClusterVsClient: 1, Conservation: 1, CurveVsModel: 1, LiveMaxIOPS: 1, LiveVsModel: 1, HeadroomAbs: 1,
		InsideOutMAPE: 1, MLISP: 1, PassiveVsMeas: 1, RequireStorcast: true}}
	r.Steps = []StepScore{{StepRecord: StepRecord{Name: "r50-sat", ReadPct: 50}, Fio: FioResult{ReadIOPS: 50, WriteIOPS: 50}, ClusterIOPS: 100}}
	r.Mixes = []MixScore{{ReadPct: 50, Measured: 100, Model: 110}}
	checks := r.check()
	pass := map[string]bool{}
	for _, c := range checks {
		pass[c.Name] = c.Pass
	}
	if !pass["plumbing: Ceph op rate vs fio IOPS (saturated steps)"] || !pass["conservation model (fio calibration) vs measured max IOPS"] {
		t.Errorf("measured-side checks failed: %+v", checks)
	}
	for _, name := range []string{"storcast_max_iops vs measured max IOPS", "plumbing: storcast_max_iops vs conservation model at the step's mix and size", "Inside-Out storcast_predicted_iops MAPE over the load", "passive calibration vs measured max IOPS"} {
		if p, ok := pass[name]; !ok || p {
			t.Errorf("check %q: present=%v pass=%v; want a failure when storcast served nothing", name, ok, p)
		}
	}
}

func TestBoundsAreEnforced(t *testing.T) {
	r := &Report{Sys: cephSystem, Bounds: Bounds{ClusterVsClient: 0.1, Conservation: 0.1}}
	r.Steps = []StepScore{{StepRecord: StepRecord{Name: "r50-sat", ReadPct: 50}, Fio: FioResult{ReadIOPS: 50, WriteIOPS: 50}, ClusterIOPS: 100}}
	r.Mixes = []MixScore{{ReadPct: 50, Measured: 100, Model: 125}}
	found := false
	for _, c := range r.check() {
		if c.Name == "conservation model (fio calibration) vs measured max IOPS" {
			found = true
			if c.Pass || math.Abs(c.Value-0.25) > 1e-12 {
				t.Errorf("got %+v, want a 25%% error failing a 10%% bound", c)
			}
		}
	}
	if !found {
		t.Error("no conservation check: renamed?")
	}
}

// The op-rate plumbing check at Ceph's bound (25%) passes the worst noise
// the suite has measured (15.3%: the mgr's 2 s counter refresh sampled every
// 5 s, its 4-10 s lag, fio's average over the step's first seconds) and fails
// the faults it is there for: one OSD of three not scraped (-33%), replicas
// counted as ops (+200%).
func TestOpRateCheckCatchesMissingCounters(t *testing.T) {
	const name = "plumbing: Ceph op rate vs fio IOPS (saturated steps)"
	for _, tc := range []struct {
		cluster float64
		pass    bool
	}{{1000 * 1.153, true}, {1000 * 0.847, true}, {1000 * 2 / 3, false}, {3000, false}} {
		r := &Report{Sys: cephSystem, Bounds: Bounds{ClusterVsClient: 0.25, Conservation: 1}}
		r.Steps = []StepScore{{StepRecord: StepRecord{Name: "r50-sat", ReadPct: 50}, Fio: FioResult{ReadIOPS: 500, WriteIOPS: 500}, ClusterIOPS: tc.cluster}}
		found := false
		for _, c := range r.check() {
			if c.Name == name {
				found = true
				if c.Pass != tc.pass {
					t.Errorf("Ceph counted %.0f ops/s where fio did 1000: pass=%v (value %.3f), want %v", tc.cluster, c.Pass, c.Value, tc.pass)
				}
			}
		}
		if !found {
			t.Fatalf("no check %q", name)
		}
	}
}

// A Swift calibration as loadgen writes it (figures from a run of the Swift suite).
const swiftCalYAML = `cluster: e2e
points:
  - io_size_bytes: 4096
    read_iops: 240
    write_iops: 80
  - io_size_bytes: 65536
    read_iops: 150
    write_iops: 60
`

func TestSwiftPlanCoversMixesSizesAndRamp(t *testing.T) {
	steps, err := swiftSystem.PlanFrom([]byte(swiftCalYAML))
	if err != nil {
		t.Fatal(err)
	}
	cal, err := conservation.LoadCalibration([]byte(swiftCalYAML))
	if err != nil {
		t.Fatal(err)
	}
	m, err := conservation.NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]PlanStep{}
	ramp, marks := 0, 0
	for _, s := range steps {
		if s.Kind == "mark" {
			marks++
			continue
		}
		names[s.Name] = s
		if s.Ramp {
			ramp++
			if s.ReadPct != 50 || s.BS != "4k" {
				t.Errorf("%s: a ramp step at %d%% %s, want 50%% 4k", s.Name, s.ReadPct, s.BS)
			}
		}
		if !s.Saturated() {
			pts, _, err := m.Curve(s.BSBytes, []float64{float64(s.ReadPct) / 100})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := float64(s.RateRead+s.RateWrite), s.Fraction*pts[0].MaxIOPS; math.Abs(got-want) > 2 {
				t.Errorf("%s: rate %v, want %v (%.0f%% of the predicted %v)", s.Name, got, want, 100*s.Fraction, pts[0].MaxIOPS)
			}
		}
	}
	if marks != 1 || ramp != 5 {
		t.Errorf("%d marks and %d ramp steps, want 1 and 5", marks, ramp)
	}
	for _, want := range []struct {
		name  string
		read  int
		bs    string
		bytes float64
	}{
		{"r70-sat", 70, "4k", 4096}, {"r30-sat", 30, "4k", 4096}, {"r30-f50", 30, "4k", 4096},
		{"r50-16k-sat", 50, "16k", 16384}, {"r50-mixsize-sat", 50, "4k,64k", (4096 + 65536) / 2},
	} {
		s, ok := names[want.name]
		if !ok {
			t.Errorf("plan has no step %s", want.name)
			continue
		}
		if s.ReadPct != want.read || s.BS != want.bs || s.BSBytes != want.bytes {
			t.Errorf("%s: %d%% %s (%v B), want %d%% %s (%v B)", want.name, s.ReadPct, s.BS, s.BSBytes, want.read, want.bs, want.bytes)
		}
	}
	// The Ceph plan: 4 KiB, except its two saturated held-out steps.
	ceph, err := PlanFromFio(loadCal(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ceph {
		if s.Kind == "load" && s.BS != "4k" && !(s.Saturated() && (s.Name == "r50-16k-sat" || s.Name == "r50-mixsize-sat")) {
			t.Errorf("ceph step %s at %s", s.Name, s.BS)
		}
	}
}

func TestMeasuredKneeInterpolatesTheRamp(t *testing.T) {
	step := func(iops, lat float64) StepScore {
		return StepScore{Plan: PlanStep{Ramp: true}, ClusterIOPS: iops, ClusterLatency: lat, HaveClusterLat: true}
	}
	steps := []StepScore{step(300, 0.2), step(100, 0.05), step(200, 0.1),
		// Not on the ramp: ignored even though it crosses the SLO earlier.
		{ClusterIOPS: 50, ClusterLatency: 1, HaveClusterLat: true}}
	// 0.15 s lies halfway between 200 IOPS (0.1 s) and 300 IOPS (0.2 s).
	if k, ok := measuredKnee(steps, 0.15); !ok || math.Abs(k-250) > 1e-9 {
		t.Errorf("knee = %v, %v; want 250, true", k, ok)
	}
	if _, ok := measuredKnee(steps, 0.5); ok {
		t.Error("a knee where no step reaches the SLO")
	}
	if k, ok := measuredKnee(steps, 0.01); !ok || k != 100 {
		t.Errorf("SLO below every step: knee = %v, %v; want the lowest step's 100", k, ok)
	}
}

// The calibration's own mixed runs are scored against the paper's law
// through its pure points, also when the calibration holds them as mixed
// points (loadgen calibrate -rounds writes them so): the frontier passes
// through their mean, 100 IOPS here, and would score each run against it.
func TestCalibrationMixesAgainstTheModel(t *testing.T) {
	cal, err := conservation.LoadCalibration([]byte(swiftCalYAML + `mixed:
  - io_size_bytes: 4096
    read_ratio: 0.5
    iops: [96, 104]
`))
	if err != nil {
		t.Fatal(err)
	}
	runs := `{"jobs":[{"jobname":"cal-r100-4k","read":{"iops":240}},{"jobname":"cal-r0-4k","write":{"iops":80}},
	{"jobname":"cal-r50-4k","read":{"iops":60},"write":{"iops":60}},{"jobname":"cal-r50-64k","read":{"iops":40},"write":{"iops":40}}]}`
	mixes, err := ParseCalibrationMixes([]byte(runs), cal)
	if err != nil {
		t.Fatal(err)
	}
	if len(mixes) != 2 {
		t.Fatalf("got %d mixed runs, want the two 50/50 ones: %+v", len(mixes), mixes)
	}
	// 50/50 at 4 KiB with 240 GET/s and 80 PUT/s: each op costs 1/240 or
	// 1/80 of a second of capacity, so 1 / (0.5/240 + 0.5/80) = 120 IOPS.
	if c := mixes[0]; c.IOSizeBytes != 4096 || c.Measured != 120 || math.Abs(c.Model-120) > 1e-9 {
		t.Errorf("4 KiB 50/50: %+v, want measured 120 and model 120", c)
	}
	if c := mixes[1]; c.IOSizeBytes != 65536 || math.Abs(c.Model-1/(0.5/150+0.5/60)) > 1e-9 {
		t.Errorf("64 KiB 50/50: %+v, want model %v", c, 1/(0.5/150+0.5/60))
	}
	// A run whose draws came out at 40% GETs is scored at 40%, the mix it
	// did, not the 50% it drew with.
	runs = `{"jobs":[{"jobname":"cal-r50-4k","read":{"iops":40},"write":{"iops":60}}]}`
	if mixes, err = ParseCalibrationMixes([]byte(runs), cal); err != nil || len(mixes) != 1 || math.Abs(mixes[0].Model-1/(0.4/240+0.6/80)) > 1e-9 {
		t.Errorf("a 40/60 run: %+v, %v; want the model at 40%% reads, %v", mixes, err, 1/(0.4/240+0.6/80))
	}
}

// A prediction 10x too low is only 90% off as a relative error; the factor
// check catches it either way.
func TestFactorCheckCatchesLowPredictions(t *testing.T) {
	r := &Report{Sys: swiftSystem, Bounds: Bounds{ClusterVsClient: 1, Conservation: 6, FactorOff: 6}}
	r.Mixes = []MixScore{{ReadPct: 50, BS: "4k", Measured: 100, Model: 10}}
	var conservation, factor *Check
	checks := r.check()
	for i := range checks {
		switch {
		case strings.HasPrefix(checks[i].Name, "conservation model (loadgen"):
			conservation = &checks[i]
		case strings.HasPrefix(checks[i].Name, "conservation model and storcast_max_iops"):
			factor = &checks[i]
		}
	}
	if conservation == nil || !conservation.Pass || math.Abs(conservation.Value-0.9) > 1e-12 {
		t.Errorf("relative error check: %+v, want 90%% passing a 600%% bound", conservation)
	}
	if factor == nil || factor.Pass || math.Abs(factor.Value-9) > 1e-12 {
		t.Errorf("factor check: %+v, want 9 (10x low) failing a bound of 6", factor)
	}
}

func TestSwiftPlanPutsNoRateLimitedStepAfterASaturatedOne(t *testing.T) {
	steps, err := swiftSystem.PlanFrom([]byte(swiftCalYAML))
	if err != nil {
		t.Fatal(err)
	}
	sat := false
	for _, s := range steps {
		if s.Kind != "load" {
			continue
		}
		if s.Saturated() {
			sat = true
		} else if sat {
			t.Errorf("%s: rate-limited step after a saturated one", s.Name)
		}
	}
}

// TestLiveVsModelLeavesOutMixedSizes: the live-vs-model plumbing check
// scores the single-size mixes and leaves the mixed-size step out (one
// model size cannot describe it), instead of failing on it as missing.
func TestLiveVsModelLeavesOutMixedSizes(t *testing.T) {
	r := &Report{Bounds: Bounds{LiveVsModel: 0.25, RequireStorcast: true}, Mixes: []MixScore{
		{ReadPct: 50, BS: "4k", BSBytes: 4096, Model: 1000, Live: 1010, HaveLive: true},
		{ReadPct: 50, BS: "4k,64k", BSBytes: 34816, Model: 1000, Live: 1500, HaveLive: true},
	}}
	for _, c := range r.check() {
		if c.Name != "plumbing: storcast_max_iops vs conservation model at the step's mix and size" {
			continue
		}
		if !c.Pass || math.Abs(c.Value-0.01) > 1e-9 {
			t.Errorf("check %+v: want a pass at 1.0%% (the 4k mix only)", c)
		}
		return
	}
	t.Fatal("the live-vs-model check is missing")
}

// TestReadFitErrorTakesTheLowerBoundsReason: a passive storcast whose
// history never saturated serves a lower bound with the reason in its note
// and no error; the scorer reads that reason as the fit's.
func TestReadFitErrorTakesTheLowerBoundsReason(t *testing.T) {
	dir := t.TempDir()
	write := func(name, models string) string {
		p := filepath.Join(dir, name)
		body := `{"status":"success","data":[{"name":"e2e","kind":"ceph","models":` + models + `}]}`
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bound := write("bound.json", `{"conservation":{"fitted":true,"note":"history never saturated: max IOPS is only bounded from below (at least 7269; capacity line not identifiable: no size band has enough saturated windows)"}}`)
	if got := readFitError(bound, "conservation"); !strings.Contains(got, "not identifiable") {
		t.Errorf("lower bound: %q, want its reason", got)
	}
	failed := write("failed.json", `{"conservation":{"fitted":false,"error":"no usable window in the lookback"}}`)
	if got := readFitError(failed, "conservation"); got != "no usable window in the lookback" {
		t.Errorf("error: %q", got)
	}
	fitted := write("fitted.json", `{"conservation":{"fitted":true,"note":"γ at 4096 bytes 0.1: untested"}}`)
	if got := readFitError(fitted, "conservation"); got != "" {
		t.Errorf("fitted: %q, want none", got)
	}
}

// The served latency model's knee is compared with the ramp's measured
// saturated step: below it, not below it, and no knee at all.
func TestServedKneeAgainstSaturation(t *testing.T) {
	k := func(x float64) *float64 { return &x }
	rep := &Report{Steps: []StepScore{
		{Plan: PlanStep{Ramp: true, Fraction: 0.5}, Fio: FioResult{ReadIOPS: 1000, WriteIOPS: 1000}},
		{Plan: PlanStep{Ramp: true}, Fio: FioResult{ReadIOPS: 3000, WriteIOPS: 3000}},
	}}
	render := func() string {
		var b strings.Builder
		rep.renderServedKnee(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) })
		return b.String()
	}
	rep.Served = &apiv1.LatencyCurve{SLOSeconds: 0.05, KneeIOPS: apiv1.Band{Upper: k(5800), Mean: k(5900)}}
	if got := render(); !strings.Contains(got, "Earliest knee (the upper band) 5800 IOPS vs the measured saturated IOPS of the ramp's mix 6000: below (96.7% of it)") {
		t.Errorf("below:\n%s", got)
	}
	rep.Served.KneeIOPS = apiv1.Band{Mean: k(6100)}
	if got := render(); !strings.Contains(got, "Earliest knee (the mean) 6100 IOPS vs the measured saturated IOPS of the ramp's mix 6000: not below") {
		t.Errorf("not below:\n%s", got)
	}
	rep.Served.KneeIOPS = apiv1.Band{}
	if got := render(); !strings.Contains(got, "No knee") {
		t.Errorf("no knee:\n%s", got)
	}
}

// A rate-limited step that ended below 97% of its rate is flagged, in the
// step table and the latency tables: its latency is a saturated one (the
// 80% step of 2026-11-27 19:37 reached 89%, at 2.70 ms against the
// saturated step's 1.81).
func TestStepShortOfItsRate(t *testing.T) {
	step := func(name string, fraction float64, rr, rw int, got float64) StepScore {
		return StepScore{StepRecord: StepRecord{Name: name, RateRead: rr, RateWrite: rw}, Plan: PlanStep{Fraction: fraction},
			Fio: FioResult{ReadIOPS: got / 2, WriteIOPS: got / 2}}
	}
	for _, c := range []struct {
		s         StepScore
		share     float64
		short     bool
		wantLabel string
	}{
		{step("r50-f80", 0.8, 3459, 3459, 6138), 6138.0 / 6918, true, "r50-f80 (reached 89% of its rate: saturated)"},
		{step("r50-f60", 0.6, 2594, 2594, 5170), 5170.0 / 5188, false, "r50-f60"},
		{step("r50-f80", 0.8, 3459, 3459, 6711), 6711.0 / 6918, false, "r50-f80"},
		{step("r50-sat", 0, 0, 0, 8815), 1, false, "r50-sat"},
	} {
		share, short := c.s.ReachedRate()
		if math.Abs(share-c.share) > 1e-12 || short != c.short || c.s.latencyLabel() != c.wantLabel {
			t.Errorf("%s at %.0f IOPS: reached %.4f, short %v, label %q; want %.4f, %v, %q", c.s.Name, c.s.Fio.IOPS(), share, short, c.s.latencyLabel(), c.share, c.short, c.wantLabel)
		}
	}
}

// A forecast far too low fails the gross checks as one far too high does:
// the mean relative error caps an under-prediction at 100%, under the
// latency check's 150% and Inside-Out's 300%, so a latency forecast 1000
// times too low (seconds for milliseconds) or an IOPS prediction of 0
// passed them.
func TestGrossChecksCatchUnderPrediction(t *testing.T) {
	for _, c := range []struct {
		name     string
		forecast float64 // seconds, measured 0.03
		wantPass bool
	}{{"1000× too low", 0.03e-3, false}, {"1000× too high", 30, false}, {"40% low", 0.018, true}} {
		r := &Report{Sys: cephSystem, Bounds: Bounds{MLISP: 1.5}}
		r.Steps = []StepScore{{StepRecord: StepRecord{Name: "r50-f80"}, HighRamp: true, HaveForecast: true, ForecastLat: apiv1.LatencyPoint{Mean: c.forecast},
			ClusterLatency: 0.03, HaveClusterLat: true}}
		for _, ch := range r.check() {
			if ch.Name == "M-LISP latency forecast (lower steps) vs measured at higher steps" && ch.Pass != c.wantPass {
				t.Errorf("%s: check %+v, want pass %v", c.name, ch, c.wantPass)
			}
		}
	}
	meas := map[int64]float64{1: 1000, 2: 1000, 3: 1000}
	for _, c := range []struct {
		pred float64
		inf  bool
	}{{0, true}, {1e-3, true}, {50, true}, {600, false}, {3000, false}} {
		mape, n, _ := mapeOver(map[int64]float64{1: c.pred, 2: c.pred, 3: c.pred}, meas)
		if n != 3 || math.IsInf(mape, 1) != c.inf {
			t.Errorf("Inside-Out at %v for 1000: MAPE %v over %d windows, want +Inf %v", c.pred, mape, n, c.inf)
		}
	}
}

// The factor check reads the frontier at the mix measured, as the
// conservation check does, not at the planned read share and one mean size
// (2026-11-29 07:15's mixed-size step: 6,645 measured at 74% reads, the
// frontier 7,328 there, 5,415 at the planned 50%).
func TestFactorCheckAtTheMeasuredMix(t *testing.T) {
	r := &Report{Sys: cephSystem, Bounds: Bounds{FactorOff: 0.2}}
	m := MixScore{ReadPct: 50, BS: "4k,64k", Measured: 6645, Model: 5415}
	m.Side.Have, m.Side.Frontier.MaxTotalIOPS = true, 7328
	r.Mixes = []MixScore{m}
	found := false
	for _, c := range r.check() {
		if c.Name == "conservation model and storcast_max_iops vs measured max, as a factor either way" {
			found = true
			if !c.Pass || math.Abs(c.Value-(7328.0/6645-1)) > 1e-9 {
				t.Errorf("factor check %+v, want %.3f and a pass", c, 7328.0/6645-1)
			}
		}
	}
	if !found {
		t.Error("no factor check")
	}
}
