package collector

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/forecaster/advisor"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/insideout"
	"github.com/storcast/storcast/forecaster/trend"
	"github.com/storcast/storcast/internal/testtool"
)

var update = flag.Bool("update", false, "rewrite testdata/metrics.golden")

// fakeLatency is a latency curve L = 1ms / (1 − iops/10000), band ±10%.
type fakeLatency struct{}

func (fakeLatency) at(iops float64) models.Band {
	m := 0.001 / (1 - iops/10000)
	return models.Band{Lower: 0.9 * m, Mean: m, Upper: 1.1 * m}
}
func (f fakeLatency) Curve() []models.LatencyPoint {
	var out []models.LatencyPoint
	for i := 1; i <= 9; i++ {
		out = append(out, models.LatencyPoint{IOPS: float64(i) * 1000, Band: f.at(float64(i) * 1000)})
	}
	return out
}
func (f fakeLatency) At(iops float64) (models.Band, bool) {
	if iops < 1000 || iops > 9000 {
		return models.Band{}, false
	}
	return f.at(iops), true
}
func (fakeLatency) Crossing(slo float64) models.Band {
	// Solve 0.001·k/(1 − x/10000) = slo for each band factor k.
	x := func(k float64) float64 { return 10000 * (1 - 0.001*k/slo) }
	return models.Band{Lower: x(0.9), Mean: x(1), Upper: x(1.1)}
}
func (fakeLatency) Accuracy() float64            { return 0.9 }
func (fakeLatency) Samples() int                 { return 1000 }
func (fakeLatency) Scores() map[string]float64   { return map[string]float64{"latency": 0.9} }
func (fakeLatency) MarshalJSON() ([]byte, error) { return json.Marshal("fake") }

// fakeTrend grows 1 IOPS per hour from 2000 at t = 0... flat when flat.
type fakeTrend struct{ flat bool }

func (f fakeTrend) At(t float64) models.Band {
	return models.Band{Lower: 1900, Mean: 2000, Upper: 2100}
}
func (f fakeTrend) ETA(now, limit float64) float64 {
	if f.flat {
		return math.Inf(1)
	}
	return (limit - 2000) * 3600
}
func (fakeTrend) Accuracy() float64            { return 0.95 }
func (fakeTrend) Samples() int                 { return 1440 }
func (fakeTrend) Scores() map[string]float64   { return map[string]float64{"iops": 0.95} }
func (fakeTrend) MarshalJSON() ([]byte, error) { return json.Marshal("fake") }

type fixed []*engine.Snapshot

func (f fixed) Snapshots() []*engine.Snapshot { return f }

func snapshots(t testing.TB) fixed {
	capacity, err := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 12000, WriteIOPS: 4000}}}, "file", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The lookback's load tested against it: at most 41% of the band's
	// upper end (storcast_capacity_history_load_ratio).
	capacity.History = models.HistoryLoad{Windows: 120, Ratio: 0.41, Time: 1.7e9 - 600, IOPS: 2300, ReadRatio: 0.7, Upper: 5600}
	m := capacity.Model()
	// The hosts' block requests: 600 of 2400 merged.
	obs := features.Observed{Time: 1.7e9, ReadIOPS: 1400, WriteIOPS: 600, IOPS: 2000, ReadRatio: 0.7, ReadSizeBytes: 4096, WriteSizeBytes: 4096, IOSizeBytes: 4096, LatencySeconds: 0.00125,
		DiskMerged: 600, DiskCompleted: 1800, HasDiskRequests: true}
	res, err := m.AtMix(features.OpClasses(obs))
	if err != nil {
		t.Fatal(err)
	}
	// Demand in units of the capacity at the mix, growing 0.01 a day from
	// the observed utilization: its ETAs have a band.
	demand := &trend.UtilizationTrend{Growth: trend.GrowthLinear, Coef: []float64{obs.IOPS / res.MaxTotalIOPS, 0.01}, TMean: obs.Time,
		FirstT: obs.Time - 3*trend.Day, LastT: obs.Time, N: 864, ResidualStd: 0.02, Z: 1.96, Cov: []float64{0.01, 0, 0, 0.01}, Horizon: trend.DefaultHorizonSeconds}
	full := &engine.Snapshot{
		Cluster: "ceph-a", Kind: "ceph", SLOSeconds: 0.02, LatencyKind: "op", Ready: true, SourceUp: true,
		Observed: obs, HasObserved: true, StateSaved: time.Unix(1.7e9, 0), LastRefresh: time.Unix(1.7e9+5, 0),
		Set: models.Set{models.Conservation: capacity, models.MLISP: fakeLatency{}, models.Trend: fakeTrend{},
			models.Saturation: &models.UtilizationFit{T: demand, N: 864, ReferenceIOPS: res.MaxTotalIOPS},
			models.WhatIf:     &models.WhatIfFit{Learners: []models.WhatIfLearner{{Name: "MARS", CVErrorRatio: 0.04}, {Name: "Cubist", CVErrorRatio: 0.05}, {Name: "LRM", CVErrorRatio: 0.2}}}},
		Live: models.Live{CapacityAtMix: res, HasCapacityAtMix: true,
			PredictedIO: map[insideout.Target]float64{insideout.ReadIOPS: 1390, insideout.WriteIOPS: 610, insideout.ReadBytes: 5.7e6, insideout.WriteBytes: 2.5e6},
			// The advisor's answer for a catalog of two rule sets.
			RuleSets: &models.RuleSets{Recommended: "qos-cap", Predictions: []advisor.Prediction{
				{RuleSet: "qos-cap", Boost: 0.076, CVError: 0.057, RunNoise: 0.021}, {RuleSet: "read-window", Boost: -0.02, CVError: 0.05, RunNoise: 0.018, Extrapolated: true}}}},
		Models: map[string]apiv1.ModelStatus{
			models.Conservation: {Fitted: true, LastFitUnix: 1.7e9, TrainingSamples: 1},
			models.InsideOut:    {Fitted: true, LastFitUnix: 1.7e9, TrainingSamples: 1440, AccuracyRatio: 0.93},
			models.MLISP:        {Fitted: true, LastFitUnix: 1.7e9, TrainingSamples: 1000, AccuracyRatio: 0.9},
			models.Trend:        {Fitted: true, LastFitUnix: 1.7e9, TrainingSamples: 1440, AccuracyRatio: 0.95},
		},
		FitSeconds: map[string]float64{models.Conservation: 0.001, models.InsideOut: 2.5, models.MLISP: 4, models.Trend: 0.01},
		Accuracy: map[string]map[string]float64{
			models.InsideOut: {"read_iops": 0.94, "write_iops": 0.92},
			models.MLISP:     {"latency": 0.9},
			models.Trend:     {"iops": 0.95},
		},
	}
	// A cluster whose source is down: last forecasts, stale, flat demand.
	down := *full
	down.Cluster, down.SourceUp = "swift-b", false
	down.LastRefresh = time.Unix(1.7e9-3600, 0) // its last successful one
	// Its last save failed (a full disk): the earlier save's time stays.
	down.StateSaved, down.StateSaveError = time.Unix(1.7e9-3600, 0), "write data/swift-b.json.tmp: no space left on device"
	down.Set = full.Set.Clone()
	down.Set[models.Trend] = fakeTrend{flat: true}
	delete(down.Set, models.Saturation) // its ETAs from the flat demand trend: +Inf, no band
	down.Models = map[string]apiv1.ModelStatus{}
	for k, v := range full.Models {
		v.Stale = true
		down.Models[k] = v
	}
	// A cluster that never fitted: only source health, the SLO and its
	// state file, unreadable at start and set aside (nothing saved since).
	empty := &engine.Snapshot{Cluster: "new", Kind: "generic", SLOSeconds: 0.05, SourceUp: false,
		StateRestoreError: "saved state unreadable (data/new.json: version 2, want 1): moved aside to data/new.json.unreadable-20261120T120000Z, the models are refitted",
		Models: map[string]apiv1.ModelStatus{models.Conservation: {Error: "calibration file /etc/storcast/new.yml: open: no such file or directory"},
			models.WhatIf: {Error: "whatif: 12 windows with load and latency, need 40", Waiting: "waiting for 28 more windows with load and latency (about 28m0s)"}}}
	return published(full, &down, empty)
}

// published completes hand-built snapshots as the engine does before
// publishing them (their outlook).
func published(snaps ...*engine.Snapshot) fixed {
	for _, s := range snaps {
		s.ComputeOutlook()
	}
	return snaps
}

// shardOfFixture is shard 1 of 3 forecasting the fixture's clusters, with
// a fourth configured cluster assigned to another shard.
type shardOfFixture struct{}

func (shardOfFixture) Shard() Shard {
	return Shard{Index: 1, Total: 3, Configured: []string{"ceph-a", "swift-b", "new", "elsewhere"}, Assigned: []string{"ceph-a", "swift-b", "new"}}
}

// reloadOfFixture is a configuration loaded at start and a reload that
// failed after it: not successful, the start's time the last success.
func reloadOfFixture() *ConfigReload {
	r := NewConfigReload(time.Unix(1700000000, 0))
	r.Record(errors.New("clusters[0].kind: unknown kind"), time.Unix(1700000600, 0))
	return r
}

func scrape(t testing.TB, src Snapshotter) []byte {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(New(src, shardOfFixture{}, nil), reloadOfFixture())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// TestGoldenMetrics compares /metrics with testdata/metrics.golden (scrape
// durations, which vary, are left out). Run with -update to rewrite.
func TestGoldenMetrics(t *testing.T) {
	var out []string
	for _, l := range strings.Split(string(scrape(t, snapshots(t))), "\n") {
		if strings.HasPrefix(l, "storcast_scrape_collector_duration_seconds{") {
			continue
		}
		out = append(out, l)
	}
	got := strings.Join(out, "\n")
	if *update {
		if err := os.WriteFile("testdata/metrics.golden", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/metrics.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("metrics differ from testdata/metrics.golden (rerun with -update and review the diff):\n%s", got)
	}
}

// TestPromtoolCheckMetrics runs Debian's promtool on the exposition.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := testtool.Need(t, "promtool")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(scrape(t, snapshots(t)))
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// TestEverySeriesDocumented: every series the collectors declare is in the
// series reference, docs/series.md (a table row starting with it), whether
// or not the fixture's scrape emits it.
func TestEverySeriesDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../docs/series.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Declared() {
		if !bytes.Contains(readme, []byte("| `"+s.Name+"`")) && !bytes.Contains(readme, []byte("| `"+s.Name+"{")) {
			t.Errorf("%s is not documented in docs/series.md", s.Name)
		}
	}
}

// TestGoldenHasEveryDeclaredSeries: the fixture's scrape, and so
// testdata/metrics.golden, holds every declared series, so the golden and
// promtool's check cover all of them.
func TestGoldenHasEveryDeclaredSeries(t *testing.T) {
	out := string(scrape(t, snapshots(t)))
	for _, s := range Declared() {
		if !strings.Contains(out, "\n"+s.Name+"{") && !strings.Contains(out, "\n"+s.Name+" ") {
			t.Errorf("%s is declared but the fixture's scrape has no sample of it", s.Name)
		}
	}
}

// BenchmarkScrape is one scrape of 1, 10 and 100 clusters of the full
// fixture through a registry and the text encoding (what promhttp does,
// without HTTP and gzip). The outlook is stored in the snapshots, as the
// engine publishes them, so this is the scrape's own cost.
func BenchmarkScrape(b *testing.B) {
	base := snapshots(b)[0]
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			var snaps fixed
			for i := 0; i < n; i++ {
				s := *base
				s.Cluster = fmt.Sprintf("cluster-%03d", i)
				snaps = append(snaps, &s)
			}
			reg := prometheus.NewRegistry()
			reg.MustRegister(New(snaps, nil, nil))
			b.ReportAllocs()
			for b.Loop() {
				mfs, err := reg.Gather()
				if err != nil {
					b.Fatal(err)
				}
				var buf bytes.Buffer
				for _, mf := range mfs {
					expfmt.MetricFamilyToText(&buf, mf)
				}
				b.SetBytes(int64(buf.Len()))
			}
		})
	}
}

// TestDeclaredIsWhatIsEmitted: every family a scrape emits is declared by
// Declared with the same help and label names, and no name is declared
// twice, so what alerts/series reads from Declared is what storcast exports.
func TestDeclaredIsWhatIsEmitted(t *testing.T) {
	decl := map[string]Series{}
	for _, s := range Declared() {
		if _, dup := decl[s.Name]; dup {
			t.Errorf("%s declared twice", s.Name)
		}
		decl[s.Name] = s
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(New(snapshots(t), shardOfFixture{}, nil), reloadOfFixture())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) < 20 {
		t.Fatalf("only %d families in the scrape of the full fixture", len(mfs))
	}
	for _, mf := range mfs {
		d, ok := decl[mf.GetName()]
		if !ok {
			t.Errorf("%s emitted but not declared", mf.GetName())
			continue
		}
		if d.Help != mf.GetHelp() {
			t.Errorf("%s: help %q, declared %q", mf.GetName(), mf.GetHelp(), d.Help)
		}
		for _, m := range mf.GetMetric() {
			var names []string
			for _, l := range m.GetLabel() {
				names = append(names, l.GetName())
			}
			want := slices.Sorted(slices.Values(d.Labels))
			if !slices.Equal(names, want) {
				t.Errorf("%s: labels %v, declared %v", mf.GetName(), names, d.Labels)
			}
		}
	}
}

// TestWorkloadSeries: the read share by bytes weighs each direction by its
// own request size; an idle cluster exports no workload.
func TestWorkloadSeries(t *testing.T) {
	busy := &engine.Snapshot{Cluster: "c", HasObserved: true, Models: map[string]apiv1.ModelStatus{},
		Observed: features.Observed{ReadIOPS: 1400, WriteIOPS: 600, IOPS: 2000, ReadRatio: 0.7, ReadSizeBytes: 4096, WriteSizeBytes: 65536, IOSizeBytes: 22528}}
	idle := &engine.Snapshot{Cluster: "i", HasObserved: true, Models: map[string]apiv1.ModelStatus{},
		Observed: features.Observed{Idle: true, ReadRatio: 0.7, ReadSizeBytes: 4096, WriteSizeBytes: 4096, IOSizeBytes: 4096}}
	// With the hosts' block requests: 600 of 2400 submitted were merged.
	disks := &engine.Snapshot{Cluster: "d", HasObserved: true, Models: map[string]apiv1.ModelStatus{},
		Observed: features.Observed{ReadIOPS: 1400, WriteIOPS: 600, IOPS: 2000, ReadRatio: 0.7, ReadSizeBytes: 4096, WriteSizeBytes: 4096, IOSizeBytes: 4096,
			DiskMerged: 600, DiskCompleted: 1800, HasDiskRequests: true}}
	out := string(scrape(t, published(busy, idle, disks)))
	if !strings.Contains(out, `storcast_workload_sequential_ratio{cluster="d"} 0.25`+"\n") {
		t.Error("missing the sequential ratio 600 / (600 + 1800) of the cluster with disk requests")
	}
	if strings.Contains(out, `storcast_workload_sequential_ratio{cluster="c"}`) {
		t.Error("a cluster without disk requests exports a sequential ratio (invented)")
	}
	// 1400·4096 / (1400·4096 + 600·65536) = 0.12727...
	for _, want := range []string{
		`storcast_workload_read_ratio{by="bytes",cluster="c"} 0.12727272727272726`,
		`storcast_workload_read_ratio{by="ops",cluster="c"} 0.7`,
		`storcast_workload_request_size_bytes{cluster="c",op="write"} 65536`,
		`storcast_workload_throughput_bytes{cluster="c",op="write"} 3.93216e+07`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s", want)
		}
	}
	if strings.Contains(out, `storcast_workload_read_ratio{by="ops",cluster="i"}`) {
		t.Error("an idle cluster exports a workload")
	}
}

// TestObservedMixUnknownWhileIdle: a cluster idle since before any busy
// window (a new deployment, no saved state) has no mix: its observed read
// ratio and IO size are absent, not 0; its IOPS is 0. Idle with a mix
// known from before, both are exported.
func TestObservedMixUnknownWhileIdle(t *testing.T) {
	unknown := &engine.Snapshot{Cluster: "u", HasObserved: true, SourceUp: true, Models: map[string]apiv1.ModelStatus{},
		Observed: features.Observed{Idle: true}}
	known := &engine.Snapshot{Cluster: "k", HasObserved: true, SourceUp: true, Models: map[string]apiv1.ModelStatus{},
		Observed: features.Observed{Idle: true, ReadRatio: 0.7, ReadSizeBytes: 4096, WriteSizeBytes: 4096, IOSizeBytes: 4096}}
	out := string(scrape(t, published(unknown, known)))
	for _, s := range []string{`storcast_observed_read_ratio{cluster="u"}`, `storcast_observed_io_size_bytes{cluster="u"}`} {
		if strings.Contains(out, s) {
			t.Errorf("%s exported for a cluster whose mix is unknown", s)
		}
	}
	for _, s := range []string{`storcast_observed_iops{cluster="u"} 0`, `storcast_observed_read_ratio{cluster="k"} 0.7`, `storcast_observed_io_size_bytes{cluster="k"} 4096`} {
		if !strings.Contains(out, s+"\n") {
			t.Errorf("missing %s", s)
		}
	}
}

// TestConcurrentScrapesAgree: scrapes running at once share the interned
// label pairs and each gets the exposition a scrape alone gets (run with
// -race to check the sharing).
func TestConcurrentScrapesAgree(t *testing.T) {
	snaps := snapshots(t)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(New(snaps, nil, nil))
	text := func() (string, error) {
		mfs, err := reg.Gather()
		var buf bytes.Buffer
		for _, mf := range mfs {
			if mf.GetName() != "storcast_scrape_collector_duration_seconds" {
				expfmt.MetricFamilyToText(&buf, mf)
			}
		}
		return buf.String(), err
	}
	want, err := text()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got, errs := make([]string, 8), make([]error, 8)
	for i := range got {
		wg.Go(func() { got[i], errs[i] = text() })
	}
	wg.Wait()
	for i, g := range got {
		if errs[i] != nil || g != want {
			t.Errorf("concurrent scrape %d (err %v) differs from a lone scrape:\n%s\nwant\n%s", i, errs[i], g, want)
		}
	}
}

// TestGaugeOfAnyDesc: a descriptor not made by newDesc still gets its
// labels, sorted by name, through client_golang's constant metric.
func TestGaugeOfAnyDesc(t *testing.T) {
	d := prometheus.NewDesc("storcast_test_gauge", "Test.", []string{"z", "a"}, nil)
	for _, desc := range []*prometheus.Desc{d, newDescForTest(t)} {
		ch := make(chan prometheus.Metric, 1)
		gauge(ch, desc, 2.5, "zv", "av")
		var m dto.Metric
		if err := (<-ch).Write(&m); err != nil {
			t.Fatal(err)
		}
		if len(m.Label) != 2 || m.Label[0].GetName() != "a" || m.Label[0].GetValue() != "av" || m.Label[1].GetName() != "z" || m.Label[1].GetValue() != "zv" || m.GetGauge().GetValue() != 2.5 {
			t.Errorf("%v: %v", desc, &m)
		}
	}
}

// newDescForTest is a descriptor of newDesc without declaring it (the
// declarations are what the exposition tests check).
func newDescForTest(t *testing.T) *prometheus.Desc {
	n := len(declared)
	d := newDesc("storcast_test_gauge", "Test.", []string{"z", "a"})
	declared = declared[:n]
	t.Cleanup(func() { delete(labelNames, d) })
	return d
}

// TestInvalidLabelFailsOnlyItsCollector: a label value that is not UTF-8
// fails the collector that emits it (storcast_scrape_collector_success 0),
// and the rest of the scrape is served.
func TestInvalidLabelFailsOnlyItsCollector(t *testing.T) {
	snaps := snapshots(t)
	bad := *snaps[0]
	bad.Cluster = "bad\xff"
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(New(fixed{snaps[0], &bad}, nil, nil))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("the scrape failed: %v", err)
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		expfmt.MetricFamilyToText(&buf, mf)
	}
	out := buf.String()
	if !strings.Contains(out, `storcast_scrape_collector_success{collector="observed"} 0`) {
		t.Errorf("the observed collector did not fail:\n%s", out)
	}
	if !strings.Contains(out, `storcast_observed_iops{cluster="ceph-a"}`) && !strings.Contains(out, `storcast_max_iops{cluster="ceph-a",op="total"}`) {
		t.Errorf("the good cluster's series are missing:\n%s", out)
	}
}

// TestCollectorHealthHelpSaysLastRun: the collectors' health series say
// they describe the collectors' last run, which Exposition starts when the
// snapshots change (TestExpositionGathersOncePerSnapshotSet), not a scrape.
func TestCollectorHealthHelpSaysLastRun(t *testing.T) {
	for _, s := range Declared() {
		if !strings.HasPrefix(s.Name, "storcast_scrape_collector_") {
			continue
		}
		if !strings.Contains(s.Help, "last run") || !strings.Contains(s.Help, "not on every scrape") || strings.Contains(s.Help, "collector's scrape") {
			t.Errorf("%s: help %q does not say it describes the collectors' last run, not every scrape", s.Name, s.Help)
		}
	}
}

// TestDeclaredValuesAreWhatIsEmitted: a label declared with its values
// (oneOf) takes exactly those in the full fixture's scrape, no other and
// none missing, so the fixtures of the dashboard and alert tests hold only
// label values storcast exports (a query on bound="mean" of max IOPS,
// which has none, fails there).
func TestDeclaredValuesAreWhatIsEmitted(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(New(snapshots(t), shardOfFixture{}, nil), reloadOfFixture())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	emitted := map[string]map[string]map[string]bool{} // series -> label -> values
	for _, mf := range mfs {
		emitted[mf.GetName()] = map[string]map[string]bool{}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if emitted[mf.GetName()][l.GetName()] == nil {
					emitted[mf.GetName()][l.GetName()] = map[string]bool{}
				}
				emitted[mf.GetName()][l.GetName()][l.GetValue()] = true
			}
		}
	}
	n := 0
	for _, s := range Declared() {
		for label, values := range s.Values {
			n++
			got := slices.Sorted(maps.Keys(emitted[s.Name][label]))
			if want := slices.Sorted(slices.Values(values)); !slices.Equal(got, want) {
				t.Errorf("%s: label %s takes %q in the fixture's scrape, declared %q", s.Name, label, got, want)
			}
		}
	}
	if n < 15 {
		t.Errorf("only %d labels declared with their values", n)
	}
}
