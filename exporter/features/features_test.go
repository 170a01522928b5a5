package features

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/insideout"
)

var nan = math.NaN()

func frame(reads, writes, rbytes, wbytes, lat []float64) *source.Frame {
	return &source.Frame{
		Range: source.Range{Start: time.Unix(1000, 0), End: time.Unix(1000+int64(len(reads)-1)*60, 0), Step: time.Minute},
		Signals: map[string][]float64{
			source.ReadOps: reads, source.WriteOps: writes, source.ReadBytes: rbytes, source.WriteBytes: wbytes, source.Latency: lat,
		},
	}
}

func TestCurrentSkipsGapsAndGoesStale(t *testing.T) {
	f := frame(
		[]float64{300, 600, nan},
		[]float64{100, 200, nan},
		[]float64{300 * 4096, 600 * 4096, nan},
		[]float64{100 * 65536, 200 * 65536, nan},
		[]float64{0.001, 0.002, nan})
	o, err := Current(f, 2)
	if err != nil {
		t.Fatal(err)
	}
	// The last point is a gap: the one before it is "now".
	want := Observed{Time: 1060, ReadIOPS: 600, WriteIOPS: 200, IOPS: 800, ReadRatio: 0.75,
		ReadSizeBytes: 4096, WriteSizeBytes: 65536, IOSizeBytes: (600*4096 + 200*65536) / 800.0, LatencySeconds: 0.002}
	if o != want {
		t.Errorf("got %+v\nwant %+v", o, want)
	}
	if _, err := Current(f, 1); !errors.Is(err, ErrNoData) {
		t.Errorf("a gap as old as maxAge: %v, want ErrNoData", err)
	}
	classes := OpClasses(o)
	if classes[0] != (conservation.OpClass{Op: conservation.Read, IOSizeBytes: 4096, Rate: 600}) ||
		classes[1] != (conservation.OpClass{Op: conservation.Write, IOSizeBytes: 65536, Rate: 200}) {
		t.Errorf("classes %+v", classes)
	}
}

// Negative points are dropped everywhere, idle ones from the capacity and
// latency windows (they measure no capacity) but not from the demand.
func TestNegativeAndIdlePointsAreDropped(t *testing.T) {
	f := frame(
		[]float64{-5, 0, 100},
		[]float64{10, 0, 0},
		[]float64{0, 0, 409600},
		[]float64{40960, 0, 0},
		[]float64{0.001, nan, nan})
	ws := CapacityWindows(f)
	if len(ws) != 1 || ws[0].ReadIOPS != 100 || ws[0].WriteIOPS != 0 || ws[0].IOSizeBytes != 4096 || ws[0].LatencySeconds != 0 {
		t.Errorf("windows %+v, want only the last point (latency unknown -> 0)", ws)
	}
	// A negative byte rate (a generic query's deriv() of a gauge) is no
	// measurement either: it was kept, with a read size of −4096 bytes.
	neg := frame([]float64{100}, []float64{100}, []float64{-409600}, []float64{1228800}, []float64{0.001})
	if ws := CapacityWindows(neg); len(ws) != 0 {
		t.Errorf("a negative byte rate: windows %+v, want none", ws)
	}
	// Demand keeps the idle point as a demand of 0 (not the invalid one).
	ts, iops := Demand(f)
	if len(ts) != 2 || ts[0] != 1060 || iops[0] != 0 || ts[1] != 1120 || iops[1] != 100 {
		t.Errorf("demand %v %v, want 0 at 1060 and 100 at 1120", ts, iops)
	}
	names, cols := LatencyColumns(f)
	if names[0] != ColIOPS || names[1] != ColLatency || !math.IsNaN(cols[0][0]) || cols[0][2] != 100 || !math.IsNaN(cols[1][2]) {
		t.Errorf("latency columns %v %v", names, cols)
	}
}

// hostStats aggregates per-host series (role, metric, host -> values) into
// what the query engine returns for them (source.HostQueries): per point,
// across the hosts with a finite value, insideout's own aggregation as the
// reference for mean, std, sum and p95, and the count of those hosts. A
// point no host reports has no sample (NaN), as in PromQL.
func hostStats(t *testing.T, n int, perHost map[string]map[string]map[string][]float64) map[string]map[string]map[string][]float64 {
	t.Helper()
	out := map[string]map[string]map[string][]float64{}
	for role, metrics := range perHost {
		out[role] = map[string]map[string][]float64{}
		for m, hosts := range metrics {
			st := map[string][]float64{}
			for _, name := range append(slices.Clone(insideout.Stats), source.StatCount) {
				st[name] = constant(n, nan)
			}
			schema := insideout.Schema{Roles: []insideout.RoleMetrics{{Role: role, Metrics: []string{m}}}}
			for i := 0; i < n; i++ {
				w := insideout.Window{role: {}}
				for h, v := range hosts {
					if !math.IsNaN(v[i]) {
						w[role][h] = map[string]float64{m: v[i]}
					}
				}
				if len(w[role]) == 0 {
					continue
				}
				x, err := schema.Aggregate(w)
				if err != nil {
					t.Fatal(err)
				}
				for k, name := range insideout.Stats {
					st[name][i] = x[k]
				}
				st[source.StatCount][i] = float64(len(w[role]))
			}
			out[role][m] = st
		}
	}
	return out
}

func TestHostFeatures(t *testing.T) {
	n := 10
	ones := func(v float64) []float64 { return constant(n, v) }
	f := frame(ones(100), ones(50), ones(100*4096), ones(50*4096), ones(0.001))
	writesH2 := ones(75)
	writesH2[9] = nan // h2 misses a metric at the last point
	f.HostStats = hostStats(t, n, map[string]map[string]map[string][]float64{
		"osd": {
			"disk_reads":  {"h1": ones(60), "h2": ones(40)},
			"disk_writes": {"h1": ones(75), "h2": writesH2},
		},
	})
	schema, leftOut := HostSchema(f)
	if len(leftOut) != 0 || len(schema.Roles) != 1 || !slices.Equal(schema.Roles[0].Metrics, []string{"disk_reads", "disk_writes"}) {
		t.Fatalf("schema %+v, left out %v", schema, leftOut)
	}
	rows, err := HostFeatures(f, schema, 4)
	if err != nil {
		t.Fatal(err)
	}
	if r, p := rows.X.Dims(); r != 4 || p != 8 || len(rows.Targets["read_iops"]) != 4 {
		t.Fatalf("%d×%d rows, want 4 (maxWindows) × 8", r, p)
	}
	// disk_reads: mean, std, sum, p95 of {40, 60}; disk_writes at the last
	// point over h1 alone (the metric's own hosts at that point).
	want := []float64{50, 10, 100, 40 + 0.95*20, 75, 0, 75, 75}
	if got := rows.X.RawRowView(3); !slices.Equal(got, want) {
		t.Errorf("last row %v, want %v", got, want)
	}
	if rows.Hosts[3] != 2 || rows.Times[3] != 1540 {
		t.Errorf("last row: %d hosts at %v, want 2 at 1540", rows.Hosts[3], rows.Times[3])
	}
	if rows.Targets["read_iops"][3] != 100 || rows.Targets["write_bytes_per_second"][0] != 50*4096 {
		t.Errorf("targets %v", rows.Targets)
	}
	if _, err := HostFeatures(frame(ones(1), ones(1), ones(1), ones(1), ones(1)), schema, 0); !errors.Is(err, ErrNoData) {
		t.Errorf("no hosts: %v", err)
	}
}

// TestHostSchemaLeavesOutAMetricSomeHostLacks: h3 has no network metric
// at all (a node_exporter without that collector). The metric is left out,
// named with how many hosts report it, and every point still makes a row
// (before, a host lacking any metric was dropped, and a metric no host
// had dropped every window: "no grid point with both host metrics and
// cluster signals"). A host missing one scrape keeps its metric.
func TestHostSchemaLeavesOutAMetricSomeHostLacks(t *testing.T) {
	n := 10
	ones := func(v float64) []float64 { return constant(n, v) }
	f := frame(ones(100), ones(50), ones(100*4096), ones(50*4096), ones(0.001))
	gap := ones(3)
	gap[4] = nan
	f.HostStats = hostStats(t, n, map[string]map[string]map[string][]float64{
		"osd": {
			"disk_reads":   {"h1": ones(60), "h2": ones(40), "h3": ones(50)},
			"load1":        {"h1": ones(1), "h2": ones(2), "h3": gap},
			"net_rx_bytes": {"h1": ones(1e6), "h2": ones(2e6)},
			"cpu_busy":     {}, // the query selected nothing
		},
		"mon": {"load1": {}},
	})
	schema, leftOut := HostSchema(f)
	if len(schema.Roles) != 1 || schema.Roles[0].Role != "osd" || !slices.Equal(schema.Roles[0].Metrics, []string{"disk_reads", "load1"}) {
		t.Errorf("schema %+v", schema)
	}
	want := []string{"mon/load1 (no host of the role reports any metric)", "osd/cpu_busy (reported by at most 0 of 3 hosts)", "osd/net_rx_bytes (reported by at most 2 of 3 hosts)"}
	if !slices.Equal(leftOut, want) {
		t.Errorf("left out %q, want %q", leftOut, want)
	}
	rows, err := HostFeatures(f, schema, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := rows.X.Dims(); r != n {
		t.Fatalf("%d rows, want %d", r, n)
	}
	for r, h := range rows.Hosts {
		if h != 3 {
			t.Errorf("row %d: %d hosts, want 3", r, h)
		}
	}
	// load1 at point 4 over h1 and h2 (h3 missed that scrape).
	if got := rows.X.At(4, 4); got != 1.5 {
		t.Errorf("osd/load1/mean at the gap %v, want 1.5", got)
	}
}

// TestLatencyColumnsTakeTheUnsmoothedMean: M-LISP's per-role column is the
// mean across hosts of the unsmoothed values (StatRawMean) when the source
// smoothed StatMean for Inside-Out, and StatMean otherwise.
func TestLatencyColumnsTakeTheUnsmoothedMean(t *testing.T) {
	f := frame([]float64{1, 2}, []float64{1, 1}, []float64{1, 1}, []float64{1, 1}, []float64{nan, nan})
	f.HostStats = map[string]map[string]map[string][]float64{"osd": {
		"cpu":  {source.StatMean: {1, 2}, source.StatRawMean: {3, 4}},
		"disk": {source.StatMean: {5, 6}},
	}}
	names, cols := LatencyColumns(f)
	k := len(names)
	if !slices.Equal(names[k-2:], []string{"osd/cpu/mean", "osd/disk/mean"}) || !slices.Equal(cols[k-2], []float64{3, 4}) || !slices.Equal(cols[k-1], []float64{5, 6}) {
		t.Errorf("columns %v %v", names, cols)
	}
}

// constant is n copies of v.
func constant(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func TestTailKeepsTheEnd(t *testing.T) {
	f := frame([]float64{1, 2, 3}, []float64{1, 1, 1}, []float64{4096, 8192, 12288}, []float64{4096, 4096, 4096}, []float64{nan, nan, nan})
	tl := f.Tail(2)
	if tl.Range.N() != 2 || tl.Times()[0] != 1060 || tl.Signals[source.ReadOps][0] != 2 {
		t.Errorf("tail %+v", tl)
	}
	if o, err := Current(tl, 1); err != nil || o.ReadIOPS != 3 {
		t.Errorf("current of tail %+v %v", o, err)
	}
}

// TestCurrentIdleAndEmpty: zero ops are an idle observation carrying the
// last busy mix; no sample at all names the signals and their queries.
func TestCurrentIdleAndEmpty(t *testing.T) {
	f := frame(
		[]float64{300, 0, 0},
		[]float64{100, 0, 0},
		[]float64{300 * 4096, 0, 0},
		[]float64{100 * 65536, 0, 0},
		[]float64{0.001, nan, nan})
	o, err := Current(f, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Idle || o.IOPS != 0 || o.Time != 1120 || o.ReadRatio != 0.75 || o.ReadSizeBytes != 4096 || o.WriteSizeBytes != 65536 || !math.IsNaN(o.LatencySeconds) {
		t.Errorf("idle observation %+v", o)
	}
	classes, ok := MixClasses(o)
	if !ok || classes[0].Rate != 0.75 || classes[1].Rate != 0.25 || classes[1].IOSizeBytes != 65536 {
		t.Errorf("mix classes %+v %v", classes, ok)
	}
	// Operations whose bytes are missing, after an idle point: busy, its
	// mix unknown, not the idle point (it read idle: headroom 1 and no
	// advisor while load arrived).
	busyNoBytes := frame([]float64{0, 500}, []float64{0, 500}, []float64{0, nan}, []float64{0, nan}, []float64{nan, nan})
	if o, err := Current(busyNoBytes, 2); !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "no byte rates") {
		t.Errorf("ops without bytes after an idle point: %+v, %v; want no data naming the byte rates", o, err)
	}
	empty := frame([]float64{nan, nan}, []float64{nan, nan}, []float64{nan, nan}, []float64{nan, nan}, []float64{nan, nan})
	empty.Queries = map[string]string{source.ReadOps: `sum(rate(ceph_osd_op_r{cluster="x"}[1m]))`}
	_, err = Current(empty, 2)
	if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), `read_ops (sum(rate(ceph_osd_op_r{cluster="x"}[1m])))`) || !strings.Contains(err.Error(), "write_bytes") {
		t.Errorf("empty frame: %v", err)
	}
}

// TestObservedJSONWithUnknownLatency: an unknown latency encodes as null and
// decodes back to NaN; a known one round-trips exactly.
func TestObservedJSONWithUnknownLatency(t *testing.T) {
	o := Observed{Time: 1, IOPS: 10, ReadIOPS: 10, ReadRatio: 1, IOSizeBytes: 4096, LatencySeconds: math.NaN(), Idle: true}
	b, err := json.Marshal(o)
	if err != nil || !strings.Contains(string(b), `"latencySeconds":null`) {
		t.Fatalf("%s %v", b, err)
	}
	var back Observed
	if err := json.Unmarshal(b, &back); err != nil || !math.IsNaN(back.LatencySeconds) || back.IOPS != 10 || !back.Idle {
		t.Errorf("round trip %+v %v", back, err)
	}
	o.LatencySeconds = 0.0025
	b, _ = json.Marshal(o)
	if err := json.Unmarshal(b, &back); err != nil || back != o {
		t.Errorf("round trip %+v, want %+v", back, o)
	}
}

// TestWarmingUp: at a 15 s step the rate window is 1m (4 steps). Counters
// that begin at grid point 10, and a scrape gap at point 30, leave the
// next four points' rates from a part of their window.
func TestWarmingUp(t *testing.T) {
	start := time.Unix(1.79e9, 0)
	step := 15 * time.Second
	f := &source.Frame{Range: source.Range{Start: start, End: start.Add(49 * step), Step: step}, Signals: map[string][]float64{}}
	for _, sig := range []string{source.ReadOps, source.WriteOps} {
		v := make([]float64, 50)
		for i := range v {
			v[i] = 100
			if i < 10 || i == 30 {
				v[i] = math.NaN()
			}
		}
		f.Signals[sig] = v
	}
	window := source.RateWindowOf(step)
	times := f.Times()
	for i, want := range map[int]bool{10: true, 13: true, 14: false, 29: false, 31: true, 34: true, 35: false, 49: false} {
		if got := WarmingUp(f, times[i], window); got != want {
			t.Errorf("point %d: warming up %v, want %v", i, got, want)
		}
	}
	// A frame that does not reach a whole window back cannot tell.
	if WarmingUp(f, times[2], window) {
		t.Error("point 2 (window before the frame) reported warming up")
	}
	if WarmingUp(f, times[20]+1, window) {
		t.Error("a time off the grid reported warming up")
	}
}

// MeasuredLoad keeps exactly the windows that are not warming up and that
// the frame reaches a whole rate window back for, with their load.
func TestMeasuredLoad(t *testing.T) {
	n := 50
	f := opsFrame(n, func(i int) float64 {
		switch {
		case i < 10 || i == 30:
			return math.NaN()
		case i == 40:
			return 0 // present but idle: no load
		}
		return float64(100 + i)
	})
	window := source.RateWindowOf(f.Range.Step)
	times := f.Times()
	var want []float64
	for i := range times {
		if known := i >= 4; known && !WarmingUp(f, times[i], window) && i != 40 {
			want = append(want, times[i])
		}
	}
	got := MeasuredLoad(f, window)
	if len(got) != len(want) {
		t.Fatalf("%d windows, want %d", len(got), len(want))
	}
	for k, o := range got {
		i := int(o.Time-times[0]) / 15
		if o.Time != want[k] || o.IOPS != 2*float64(100+i) {
			t.Errorf("window %d: time %v IOPS %v, want time %v IOPS %v", k, o.Time, o.IOPS, want[k], 2*float64(100+i))
		}
	}
	// 14..29, 35..39 and 41..49: 16 + 5 + 9.
	if len(got) != 30 {
		t.Errorf("%d windows, want 30", len(got))
	}
}

// The windows whose rate Prometheus extrapolated from part of its window
// (after the gap at 30: 31-34) feed no model: the capacity history, the
// latency models' observations and M-LISP's IOPS and latency columns leave
// them out, as MeasuredLoad does; the first windows, which the frame cannot
// tell of, are kept.
func TestExtrapolatedRatesFeedNoModel(t *testing.T) {
	n := 50
	f := opsFrame(n, func(i int) float64 {
		if i == 30 {
			return math.NaN()
		}
		return float64(100 + i)
	})
	times := f.Times()
	skipped := map[float64]bool{times[30]: true, times[31]: true, times[32]: true, times[33]: true, times[34]: true}
	obs := Observations(f)
	if len(obs) != n-5 {
		t.Errorf("%d observations, want %d", len(obs), n-5)
	}
	for _, o := range obs {
		if skipped[o.Time] {
			t.Errorf("observation at %v: its rate was extrapolated", o.Time)
		}
	}
	if w := CapacityWindows(f); len(w) != n-5 {
		t.Errorf("%d capacity windows, want %d", len(w), n-5)
	}
	_, cols := LatencyColumns(f)
	for i := range times {
		if got := !math.IsNaN(cols[0][i]); got == skipped[times[i]] {
			t.Errorf("IOPS column at %d: %v", i, cols[0][i])
		}
	}
	dt, _ := Demand(f)
	if len(dt) != n-5 {
		t.Errorf("%d demand points, want %d", len(dt), n-5)
	}
	for _, x := range dt {
		if skipped[x] {
			t.Errorf("demand at %v: its rate was extrapolated", x)
		}
	}
}

// opsFrame is a frame of n points 15 s apart whose read and write ops and
// bytes are value(i) at point i (NaN: a missing sample).
func opsFrame(n int, value func(i int) float64) *source.Frame {
	start, step := time.Unix(1.79e9, 0), 15*time.Second
	f := &source.Frame{Range: source.Range{Start: start, End: start.Add(time.Duration(n-1) * step), Step: step}, Signals: map[string][]float64{}}
	for _, sig := range []string{source.ReadOps, source.WriteOps, source.ReadBytes, source.WriteBytes} {
		v := make([]float64, n)
		for i := range v {
			v[i] = value(i)
		}
		f.Signals[sig] = v
	}
	return f
}

// Finite inputs whose sums or ratios overflow are not measurements: such a
// window is dropped rather than carried, as an infinite size, into the
// models and the saved state (which JSON cannot encode).
func TestOverflowingPointsAreDropped(t *testing.T) {
	big := math.MaxFloat64
	f := frame(
		[]float64{big, 100, 1e-300, 100},
		[]float64{big, 100, 0, 100},
		[]float64{0, big, 1e10, 409600},
		[]float64{0, big, 0, 409600},
		[]float64{0.001, 0.001, 0.001, 0.001})
	obs := Observations(f)
	if len(obs) != 1 || obs[0].IOPS != 200 || obs[0].IOSizeBytes != 4096 {
		t.Errorf("observations %+v, want only the last point", obs)
	}
	if ws := CapacityWindows(f); len(ws) != 1 {
		t.Errorf("capacity windows %+v, want only the last point", ws)
	}
	for _, o := range obs {
		if _, err := json.Marshal(o); err != nil {
			t.Errorf("observation %+v does not encode: %v", o, err)
		}
	}
}
