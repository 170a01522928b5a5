package models

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/storcast/storcast/forecaster/queueing"
)

// The capacity-anchored latency model refitted on what it learned from in
// forty-one real-Ceph CI runs of 2026-11-24, 25, 27, 28 and 29 (testdata/recorded-latency, written
// by e2e/ceph/latency-record.sh from each run's archive: the what-if
// snapshot's windows, the 50% ramp's 20-60% steps, U ≤ 0.6) and read at the
// two higher steps of that ramp, at the op rate Ceph counted over each step
// (the axis the model sees: storcast observes Ceph's counters; the run's
// e2e/ceph/scorer/testdata/runs file, clusterIops) against the op latency
// Ceph measured over the same step. Read at fio's IOPS instead, as before
// 2026-11-29 (fio counted 0-6% more at these steps, a load the model never
// saw), the figures were higher (+54 ... −21%; within 20% in 10 of 40).
// The figures are pinned to 0.5% so that a change to the model shows its
// effect on real data here first. At the 80% step: +46 / +40 / −2 / −13 /
// +4 / +36 / +35 / +32 / +19 / +93 / −42 / +12 / +59 / −34 / +44 / −17 / +4 /
// −3 / +19 / +58 / +31 / +11 / +32 / +80 / +236 / −34 / +20 / +123 / +17 /
// +64 / +25 / −22 / −15 / +24 / +28 / −17 / +11 / −22 / +48 / −25 / +18%; the exponent of the open-loop curve
// stays 1 (M/G/1) in the first two, the five from 20:52 to 00:23, 02:29,
// 03:29 and 2026-11-27 15:16, 17:56, 22:19, 23:17 and 2026-11-28 02:09, 07:18, 11:13, 12:13 and 17:49 and 2026-11-29 06:15 and 13:22, where the history cannot tell, and leaves it for 0.25 / 0 / 0.5 / 0.5 in the
// others and 0 at 11:10, 11:51, 12:45, 16:16, 16:50 and 20:27 and 2026-11-28 05:10, 08:38, 13:40, 15:02, 19:44, 20:59 and 23:56 and 2026-11-29 03:30 and 07:15, 2 at 19:37 (forecaster/queueing "Shapes"; the rule was chosen on the first
// four, with M/G/1 they were +71% and +57% in the third and fourth; the last
// thirty-seven came after it). 06:05 chose Q = 0 with L0 = 0 (op latency in
// proportion to the load) and failed live, a curve of 0 at no load, until
// the curve held its value below the lowest utilization seen. 02:03's calibration put the capacity 21% over what the load
// then measured at this mix, so its U and latency came out low. Past the lower bound of the
// capacity band the upper latency bound is +Inf (the cluster may be saturated
// there), so every record has a knee, at that bound where the curve itself
// stays below the 50 ms SLO up to capacity (the near-lines, whose knee was
// NaN while the band held the curve's last finite value). Asserted as
// properties, pinned per record: the knee lies below the saturated step's
// Ceph-counted IOPS except in five (kneeAbove: 20:20 and 2026-11-29 07:15,
// calibrations over the load; 02:03, 06:05 and 2026-11-29 03:30 within 2%
// of it), and the 80% step's latency inside the band except in two
// (uncovered: 2026-11-29 06:15, the curve high, the band above the step;
// 07:15, −25%, below it); in fifteen records (pinned) the 80% step lies
// past the capacity band's lower bound, so it is covered only by a band
// without an upper bound. 11:51's
// refit is 2% below what its what-if served live (1.38 ms): the record's
// windows start a step apart from the live snapshot's; 15:16's 1% (2.12 ms
// live), the first record taken with the unbounded band.
func TestRecordedLatencyRecomputed(t *testing.T) {
	type step struct{ iops, ms float64 }
	runs := []struct {
		name          string
		f80, sat      step
		meanF80, knee float64 // pinned: ms at the 80% step, IOPS
		// unbounded: the 80% step lies at or past the lower bound of the
		// capacity band, so the latency band has no upper bound there.
		unbounded bool
		// kneeAbove: the knee above the measured saturated step (a
		// calibration over the load); uncovered: the 80% step's latency
		// outside its band (misses, kept as they fell).
		kneeAbove, uncovered bool
	}{
		{"2026-11-24T1550.json", step{3909, 2.77}, step{4770, 3.27}, 4.045, 3977.0, false, false, false},
		{"2026-11-24T1630.json", step{3924, 2.88}, step{4804, 3.35}, 4.032, 3611.8, true, false, false},
		{"2026-11-24T1722.json", step{3706, 2.86}, step{4544, 3.15}, 2.793, 4381.9, false, false, false},
		{"2026-11-24T1921.json", step{3927, 2.97}, step{4767, 3.22}, 2.590, 4580.1, false, false, false},
		{"2026-11-24T2020.json", step{4946, 3.25}, step{5009, 3.36}, 3.376, 5157.2, false, true, false},
		{"2026-11-24T2052.json", step{4110, 3.38}, step{4525, 3.44}, 4.612, 4324.6, false, false, false},
		{"2026-11-24T2221.json", step{3673, 2.41}, step{5695, 2.72}, 3.246, 3976.2, false, false, false},
		{"2026-11-24T2247.json", step{3886, 2.93}, step{5052, 3.12}, 3.856, 3825.1, false, false, false},
		{"2026-11-24T2338.json", step{4238, 3.25}, step{4961, 3.19}, 3.865, 4179.2, false, false, false},
		{"2026-11-25T0023.json", step{4419, 2.13}, step{4846, 3.25}, 4.110, 4416.9, false, false, false},
		{"2026-11-25T0203.json", step{5302, 2.38}, step{5570, 2.92}, 1.381, 5661.3, false, true, false},
		{"2026-11-25T0229.json", step{5675, 1.61}, step{6902, 2.29}, 1.806, 5495.8, true, false, false},
		{"2026-11-25T0329.json", step{5663, 2.74}, step{6114, 2.72}, 4.348, 5057.3, true, false, false},
		{"2026-11-25T0605.json", step{5785, 2.73}, step{6018, 2.66}, 1.792, 6025.9, false, true, false},
		{"2026-11-27T1110.json", step{5608, 0.99}, step{8354, 1.94}, 1.424, 6203.9, false, false, false},
		{"2026-11-27T1151.json", step{6292, 1.60}, step{6865, 2.40}, 1.330, 6048.2, true, false, false},
		{"2026-11-27T1245.json", step{6278, 1.76}, step{8107, 2.02}, 1.834, 5658.6, true, false, false},
		{"2026-11-27T1516.json", step{6049, 1.97}, step{7415, 2.25}, 1.914, 5004.3, true, false, false},
		{"2026-11-27T1616.json", step{6288, 1.51}, step{8235, 1.96}, 1.801, 6177.5, true, false, false},
		{"2026-11-27T1650.json", step{7899, 1.12}, step{10253, 1.51}, 1.773, 7176.9, true, false, false},
		{"2026-11-27T1756.json", step{5337, 2.15}, step{6285, 2.59}, 2.819, 4174.9, true, false, false},
		{"2026-11-27T1937.json", step{5865, 2.70}, step{8822, 1.81}, 2.987, 5710.0, false, false, false},
		{"2026-11-27T2027.json", step{5601, 1.70}, step{6591, 2.56}, 2.248, 5644.3, false, false, false},
		{"2026-11-27T2219.json", step{6212, 1.52}, step{7256, 2.17}, 2.733, 4290.4, true, false, false},
		{"2026-11-27T2317.json", step{7092, 1.47}, step{10391, 1.46}, 4.943, 5990.8, true, false, false},
		{"2026-11-28T0209.json", step{6471, 2.13}, step{7408, 2.24}, 1.400, 6492.1, false, false, false},
		{"2026-11-28T0510.json", step{6622, 1.93}, step{8000, 2.05}, 2.320, 6541.9, true, false, false},
		{"2026-11-28T0718.json", step{7798, 1.56}, step{7388, 2.16}, 3.483, 6513.8, true, false, false},
		{"2026-11-28T0838.json", step{5679, 1.25}, step{7287, 2.17}, 1.458, 5882.0, false, false, false},
		{"2026-11-28T1113.json", step{5273, 1.78}, step{6707, 2.38}, 2.923, 5559.9, false, false, false},
		{"2026-11-28T1213.json", step{5139, 1.90}, step{6249, 2.50}, 2.376, 5782.4, false, false, false},
		{"2026-11-28T1340.json", step{4774, 1.70}, step{6486, 2.55}, 1.323, 3975.9, true, false, false},
		{"2026-11-28T1502.json", step{5516, 1.78}, step{7016, 2.28}, 1.519, 6503.0, false, false, false},
		{"2026-11-28T1749.json", step{5180, 2.03}, step{6334, 2.59}, 2.507, 5764.1, false, false, false},
		{"2026-11-28T1944.json", step{5078, 2.00}, step{6052, 2.70}, 2.552, 5085.7, false, false, false},
		{"2026-11-28T2059.json", step{5067, 2.13}, step{6194, 2.60}, 1.772, 5542.0, false, false, false},
		{"2026-11-28T2356.json", step{4946, 1.71}, step{6506, 2.47}, 1.903, 5247.1, false, false, false},
		{"2026-11-29T0330.json", step{5123, 2.20}, step{6216, 2.50}, 1.719, 6253.3, false, true, false},
		{"2026-11-29T0615.json", step{5324, 1.95}, step{6314, 2.47}, 2.879, 6139.6, false, false, true},
		{"2026-11-29T0715.json", step{5145, 2.96}, step{5884, 2.64}, 2.213, 6484.2, false, true, true},
		{"2026-11-29T1322.json", step{5394, 1.94}, step{6418, 2.55}, 2.295, 4907.4, true, false, false},
	}
	within20, oracleWithin20 := 0, 0
	for _, r := range runs {
		data, err := os.ReadFile("testdata/recorded-latency/" + r.name)
		if err != nil {
			t.Fatal(err)
		}
		var rec QueueingRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		l, err := QueueingFitter{}.FitRecord(rec)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		q := l.(*queueingLatency)
		// The served model reports its backtest (above the 80th percentile
		// of load): the 1.5x-2x bins of these histories hold no window,
		// which must not void the whole backtest.
		if a := l.Accuracy(); !(a >= 0 && a <= 1) {
			t.Errorf("%s: accuracy %v, want the backtest's 1 − MAPE in [0, 1]", r.name, a)
		}
		for _, s := range []struct {
			name string
			step
		}{{"80%", r.f80}, {"saturated", r.sat}} {
			b, ok := l.At(s.iops)
			if !ok {
				t.Logf("%s %s step: %.0f IOPS is past the model's capacity", r.name, s.name, s.iops)
				continue
			}
			t.Logf("%s %s step (%.0f IOPS, U %.3f): %.2f ms [%.2f, %.2f], measured %.2f ms: %+.0f%%, covered %v",
				r.name, s.name, s.iops, q.Axis.u(s.iops), 1e3*b.Mean, 1e3*b.Lower, 1e3*b.Upper, s.ms, 100*(1e3*b.Mean/s.ms-1),
				1e3*b.Lower <= s.ms && s.ms <= 1e3*b.Upper)
		}
		b, ok := l.At(r.f80.iops)
		if !ok {
			t.Fatalf("%s: the 80%% step's %.0f IOPS is past the model's capacity", r.name, r.f80.iops)
		}
		knee := l.Crossing(0.05).Upper
		t.Logf("%s: class %s, open L0 %.3g s A %.3g s Q %v, knee %.0f IOPS (%.1f%% of the measured saturation)",
			r.name, q.M.Class, q.M.Open.L0, q.M.Open.A, q.M.Open.Q, knee, 100*knee/r.sat.iops)
		kneeOK := math.IsNaN(knee) == math.IsNaN(r.knee) && (math.IsNaN(knee) || math.Abs(knee/r.knee-1) <= 0.005)
		if math.Abs(1e3*b.Mean/r.meanF80-1) > 0.005 || !kneeOK {
			t.Errorf("%s: at the 80%% step %.3f ms, knee %.1f IOPS; pinned %.3f ms, %.1f IOPS", r.name, 1e3*b.Mean, knee, r.meanF80, r.knee)
		}
		// 20:20's calibration put the capacity 23% over what the load then
		// measured at this mix; the knee follows it. So did 2026-11-29
		// 07:15's, whose calibration's 50/50 4 KiB point was 11.6% over the
		// load's 50/50 step (6,837 against 6,128 IOPS by fio): its knee
		// (6,484) is 110% of the 5,884 IOPS Ceph counted at saturation.
		if below := knee < r.sat.iops; below == r.kneeAbove {
			t.Errorf("%s: knee %.0f IOPS against the measured saturated %.0f: below %v", r.name, knee, r.sat.iops, below)
		}
		// 2026-11-29 06:15's op latency rose only 1.43 times from the 60%
		// step to the 80% one (1.36, 1.95 ms) where its curve (M/G/1, the
		// history could not tell) put 2.9 ms (+48%), the band's lower end above the
		// step; 07:15's rose 1.73 times and the straight line the history
		// chose (Q = 0) put the step 25% low, under the band: misses, kept.
		if covered := 1e3*b.Lower <= r.f80.ms && r.f80.ms <= 1e3*b.Upper; covered == r.uncovered {
			t.Errorf("%s: the 80%% step's %.2f ms against the band [%.2f, %.2f]: covered %v", r.name, r.f80.ms, 1e3*b.Lower, 1e3*b.Upper, covered)
		}
		if unbounded := math.IsInf(b.Upper, 1); unbounded != r.unbounded {
			t.Errorf("%s: the 80%% step's band [%.2f, %.2f] ms: unbounded %v, pinned %v", r.name, 1e3*b.Lower, 1e3*b.Upper, unbounded, r.unbounded)
		}
		if math.Abs(1e3*b.Mean/r.f80.ms-1) <= 0.2 {
			within20++
		}
		// The same refit with the capacity an oracle would give it: the
		// axis rescaled so that U = 1 at the measured saturated IOPS.
		o, err := QueueingFitter{}.FitRecord(withCapacityAt(rec, r.sat.iops))
		if err != nil {
			t.Fatalf("%s, oracle capacity: %v", r.name, err)
		}
		ob, ok := o.At(r.f80.iops)
		if !ok {
			// Ceph counted more at the 80% step than at the saturated one.
			t.Logf("%s: with the measured saturation as capacity the 80%% step (%.0f IOPS) is past it (%.0f)", r.name, r.f80.iops, r.sat.iops)
			continue
		}
		t.Logf("%s: with the measured saturation as capacity (U %.2f at the 80%% step): %.2f ms, %+.0f%%", r.name, r.f80.iops/r.sat.iops, 1e3*ob.Mean, 100*(1e3*ob.Mean/r.f80.ms-1))
		if math.Abs(1e3*ob.Mean/r.f80.ms-1) <= 0.2 {
			oracleWithin20++
		}
	}
	// The misses at the 80% step are mostly not the capacity's: with the
	// measured saturated IOPS as the capacity (an oracle no live model has)
	// the step is within 20% in 12 of 40 records (the model 15 of 41; at
	// 2026-11-28 07:18 Ceph counted more at the 80% step than at the
	// saturated one, so the oracle has no answer). The curve above the
	// history (U 0.6 to 0.8) is what misses: Ceph's op latency carries only
	// the part of the clients' queue that waits inside the OSD.
	if within20 != 15 || oracleWithin20 != 12 {
		t.Errorf("within 20%% at the 80%% step: %d records, %d with the oracle capacity; pinned 15 and 12", within20, oracleWithin20)
	}
}

// withCapacityAt returns rec with its utilization axis (and its samples'
// utilizations) rescaled so that U = 1 at iops.
func withCapacityAt(rec QueueingRecord, iops float64) QueueingRecord {
	k := 1 / rec.Axis.u(iops)
	out := rec
	out.Axis = mixAxis{L: k * rec.Axis.L, Q: k * rec.Axis.Q}
	out.Samples = make([]queueing.Sample, len(rec.Samples))
	for i, s := range rec.Samples {
		s.U *= k
		out.Samples[i] = s
	}
	return out
}

// A record with a broken axis or capacity band is refused by name.
func TestFitRecordRefusesABrokenRecord(t *testing.T) {
	data, err := os.ReadFile("testdata/recorded-latency/2026-11-24T1722.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		modify func(*QueueingRecord)
		want   string
	}{
		{"axis 0", func(r *QueueingRecord) { r.Axis.L = 0 }, "queueing record: axis.l must be finite and > 0, axis.q finite"},
		{"axis NaN", func(r *QueueingRecord) { r.Axis.Q = math.NaN() }, "queueing record: axis.l must be finite and > 0, axis.q finite"},
		{"spread inverted", func(r *QueueingRecord) { r.Spread = capacitySpread{Low: 1.2, High: 0.8} }, "queueing record: capacitySpread must have 0 < low <= 1 <= high, finite"},
		{"no samples", func(r *QueueingRecord) { r.Samples = nil }, "invalid input: samples: 0 samples, need at least 5"},
	} {
		var rec QueueingRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		c.modify(&rec)
		_, err := QueueingFitter{}.FitRecord(rec)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// The served model saved and decoded (a restart) serves the same curve, knee
// and accuracy, on every recorded real-Ceph run; a saved state with a
// broken axis or band, or no model, is refused by name, and an accuracy
// outside [0, 1] read as none.
func TestQueueingStateRoundTrip(t *testing.T) {
	names, err := os.ReadDir("testdata/recorded-latency")
	if err != nil {
		t.Fatal(err)
	}
	var lastSaved []byte
	for _, n := range names {
		data, err := os.ReadFile("testdata/recorded-latency/" + n.Name())
		if err != nil {
			t.Fatal(err)
		}
		var rec QueueingRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		l, err := QueueingFitter{}.FitRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		saved, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		lastSaved = saved
		f, err := QueueingFitter{}.Decode(saved)
		if err != nil {
			t.Fatalf("%s: %v", n.Name(), err)
		}
		d := f.(*queueingLatency)
		wc, gc := l.Curve(), d.Curve()
		if len(wc) == 0 || len(wc) != len(gc) {
			t.Fatalf("%s: curve of %d points decoded as %d", n.Name(), len(wc), len(gc))
		}
		for i := range wc {
			if wc[i] != gc[i] {
				t.Fatalf("%s: point %d saved %+v, decoded %+v", n.Name(), i, wc[i], gc[i])
			}
		}
		wk, gk := l.(*queueingLatency).Crossing(0.005), d.Crossing(0.005)
		if !sameOrBothNaN(wk.Upper, gk.Upper) || !sameOrBothNaN(wk.Mean, gk.Mean) || !sameOrBothNaN(l.Accuracy(), d.Accuracy()) {
			t.Errorf("%s: knee %+v / accuracy %v saved, %+v / %v decoded", n.Name(), wk, l.Accuracy(), gk, d.Accuracy())
		}
	}
	var last map[string]any
	if err := json.Unmarshal(lastSaved, &last); err != nil {
		t.Fatal(err)
	}
	// A saved accuracy outside [0, 1] (an edited or damaged file) is no
	// accuracy, not exported as storcast_model_accuracy_ratio 7.
	for _, acc := range []float64{7, 1.5} {
		last["accuracy"] = acc
		edited, _ := json.Marshal(last)
		back, err := QueueingFitter{}.Decode(edited)
		if err != nil {
			t.Fatal(err)
		}
		if a := back.(Latency).Accuracy(); !math.IsNaN(a) {
			t.Errorf("saved accuracy %v decoded as %v; want NaN (none)", acc, a)
		}
	}
	last["axis"] = map[string]any{"l": 0, "q": 0}
	brokenAxis, _ := json.Marshal(last)
	for _, c := range []struct {
		name, data, want string
	}{
		{"axis 0", string(brokenAxis), "queueing: saved state: axis.l must be finite and > 0, axis.q finite"},
		{"no model", `{"axis": {"l": 0.0002, "q": 0}, "capacitySpread": {"low": 1, "high": 1}, "accuracy": -1}`, "queueing: saved state has no model"},
		{"broken model", `{"model": {"class": 9}}`, "queueing: queueing: decoding model: class 9 is neither open (1) nor closed (2)"},
		{"not JSON", `[`, "queueing: unexpected end of JSON input"},
	} {
		if _, err := (QueueingFitter{}).Decode([]byte(c.data)); err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func sameOrBothNaN(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
