package storagesim

import (
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// steadyAt8000 is the steady scenario's cluster under a constant 8000 IOPS
// (capacity 8447) with the given events.
func steadyAt8000(t *testing.T, events ...Event) *Cluster {
	t.Helper()
	sc, err := LoadScenario("steady")
	if err != nil {
		t.Fatal(err)
	}
	sc.Load.BaseIOPS = 8000
	sc.Load.Diurnal.Amplitude = 0
	sc.Events = events
	c, err := New(sc, 1, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func dur(d time.Duration) Duration { return Duration(d) }

// A saturation window shorter than the 5-minute search grid is found: a
// noisy neighbour takes 30% of the capacity for 2 minutes at 1h1m, between
// the grid points 1h and 1h5m.
func TestSaturationTimeShortWindow(t *testing.T) {
	c := steadyAt8000(t, Event{At: dur(time.Hour + time.Minute), NoisyNeighbour: &NoisyNeighbour{Duration: dur(2 * time.Minute), CapacityLoss: 0.3}})
	for _, tc := range []struct {
		from, want time.Duration // want < 0: no saturation
	}{
		{0, time.Hour + time.Minute},
		{30*time.Minute + 7*time.Second, time.Hour + time.Minute},
		{time.Hour + time.Minute + 30*time.Second, time.Hour + time.Minute + 30*time.Second}, // inside the window
		{time.Hour + 3*time.Minute, -1},                                                      // after it
	} {
		tr := c.Truth(testOrigin.Add(tc.from), 0)
		switch {
		case tc.want < 0 && tr.SaturationTime != nil:
			t.Errorf("from %s: saturation at origin + %s, want none", tc.from, tr.SaturationTime.Sub(testOrigin))
		case tc.want >= 0 && tr.SaturationTime == nil:
			t.Errorf("from %s: no saturation time, want origin + %s", tc.from, tc.want)
		case tc.want >= 0 && tr.SaturationTime.Sub(testOrigin) != tc.want:
			t.Errorf("from %s: saturation at origin + %s, want origin + %s", tc.from, tr.SaturationTime.Sub(testOrigin), tc.want)
		}
	}

	// A load that ramps up for 2 minutes from 1h and back down for 2
	// minutes: saturated for under 3 minutes around the end of the first
	// ramp, between grid points again.
	c = steadyAt8000(t,
		Event{At: dur(time.Hour), Ramp: dur(2 * time.Minute), LoadStep: 1.2},
		Event{At: dur(time.Hour + 2*time.Minute), Ramp: dur(2 * time.Minute), LoadStep: 1 / 1.2})
	capacity := c.Truth(testOrigin, 0).MaxIOPS.Total
	// 8000 · (1 + 0.2·(s − 3600)/120) reaches the capacity at
	want := 3600 + 120*(capacity/8000-1)/0.2
	tr := c.Truth(testOrigin, 0)
	if tr.SaturationTime == nil {
		t.Fatalf("ramped peak: no saturation time, want origin + %.2fs", want)
	}
	if got := tr.SaturationTime.Sub(testOrigin).Seconds(); got != math.Round(want) {
		t.Errorf("ramped peak: saturation at origin + %vs, want the crossing %.2fs rounded", got, want)
	}
}

// The saturation time is the crossing rounded to the nearest second,
// whatever instant it is asked from (the search grid starts there), and the
// shipped scenarios' crossings are those the docs quote.
func TestSaturationTimeIndependentOfAskingTime(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first time.Duration // the first crossing after the origin
	}{
		{"growth", 180 * time.Hour},
		{"growth-interference", 12*time.Hour + 4*time.Minute + time.Second}, // docs: origin + 12 h 4 min
		{"swift", 10*time.Hour + 27*time.Minute + 19*time.Second},
		{"swift", 81*time.Hour + 44*time.Minute + 20*time.Second}, // 0.35 s before the crossing
		{"swift", 129*time.Hour + 19*time.Minute + 4*time.Second},
	} {
		c := mustCluster(t, tc.name, 1)
		sat := func(s float64) bool { st := c.stateAt(s); return st.offered >= st.capacity }
		lo, hi := tc.first.Seconds()-1, tc.first.Seconds()+1
		if sat(lo) || !sat(hi) {
			t.Fatalf("%s: no crossing within a second of origin + %s", tc.name, tc.first)
		}
		for hi-lo > 1e-6 {
			if m := (lo + hi) / 2; sat(m) {
				hi = m
			} else {
				lo = m
			}
		}
		if math.Round(hi) != tc.first.Seconds() {
			t.Fatalf("%s: the crossing is at %.6fs, not origin + %s", tc.name, hi, tc.first)
		}
		// Every asking instant (whole seconds, as the digests and docs ask)
		// in the 5 minutes before the crossing puts the crossing at a
		// different offset in the grid.
		for back := 1; back <= 300; back++ {
			from := testOrigin.Add(tc.first - time.Duration(back)*time.Second)
			tr := c.Truth(from, 0)
			if tr.SaturationTime == nil || tr.SaturationTime.Sub(testOrigin) != tc.first {
				t.Errorf("%s asked %ds before the crossing: saturation %v, want origin + %s", tc.name, back, tr.SaturationTime, tc.first)
				break
			}
		}
	}
}

// An event takes effect at the start of a tick, so /truth, /sd and the
// scrapes agree on the hosts at every second: an add_hosts at 3d0h0m2s
// counts from 3d0h0m5s for all of them.
func TestEventsRoundedUpToTick(t *testing.T) {
	sc, err := LoadScenario("scale-out")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Events[0].AddHosts != 1 {
		t.Fatalf("scale-out's first event is %+v, want add_hosts: 1", sc.Events[0])
	}
	sc.Events[0].At = dur(3*24*time.Hour + 2*time.Second)
	c, err := New(sc, 1, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	for s := -2; s <= 12; s++ {
		at := testOrigin.Add(3*24*time.Hour + time.Duration(s)*time.Second)
		want := 3
		if s >= 5 {
			want = 4
		}
		tr := c.Truth(at, 0)
		targets, scraped := 0, 0
		for _, tg := range c.Targets(at) {
			if tg.Job == "node" {
				targets++
			}
		}
		for _, tg := range c.Sample(at).Targets {
			if tg.Job == "node" {
				scraped++
			}
		}
		rec := httptest.NewRecorder()
		c.HandlerWithClock(func() time.Time { return at }).ServeHTTP(rec, httptest.NewRequest("GET", "/hosts/ceph-node-4/metrics", nil))
		if tr.Hosts != want || targets != want || scraped != want || (rec.Code == http.StatusOK) != (want == 4) {
			t.Errorf("3d + %ds: /truth %d hosts, /sd %d node targets, samples of %d hosts, host 4 HTTP %d; want %d hosts",
				s, tr.Hosts, targets, scraped, rec.Code, want)
		}
	}
	// A noisy neighbour's end is rounded up too, and the caller's scenario
	// keeps its times as written.
	c = steadyAt8000(t, Event{At: dur(time.Hour + 1500*time.Millisecond), NoisyNeighbour: &NoisyNeighbour{Duration: dur(time.Minute + time.Second), CapacityLoss: 0.5}})
	for _, tc := range []struct {
		at   time.Duration
		loss bool
	}{
		{time.Hour + 4*time.Second, false}, {time.Hour + 5*time.Second, true},
		{time.Hour + 69*time.Second, true}, {time.Hour + 70*time.Second, false},
	} {
		st := c.stateAt(tc.at.Seconds())
		if (st.nnLoss > 0) != tc.loss {
			t.Errorf("at %s: noisy-neighbour loss %v, want it %v", tc.at, st.nnLoss, tc.loss)
		}
	}
	if e := c.Scenario().Events[0]; e.At != dur(time.Hour+1500*time.Millisecond) || e.NoisyNeighbour.Duration != dur(time.Minute+time.Second) {
		t.Errorf("Scenario().Events[0] = at %s, duration %s; want them as written", time.Duration(e.At), time.Duration(e.NoisyNeighbour.Duration))
	}
	// The shipped scenarios' events are all on ticks: rounding changes none.
	for _, name := range ScenarioNames() {
		sc, err := LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range sc.Events {
			if time.Duration(e.At)%Tick != 0 || (e.NoisyNeighbour != nil && time.Duration(e.NoisyNeighbour.Duration)%Tick != 0) {
				t.Errorf("%s: events[%d] is not on a %s tick: %+v", name, i, Tick, e)
			}
		}
	}
}

// Sizes and durations that are not numbers are refused, naming the input.
func TestParseRefusesNaN(t *testing.T) {
	for _, in := range []string{"NaN", "nan", "NaNKiB", "+NaN MiB", "Inf", "-inf"} {
		if v, err := ParseByteSize(in); err == nil || !strings.Contains(err.Error(), strconv.Quote(in)) {
			t.Errorf("ParseByteSize(%q) = %v, %v; want an error naming %q", in, v, err, in)
		}
	}
	for _, in := range []string{"NaNd", "Infd", "1e300d", "NaNd1h"} {
		if d, err := ParseDuration(in); err == nil || !strings.Contains(err.Error(), strconv.Quote(in)) {
			t.Errorf("ParseDuration(%q) = %v, %v; want an error naming %q", in, d, err, in)
		}
	}
	yml := `name: nan
capacity:
  points:
    - {size: NaN, read_iops: 1000, write_iops: 500}
load:
  base_iops: 100
  read_ratio: 0.5
  mix: {4KiB: 1}
`
	_, err := ParseScenario([]byte(yml), "nan.yml")
	if err == nil || !strings.Contains(err.Error(), `capacity.points[0].size (line 4): invalid size "NaN"`) {
		t.Errorf("a NaN capacity size: %v", err)
	}
}

// Each shipped scenario states its capacity at the origin in a comment
// ("# Capacity at the origin: N client IOPS"); it is /truth's, rounded.
func TestShippedScenarioCapacityComments(t *testing.T) {
	re := regexp.MustCompile(`(?m)^# Capacity at the origin: ([0-9]+) client IOPS\b`)
	for _, name := range ScenarioNames() {
		data, err := shippedScenarios.ReadFile("scenarios/" + name + ".yml")
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindAllSubmatch(data, -1)
		if len(m) != 1 {
			t.Errorf("%s.yml: %d lines %q, want one", name, len(m), "# Capacity at the origin: N client IOPS")
			continue
		}
		stated, _ := strconv.ParseFloat(string(m[0][1]), 64)
		truth := mustCluster(t, name, 1).Truth(testOrigin, 0).MaxIOPS.Total
		if stated != math.Round(truth) {
			t.Errorf("%s.yml says the capacity at the origin is %v client IOPS; /truth has %.2f", name, stated, truth)
		}
	}
}

// The checkpoints of the counters stay few over a long run (storagesim
// serve and the demo run for weeks), and a rewind to any earlier instant
// still gives exactly the values of a cluster that never went ahead.
func TestCheckpointsBounded(t *testing.T) {
	load := func() *Cluster {
		sc, err := LoadScenario("testdata/small.yml")
		if err != nil {
			t.Fatal(err)
		}
		sc.Faults.RestartsPerOSDPerDay = 1 // resets between checkpoints too
		c, err := New(sc, 3, testOrigin)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := load()
	const days = 30
	end := testOrigin.Add(days*24*time.Hour + 17*time.Second)
	last := c.Sample(end)
	// Hourly checkpoints would be 721; thinned to a few per power of two of
	// the age, at most 41 (4 per level, 10 levels, and the origin).
	const bound = 41
	if len(c.checks) > bound {
		t.Errorf("%d checkpoints after %d simulated days, want at most %d", len(c.checks), days, bound)
	}
	for i := 1; i < len(c.checks); i++ {
		if c.checks[i].tick <= c.checks[i-1].tick || c.checks[i].tick%checkpointEvery != 0 {
			t.Fatalf("checkpoints out of order: %d then %d", c.checks[i-1].tick, c.checks[i].tick)
		}
	}
	if c.checks[0].tick != 0 {
		t.Errorf("the origin's checkpoint is gone (first at tick %d)", c.checks[0].tick)
	}
	for _, back := range []time.Duration{
		29*24*time.Hour + 23*time.Hour + 59*time.Minute + 58*time.Second, // the first minutes
		26*24*time.Hour + 5*time.Hour + 3*time.Second,
		3 * time.Hour, 20 * time.Minute, 3 * time.Second,
	} {
		at := end.Add(-back)
		if got, want := c.Sample(at), load().Sample(at); !sameSample(got, want) {
			t.Errorf("rewound to %s before the end: samples differ from a fresh cluster's", back)
		}
	}
	if !sameSample(c.Sample(end), last) {
		t.Error("back at the end after the rewinds: samples differ")
	}
	if len(c.checks) > bound {
		t.Errorf("%d checkpoints after the rewinds, want at most %d", len(c.checks), bound)
	}
}

// TestReadRatioDiurnal: load.read_ratio_diurnal adds its cosine (or, shape
// square, the cosine's sign) to the read ratio events set, on the UTC
// hour, and the op counters follow it.
func TestReadRatioDiurnal(t *testing.T) {
	data, err := os.ReadFile("testdata/small.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		shape string
		want  []struct{ hour, want float64 }
	}{
		{"cosine", []struct{ hour, want float64 }{{2, 0.65}, {8, 0.6}, {14, 0.55}}},
		{"square", []struct{ hour, want float64 }{{2, 0.65}, {7, 0.65}, {9, 0.55}, {14, 0.55}}},
	} {
		yml := strings.Replace(string(data), "  diurnal: {amplitude: 0.3, peak_hour: 12}\n", "  diurnal: {amplitude: 0.3, peak_hour: 12}\n  read_ratio_diurnal: {amplitude: 0.05, peak_hour: 2, shape: "+c.shape+"}\n", 1)
		sc, err := ParseScenario([]byte(yml), "small-mix-cycle.yml")
		if err != nil {
			t.Fatal(err)
		}
		checkReadRatios(t, sc, c.shape, c.want)
	}
	// The square wave switches at 08:00 and 20:00 (peak hour 2 ± 6 h).
	sc, err := ParseScenario([]byte(strings.Replace(string(data), "  diurnal: {amplitude: 0.3, peak_hour: 12}\n", "  diurnal: {amplitude: 0.3, peak_hour: 12}\n  read_ratio_diurnal: {amplitude: 0.05, peak_hour: 2, shape: square}\n", 1)), "small-square.yml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(sc, 1, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		at   time.Duration
		want float64
	}{{7*time.Hour + 59*time.Minute, 0.65}, {8*time.Hour + time.Minute, 0.55}, {19*time.Hour + 59*time.Minute, 0.55}, {20*time.Hour + time.Minute, 0.65}} {
		if got := c.Truth(testOrigin.Add(k.at), 0).ReadRatio; math.Abs(got-k.want) > 1e-9 {
			t.Errorf("square, %s after 00:00 UTC: truth's read ratio %v, want %v", k.at, got, k.want)
		}
	}
}

func checkReadRatios(t *testing.T, sc *Scenario, shape string, want []struct{ hour, want float64 }) {
	t.Helper()
	c, err := New(sc, 1, testOrigin) // 00:00 UTC
	if err != nil {
		t.Fatal(err)
	}
	counter := func(at time.Time, name string) float64 {
		var v float64
		for _, tg := range c.Sample(at).Targets {
			for _, s := range tg.Series {
				if s.Name == name {
					v += s.Value
				}
			}
		}
		return v
	}
	for _, k := range want {
		at := testOrigin.Add(time.Duration(k.hour * float64(time.Hour)))
		if got := c.Truth(at, 0).ReadRatio; math.Abs(got-k.want) > 1e-9 {
			t.Errorf("%s, %02.0f:00 UTC: truth's read ratio %v, want %v", shape, k.hour, got, k.want)
		}
		// Over the 10 minutes around it (the cosine moves < 0.001 there, the
		// square wave not at all).
		r := counter(at.Add(5*time.Minute), "ceph_osd_op_r") - counter(at.Add(-5*time.Minute), "ceph_osd_op_r")
		w := counter(at.Add(5*time.Minute), "ceph_osd_op_w") - counter(at.Add(-5*time.Minute), "ceph_osd_op_w")
		if got := r / (r + w); math.Abs(got-k.want) > 0.005 {
			t.Errorf("%s, %02.0f:00 UTC: the counters' read ratio %.4f, want %v", shape, k.hour, got, k.want)
		}
	}
}

// TestDiurnalWindow: load.diurnal with shape square and hours 4 multiplies
// the offered load by 1 + amplitude for the four hours centred on the peak
// hour (00:00-04:00 UTC around 02:00, across midnight from a peak at 23:00)
// and by 1 − amplitude for the rest of the day.
func TestDiurnalWindow(t *testing.T) {
	data, err := os.ReadFile("testdata/small.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		peak string
		high []time.Duration // after 00:00 UTC
		low  []time.Duration
	}{
		{"2", []time.Duration{time.Minute, 2 * time.Hour, 3*time.Hour + 59*time.Minute}, []time.Duration{4*time.Hour + time.Minute, 14 * time.Hour, 23*time.Hour + 59*time.Minute}},
		{"23", []time.Duration{21*time.Hour + time.Minute, 23 * time.Hour, 24*time.Hour + 59*time.Minute}, []time.Duration{time.Hour + time.Minute, 12 * time.Hour, 20*time.Hour + 59*time.Minute}},
	} {
		yml := strings.Replace(string(data), "  diurnal: {amplitude: 0.3, peak_hour: 12}\n", "  diurnal: {amplitude: 0.3, peak_hour: "+c.peak+", shape: square, hours: 4}\n", 1)
		sc, err := ParseScenario([]byte(yml), "small-window.yml")
		if err != nil {
			t.Fatal(err)
		}
		sc.Load.Growth.PerDay = 0 // the cycle alone
		cl, err := New(sc, 1, testOrigin)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []struct {
			at     []time.Duration
			factor float64
		}{{c.high, 1.3}, {c.low, 0.7}} {
			for _, at := range k.at {
				if got, want := cl.Truth(testOrigin.Add(at), 0).OfferedIOPS.Total, sc.Load.BaseIOPS*k.factor; math.Abs(got-want) > 1e-6*want {
					t.Errorf("peak hour %s, %s after 00:00 UTC: offered %v IOPS, want %v", c.peak, at, got, want)
				}
			}
		}
	}
}

// A square daily window shorter than the 5-minute search grid is found: a
// 3-minute window (13:58:30-14:01:30 UTC) at 1.5 times a steady 8000 IOPS,
// over the capacity (8447), from an origin at 00:02 UTC whose grid points
// are 13:57 and 14:02. Only events' instants were added to the grid, not
// the switches of a square cycle, and the crossing was a day later or none.
func TestSaturationTimeShortSquareWindow(t *testing.T) {
	sc, err := LoadScenario("steady")
	if err != nil {
		t.Fatal(err)
	}
	sc.Load.BaseIOPS = 8000
	sc.Load.Diurnal = DailyCycle{Amplitude: 0.5, PeakHour: 14, Shape: "square", Hours: 0.05}
	sc.Events = nil
	origin := time.Date(2026, 1, 1, 0, 2, 0, 0, time.UTC)
	c, err := New(sc, 1, origin)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 1, 1, 13, 58, 30, 0, time.UTC)
	for _, from := range []time.Duration{0, 13 * time.Hour} {
		tr := c.Truth(origin.Add(from), 0)
		if tr.SaturationTime == nil || tr.SaturationTime.Sub(want).Abs() > time.Second {
			t.Errorf("from origin + %s: saturation at %v, want %v", from, tr.SaturationTime, want)
		}
	}
}
