package models

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
)

// historyFrame is a 1-minute frame of 4 KiB windows at read ratio 0.5
// serving iops[i] in all (NaN: no sample).
func historyFrame(iops []float64) *source.Frame {
	start := time.Unix(1.79e9, 0)
	n := len(iops)
	f := &source.Frame{Range: source.Range{Start: start, End: start.Add(time.Duration(n-1) * time.Minute), Step: time.Minute},
		Signals: map[string][]float64{}}
	for _, k := range []string{source.ReadOps, source.WriteOps, source.ReadBytes, source.WriteBytes} {
		f.Signals[k] = make([]float64, n)
	}
	for i, x := range iops {
		f.Signals[source.ReadOps][i], f.Signals[source.WriteOps][i] = x/2, x/2
		f.Signals[source.ReadBytes][i], f.Signals[source.WriteBytes][i] = x/2*4096, x/2*4096
	}
	return f
}

// The paper's law at 4 KiB, 40,000 reads and 10,000 writes a second: at
// 50% reads U = (x/2)/40,000 + (x/2)/10,000, so the max is 16,000 IOPS. No
// runs: the band is the central figure, and a window is held to it plus
// singleRunSpread, 17,600.
var historyCal = conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 40000, WriteIOPS: 10000}}}

func mustTest(t *testing.T, m *conservation.Model, f *source.Frame) HistoryLoad {
	t.Helper()
	h, err := testHistoryLoad(m, f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHistoryLoadAgainstKnownCapacity(t *testing.T) {
	m, err := conservation.NewModel(historyCal)
	if err != nil {
		t.Fatal(err)
	}
	base := make([]float64, 60)
	for i := range base {
		base[i] = 8000 + 100*float64(i%10) // 8,000-8,900: at most 56% of 16,000
	}
	t.Run("below the frontier", func(t *testing.T) {
		h := mustTest(t, m, historyFrame(base))
		// The first two windows' rate window (2 minutes) reaches before
		// the frame: 58 tested.
		if h.Windows != 58 || h.Above != 0 || h.Contradicted() {
			t.Fatalf("%+v: want 58 windows, none above", h)
		}
		if want := 8900.0 / 17600; math.Abs(h.Ratio-want) > 1e-9 || h.IOPS != 8900 {
			t.Errorf("ratio %v at %v IOPS, want %v at 8900 (the third-highest of the 8,900s)", h.Ratio, h.IOPS, want)
		}
		if h.note() != "" {
			t.Errorf("note %q, want none", h.note())
		}
	})
	t.Run("three windows above", func(t *testing.T) {
		iops := append([]float64(nil), base...)
		iops[20], iops[30], iops[40] = 22000, 21000, 19800
		h := mustTest(t, m, historyFrame(iops))
		if h.Above != 3 || !h.Contradicted() {
			t.Fatalf("%+v: want 3 above, contradicted", h)
		}
		if want := 19800.0 / 17600; math.Abs(h.Ratio-want) > 1e-9 || math.Abs(h.Upper-17600) > 1e-9 || h.ReadRatio != 0.5 {
			t.Errorf("%+v: want ratio %v at the third-highest window (19,800 over 17,600, 50%% reads)", h, want)
		}
		if got := time.Unix(int64(h.Time), 0); !got.Equal(time.Unix(1.79e9, 0).Add(40 * time.Minute)) {
			t.Errorf("window time %v, want the 40th minute", got)
		}
		n := h.note()
		for _, s := range []string{"3 of 58 measured windows", "19800 IOPS at 50% reads", "band ends at 17600 (1.12x)", "recalibrate"} {
			if !strings.Contains(n, s) {
				t.Errorf("note %q lacks %q", n, s)
			}
		}
	})
	t.Run("two windows above are not enough", func(t *testing.T) {
		iops := append([]float64(nil), base...)
		iops[20], iops[30] = 22000, 21000
		if h := mustTest(t, m, historyFrame(iops)); h.Above != 2 || h.Contradicted() {
			t.Errorf("%+v: want 2 above, not contradicted", h)
		}
	})
	t.Run("a window after a gap is no measurement", func(t *testing.T) {
		// The three high windows follow a scrape gap within their rate
		// window (2 minutes at a 1-minute step): Prometheus extrapolated
		// them from part of it.
		iops := append([]float64(nil), base...)
		iops[19] = math.NaN()
		iops[20], iops[21], iops[22] = 22000, 21000, 19800
		if h := mustTest(t, m, historyFrame(iops)); h.Above != 1 || h.Contradicted() {
			t.Errorf("%+v: want only the window past the gap's rate window (22) above, not contradicted", h)
		}
	})
	t.Run("too few windows", func(t *testing.T) {
		if h := mustTest(t, m, historyFrame([]float64{20000, 20000, 20000})); h.Ratio != 0 || h.Contradicted() {
			t.Errorf("%+v: want no ratio from 1 tested window", h)
		}
	})
}

// With read/write interference the frontier lies inside the paper's line;
// a window whose rate averages a saturated read phase and a saturated write
// phase sits between the two, and is no contradiction. Above the line it
// is.
func TestHistoryLoadTimeSharedMixes(t *testing.T) {
	cal := historyCal
	// 12,000 IOPS at 50/50 where the line allows 16,000: at 6,000 + 6,000
	// U = 0.15 + 0.6 + 4γ·0.15·0.6 = 1, γ = 0.25/0.36.
	cal.Mixed = []conservation.MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 12000}}
	m, err := conservation.NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := m.AtMix([]conservation.OpClass{{Op: conservation.Read, IOSizeBytes: 4096, Rate: 0.5}, {Op: conservation.Write, IOSizeBytes: 4096, Rate: 0.5}}); err != nil || math.Abs(res.MaxTotalIOPS-12000) > 1e-6 {
		t.Fatalf("the frontier at 50/50: %v (%v), want 12000", res.MaxTotalIOPS, err)
	}
	iops := make([]float64, 30)
	for i := range iops {
		iops[i] = 6000
	}
	// 15,000 at 50/50 is 0.94 of the line, 1.25 of the frontier: the
	// time-average of pure reads at 40,000 for 19% of the window and pure
	// writes at 10,000 for 75%. (No runs: both held to their max + 10%.)
	iops[10], iops[15], iops[20] = 15000, 15000, 15000
	if h := mustTest(t, m, historyFrame(iops)); h.Contradicted() || math.Abs(h.Ratio-15000.0/17600) > 1e-9 {
		t.Errorf("%+v: want the line's 0.852, not contradicted", h)
	}
	iops[10], iops[15], iops[20] = 19360, 19360, 19360
	if h := mustTest(t, m, historyFrame(iops)); !h.Contradicted() || math.Abs(h.Ratio-1.1) > 1e-9 {
		t.Errorf("%+v: want 1.1 over the line, contradicted", h)
	}
}

// A calibration of one run per figure is granted singleRunSpread above its
// max (its band has no width); one with repeated runs is held to its band.
// Here the runs agree exactly, so the band is the max itself: a history at
// 5% over it contradicts the repeated calibration and not the single one.
func TestHistoryLoadSingleRunSpread(t *testing.T) {
	single, err := conservation.NewModel(historyCal)
	if err != nil {
		t.Fatal(err)
	}
	cal := historyCal
	cal.Points = []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 40000, WriteIOPS: 10000, ReadRuns: []float64{40000, 40000}, WriteRuns: []float64{10000, 10000}}}
	repeated, err := conservation.NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	iops := make([]float64, 30)
	for i := range iops {
		iops[i] = 16800
	}
	if h := mustTest(t, single, historyFrame(iops)); h.Contradicted() || math.Abs(h.Ratio-16800.0/17600) > 1e-9 {
		t.Errorf("one run per figure: %+v, want 16,800 over 17,600, not contradicted", h)
	}
	if h := mustTest(t, repeated, historyFrame(iops)); !h.Contradicted() || math.Abs(h.Ratio-1.05) > 1e-9 {
		t.Errorf("repeated runs: %+v, want 16,800 over 16,000, contradicted", h)
	}
}

// Through the fitter: a calibration file the history contradicts says so
// in its note, and keeps the test when saved and decoded.
func TestCapacityFitterTestsTheCalibrationFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "calibration.yml")
	if err := os.WriteFile(file, []byte("points:\n  - {io_size: 4KiB, read_iops: 40000, write_iops: 10000}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	iops := make([]float64, 60)
	for i := range iops {
		iops[i] = 8000
	}
	iops[20], iops[30], iops[40] = 20000, 19000, 18000
	cl := &config.Cluster{Name: "c", Calibration: config.Calibration{File: file}}
	f, err := CapacityFitter{}.Fit(context.Background(), Input{Cluster: cl, Frame: historyFrame(iops)})
	if err != nil {
		t.Fatal(err)
	}
	c := f.(*Capacity)
	if !c.History.Contradicted() || !strings.HasPrefix(c.Note(), "the history served more than the calibration allows") {
		t.Fatalf("history %+v, note %q: want the contradiction first", c.History, c.Note())
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	d, err := CapacityFitter{}.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.(*Capacity); got.History != c.History || got.Note() != c.Note() {
		t.Errorf("decoded history %+v note %q, saved %+v %q", got.History, got.Note(), c.History, c.Note())
	}
}

// calibrationWithRuns is a calibration of two sizes with three runs per
// figure and a 50/50 point per size: its max IOPS has a band.
func calibrationWithRuns() conservation.Calibration {
	return conservation.Calibration{
		Points: []conservation.Point{
			{IOSizeBytes: 4096, ReadIOPS: 37620, WriteIOPS: 4038, ReadRuns: []float64{42196, 37118, 33545}, WriteRuns: []float64{4580, 3835, 3700}},
			{IOSizeBytes: 65536, ReadIOPS: 16943, WriteIOPS: 3379, ReadRuns: []float64{19412, 16312, 15105}, WriteRuns: []float64{3886, 3148, 3103}},
		},
		Mixed: []conservation.MixedPoint{
			{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 7055, Runs: []float64{8003, 6094, 7069}},
			{IOSizeBytes: 65536, ReadRatio: 0.5, IOPS: 5021, Runs: []float64{5347, 5255, 4459}},
		},
	}
}

// The test at every capacity fit: a week at 5 minutes (2,016 windows) of a
// calibration with three runs per figure and a 50/50 point per size, the
// sizes and mix wandering.
func BenchmarkHistoryLoad(b *testing.B) {
	m, err := conservation.NewModel(calibrationWithRuns())
	if err != nil {
		b.Fatal(err)
	}
	n := 2016
	start := time.Unix(1.79e9, 0)
	f := &source.Frame{Range: source.Range{Start: start, End: start.Add(time.Duration(n-1) * 5 * time.Minute), Step: 5 * time.Minute},
		Signals: map[string][]float64{}}
	for _, k := range []string{source.ReadOps, source.WriteOps, source.ReadBytes, source.WriteBytes} {
		f.Signals[k] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		rr := 0.3 + 0.4*float64(i%7)/6
		size := []float64{4096, 16384, 65536}[i%3]
		x := 1000 + float64(i%50)*40
		f.Signals[source.ReadOps][i], f.Signals[source.WriteOps][i] = rr*x, (1-rr)*x
		f.Signals[source.ReadBytes][i], f.Signals[source.WriteBytes][i] = rr*x*size, (1-rr)*x*size
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h, err := testHistoryLoad(m, f)
		if err != nil || h.Windows != n-2 {
			b.Fatalf("%+v %v: want %d windows", h, err, n-2)
		}
	}
}

// TestLowerBoundFollowsTheMix: a history that never saturated proves a
// lower bound on max IOPS at a mix. It was computed at the fit's mix and
// served until the next fit whatever the mix did: 1,000 IOPS proved at
// 90% reads (900 reads/s and 100 writes/s served) was served at 10% reads,
// where the same history proves 100/0.9 = 111. The bound served follows
// the mix observed, through a saved state too.
func TestLowerBoundFollowsTheMix(t *testing.T) {
	n := 60
	start := time.Unix(1.79e9, 0)
	f := &source.Frame{Range: source.Range{Start: start, End: start.Add(time.Duration(n-1) * time.Minute), Step: time.Minute},
		Signals: map[string][]float64{}}
	for k, v := range map[string]float64{source.ReadOps: 900, source.WriteOps: 100, source.ReadBytes: 900 * 4096, source.WriteBytes: 100 * 4096} {
		f.Signals[k] = make([]float64, n)
		for i := range n {
			f.Signals[k][i] = v
		}
	}
	at := func(rho float64) features.Observed {
		return features.Observed{ReadRatio: rho, IOSizeBytes: 4096, ReadSizeBytes: 4096, WriteSizeBytes: 4096, ReadIOPS: 1000 * rho, WriteIOPS: 1000 * (1 - rho), IOPS: 1000}
	}
	fitted, err := CapacityFitter{}.Fit(context.Background(), Input{Cluster: &config.Cluster{Name: "c"}, Frame: f, Observed: at(0.9), HasObserved: true})
	if err != nil {
		t.Fatal(err)
	}
	b, ok := fitted.(*CapacityBound)
	if !ok || b.Bound.IOPS != 1000 {
		t.Fatalf("fitted %T %+v; want a lower bound of 1000 IOPS", fitted, fitted)
	}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	restored, err := CapacityFitter{}.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]Fitted{"fitted": b, "restored": restored} {
		for _, c := range []struct{ rho, want float64 }{{0.9, 1000}, {0.1, 100 / 0.9}, {0.5, 200}} {
			if got := (Set{Conservation: m}).Derive(at(c.rho), true, nil).MaxIOPSLowerBound; math.Abs(got-c.want) > 1e-9*c.want {
				t.Errorf("%s, at %.0f%% reads: bound %v, want %v", name, 100*c.rho, got, c.want)
			}
		}
	}
}
