package models

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/storcast/storcast/forecaster/queueing"
)

// The capacity-anchored latency model refitted on what it learned from in
// forty real-Ceph CI runs of 2026-11-24, 25, 27, 28 and 29 (testdata/recorded-latency, written
// by e2e/ceph/latency-record.sh from each run's archive: the what-if
// snapshot's windows, the 50% ramp's 20-60% steps, U ≤ 0.6) and read at the
// two higher steps of that ramp, against the IOPS fio did and the op latency
// Ceph measured there (each run's e2e/ceph/results/latest.md). The figures
// are pinned to 0.5% so that a change to the model shows its effect on real
// data here first. At the 80% step: +54 / +39 / +13 / −9 / +2 / +49 / +73 /
// +32 / +29 / +112 / −36 / +23 / +59 / −32 / +49 / −16 / +7 / +7 / +21 / +58 / +60 / +40 / +31 / +131 / +272 / −27 / +20 / +132 / +21 / +81 / +54 / −22 / −13 / +34 / +28 / −13 / +14 / −18 / +62 / −21%; the exponent of the open-loop curve
// stays 1 (M/G/1) in the first two, the five from 20:52 to 00:23, 02:29,
// 03:29 and 2026-11-27 15:16, 17:56, 22:19, 23:17 and 2026-11-28 02:09, 07:18, 11:13, 12:13 and 17:49 and 2026-11-29 06:15, where the history cannot tell, and leaves it for 0.25 / 0 / 0.5 / 0.5 in the
// others and 0 at 11:10, 11:51, 12:45, 16:16, 16:50 and 20:27 and 2026-11-28 05:10, 08:38, 13:40, 15:02, 19:44, 20:59 and 23:56 and 2026-11-29 03:30 and 07:15, 2 at 19:37 (forecaster/queueing "Shapes"; the rule was chosen on the first
// four, with M/G/1 they were +71% and +57% in the third and fourth; the last
// thirty-six came after it). 06:05 chose Q = 0 with L0 = 0 (op latency in
// proportion to the load) and failed live, a curve of 0 at no load, until
// the curve held its value below the lowest utilization seen. 02:03's calibration put the capacity 21% over what the load
// then measured at this mix, so its U and latency came out low. Past the lower bound of the
// capacity band the upper latency bound is +Inf (the cluster may be saturated
// there), so every record has a knee, at that bound where the curve itself
// stays below the 50 ms SLO up to capacity (the near-lines, whose knee was
// NaN while the band held the curve's last finite value). Asserted as
// properties: the knee lies below the measured saturated IOPS except at
// 20:20 and 2026-11-29 07:15 (calibrations over the load), and the 80% step's latency inside the band except at 2026-11-27
// 11:10 (the first record after the rule was last changed, kept as it fell:
// a miss) and 2026-11-29 06:15 (the curve high, the band above the step); in sixteen records (pinned) the 80% step lies past the capacity
// band's lower bound, so it is covered only by a band without an upper bound. 11:51's
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
	}{
		{"2026-11-24T1550.json", step{3954, 2.77}, step{4726, 3.27}, 4.252, 3977.0, false},
		{"2026-11-24T1630.json", step{3919, 2.88}, step{4836, 3.35}, 4.009, 3611.8, true},
		{"2026-11-24T1722.json", step{4012, 2.86}, step{4819, 3.15}, 3.227, 4381.9, false},
		{"2026-11-24T1921.json", step{4087, 2.97}, step{4838, 3.22}, 2.704, 4580.1, false},
		{"2026-11-24T2020.json", step{4903, 3.25}, step{5032, 3.36}, 3.300, 5161.0, false},
		{"2026-11-24T2052.json", step{4197, 3.38}, step{4730, 3.44}, 5.048, 4324.6, false},
		{"2026-11-24T2221.json", step{3909, 2.41}, step{6030, 2.72}, 4.162, 3976.2, false},
		{"2026-11-24T2247.json", step{3885, 2.93}, step{5158, 3.12}, 3.856, 3825.1, false},
		{"2026-11-24T2338.json", step{4318, 3.25}, step{5104, 3.19}, 4.177, 4179.2, false},
		{"2026-11-25T0023.json", step{4520, 2.13}, step{4997, 3.25}, 4.515, 4416.9, false},
		{"2026-11-25T0203.json", step{5529, 2.38}, step{5846, 2.92}, 1.519, 5679.3, false},
		{"2026-11-25T0229.json", step{5805, 1.61}, step{7020, 2.29}, 1.977, 5495.8, true},
		{"2026-11-25T0329.json", step{5663, 2.74}, step{6211, 2.72}, 4.348, 5057.3, true},
		{"2026-11-25T0605.json", step{5948, 2.73}, step{6322, 2.66}, 1.844, 6025.9, false},
		{"2026-11-27T1110.json", step{5826, 0.99}, step{8299, 1.94}, 1.478, 6203.9, false},
		{"2026-11-27T1151.json", step{6378, 1.60}, step{6906, 2.40}, 1.349, 6048.2, true},
		{"2026-11-27T1245.json", step{6424, 1.76}, step{7923, 2.02}, 1.878, 5658.6, true},
		{"2026-11-27T1516.json", step{6189, 1.97}, step{7558, 2.25}, 2.105, 5004.3, true},
		{"2026-11-27T1616.json", step{6354, 1.51}, step{8255, 1.96}, 1.822, 6177.5, true},
		{"2026-11-27T1650.json", step{7900, 1.12}, step{10380, 1.51}, 1.773, 7176.9, true},
		{"2026-11-27T1756.json", step{5608, 2.15}, step{6594, 2.59}, 3.441, 4174.9, true},
		{"2026-11-27T1937.json", step{6138, 2.70}, step{8815, 1.81}, 3.779, 5710.0, false},
		{"2026-11-27T2027.json", step{5546, 1.70}, step{6742, 2.56}, 2.226, 5644.3, false},
		{"2026-11-27T2219.json", step{6602, 1.52}, step{7734, 2.17}, 3.509, 4290.4, true},
		{"2026-11-27T2317.json", step{7254, 1.47}, step{10428, 1.46}, 5.475, 5990.8, true},
		{"2026-11-28T0209.json", step{6674, 2.13}, step{7857, 2.24}, 1.553, 6492.1, true},
		{"2026-11-28T0510.json", step{6623, 1.93}, step{7990, 2.05}, 2.320, 6541.9, true},
		{"2026-11-28T0718.json", step{7862, 1.56}, step{8279, 2.16}, 3.616, 6513.8, true},
		{"2026-11-28T0838.json", step{5913, 1.25}, step{7473, 2.17}, 1.517, 5882.0, true},
		{"2026-11-28T1113.json", step{5390, 1.78}, step{6956, 2.38}, 3.224, 5559.9, false},
		{"2026-11-28T1213.json", step{5418, 1.90}, step{6550, 2.50}, 2.935, 5782.4, false},
		{"2026-11-28T1340.json", step{4778, 1.70}, step{6473, 2.55}, 1.323, 3975.9, true},
		{"2026-11-28T1502.json", step{5608, 1.78}, step{7093, 2.28}, 1.544, 6503.0, false},
		{"2026-11-28T1749.json", step{5298, 2.03}, step{6346, 2.59}, 2.711, 5764.1, false},
		{"2026-11-28T1944.json", step{5080, 2.00}, step{6104, 2.70}, 2.552, 5085.7, false},
		{"2026-11-28T2059.json", step{5278, 2.13}, step{6354, 2.60}, 1.843, 5542.0, false},
		{"2026-11-28T2356.json", step{5059, 1.71}, step{6770, 2.47}, 1.950, 5247.1, false},
		{"2026-11-29T0330.json", step{5440, 2.20}, step{6574, 2.50}, 1.812, 6253.3, false},
		{"2026-11-29T0615.json", step{5446, 1.95}, step{6616, 2.47}, 3.155, 6139.6, false},
		{"2026-11-29T0715.json", step{5469, 2.96}, step{6128, 2.64}, 2.352, 6484.2, false},
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
		// load's 50/50 step (6,837 against 6,128 IOPS): the run showed its
		// knee at 6,486 IOPS as served live, 105.8% of the measured
		// saturation, the refit 6,484; kept, as 20:20 was.
		if below := knee < r.sat.iops; below != (r.name != "2026-11-24T2020.json" && r.name != "2026-11-29T0715.json") {
			t.Errorf("%s: knee %.0f IOPS against the measured saturated %.0f: below %v", r.name, knee, r.sat.iops, below)
		}
		// 11:10's op latency stayed flat from the 60% step to the 80% one
		// (0.92, 0.99 ms): the straight line the history chose (Q = 0) put it
		// 49% high, just above the band's lower end (0.994 ms).
		// 2026-11-29 06:15's rose only 1.43 times from the 60% step to the
		// 80% one (1.36, 1.95 ms) where its curve (M/G/1, the history could
		// not tell) put 3.15 ms, 62% high, the band's lower end (2.11 ms)
		// above the step; as served live +59.9%, [2.07, 7.19]: kept, a miss.
		if covered := 1e3*b.Lower <= r.f80.ms && r.f80.ms <= 1e3*b.Upper; covered != (r.name != "2026-11-27T1110.json" && r.name != "2026-11-29T0615.json") {
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
			t.Fatalf("%s, oracle capacity: the 80%% step is past the model's capacity", r.name)
		}
		t.Logf("%s: with the measured saturation as capacity (U %.2f at the 80%% step): %.2f ms, %+.0f%%", r.name, r.f80.iops/r.sat.iops, 1e3*ob.Mean, 100*(1e3*ob.Mean/r.f80.ms-1))
		if math.Abs(1e3*ob.Mean/r.f80.ms-1) <= 0.2 {
			oracleWithin20++
		}
	}
	// The misses at the 80% step are mostly not the capacity's: with the
	// measured saturated IOPS as the capacity (an oracle no live model has)
	// the step is within 20% in one more record only (11 of 40, the model 10;
	// 2026-11-28 05:10 and 08:38 missed by a hair, +20.2% and +21%, 08:38 +16.7% as served live; 11:13 +81% refitted, +42% as served live; 12:13 +54%, +48% live; 13:40 −22% refitted and live; 15:02 −13%, within 20%, refitted and live; 17:49 +34% refitted, +1% with the oracle, −2.1% as served live; 19:44 +28% refitted and with the oracle, +23.5% as served live; 20:59 −13% refitted and with the oracle, −13.4% as served live, within 20%; 23:56 +14% refitted and with the oracle, +11.5% as served live, within 20%; 2026-11-29 03:30 −18% refitted and with the oracle, −12.5% as served live, within 20%; 06:15 +62% refitted, +71% with the oracle, +59.9% as served live, the measured latency below the band; 07:15 −21% refitted and with the oracle (Q = 0), −20.0% as served live, within 20% by a hair, −19.99%). The curve above the history
	// (U 0.6 to 0.8) is what misses: Ceph's op latency carries only the
	// part of the clients' queue that waits inside the OSD.
	if within20 != 10 || oracleWithin20 != 11 {
		t.Errorf("within 20%% at the 80%% step: %d records, %d with the oracle capacity; pinned 10 and 11", within20, oracleWithin20)
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
