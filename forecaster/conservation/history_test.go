package conservation

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// truthCal is the ground truth of the synthetic cluster: a conservation-
// obeying cluster with power-law capacities in size.
var truthCal = Calibration{Points: []Point{
	{IOSizeBytes: 4096, ReadIOPS: 120000, WriteIOPS: 24000}, // f_rw 5
	{IOSizeBytes: 65536, ReadIOPS: 40000, WriteIOPS: 10000}, // f_rw 4
	{IOSizeBytes: 1 << 20, ReadIOPS: 4000, WriteIOPS: 1600}, // f_rw 2.5
}}

type synthKind int

const (
	// closedLoop: clients with a fixed queue depth; when demand exceeds
	// capacity, throughput sits at capacity and latency grows (fio-like).
	closedLoop synthKind = iota
	// openLoop: M/M/1-like, latency = L0/(1−u); no window is exactly at capacity.
	openLoop
)

// synthWindows makes n windows over the truth's sizes: random read ratio in
// [0.2, 0.95], random utilization, multiplicative noise on rates (2%) and
// latency (10%), and the op-weighted size jittered ±15% within its band.
func synthWindows(rng *rand.Rand, n int, kind synthKind) []Window {
	truth, _ := NewModel(truthCal)
	ws := make([]Window, n)
	for i := range ws {
		size := truthCal.Points[rng.IntN(len(truthCal.Points))].IOSizeBytes * (0.85 + 0.3*rng.Float64())
		rho := 0.2 + 0.75*rng.Float64()
		sc, _ := truth.At(size)
		_, r, w, _ := ReadWriteAtReadPercent(sc.ReadIOPS, sc.FRW, 100*rho)
		l0 := 0.0005 + 0.002*size/(1<<20)
		var u, lat float64
		switch kind {
		case closedLoop:
			demand := 1.4 * rng.Float64() // 0..140% of capacity
			u = math.Min(demand, 1)
			lat = l0 / (1 - math.Min(u, 0.6)) // mild queueing below saturation
			if demand > 1 {
				lat *= 2 + 10*(demand-1) // queues build at capacity
			}
		case openLoop:
			u = 0.97 * rng.Float64()
			lat = l0 / (1 - u)
		}
		noise := func(s float64) float64 { return math.Exp(s * rng.NormFloat64()) }
		ws[i] = Window{IOSizeBytes: size, ReadIOPS: u * r * noise(0.02), WriteIOPS: u * w * noise(0.02), LatencySeconds: lat * noise(0.1)}
	}
	return ws
}

// estimateErrors fits history and returns the worst relative error of
// T_read100 and T_write100 against the truth at the fitted band sizes.
func estimateErrors(t testing.TB, ws []Window, opts ...EstimateOptions) (readErr, writeErr float64, q Quality) {
	var o EstimateOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	cal, q, err := EstimateFromHistory(ws, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.Points) != 3 {
		t.Fatalf("fitted %d bands, want 3: %+v", len(cal.Points), q)
	}
	truth, _ := NewModel(truthCal)
	for _, p := range cal.Points {
		sc, _ := truth.At(p.IOSizeBytes)
		readErr = math.Max(readErr, math.Abs(p.ReadIOPS-sc.ReadIOPS)/sc.ReadIOPS)
		writeErr = math.Max(writeErr, math.Abs(p.WriteIOPS-sc.WriteIOPS)/sc.WriteIOPS)
	}
	return readErr, writeErr, q
}

func TestEstimateFromHistoryClosedLoop(t *testing.T) {
	ws := synthWindows(rand.New(rand.NewPCG(7, 7)), 3000, closedLoop)
	re, we, q := estimateErrors(t, ws)
	t.Logf("closed loop: max error T_read100 %.1f%%, T_write100 %.1f%%, %d of %d windows saturated", 100*re, 100*we, q.Saturated, q.Windows)
	if re > 0.05 || we > 0.05 {
		t.Errorf("closed-loop saturation: errors %.3f/%.3f, want <= 5%%", re, we)
	}
}

func TestEstimateFromHistoryOpenLoop(t *testing.T) {
	ws := synthWindows(rand.New(rand.NewPCG(8, 8)), 3000, openLoop)
	re, we, q := estimateErrors(t, ws)
	t.Logf("open loop (M/M/1): max error T_read100 %.1f%%, T_write100 %.1f%%, %d of %d windows saturated", 100*re, 100*we, q.Saturated, q.Windows)
	// Latency >= 4x floor picks windows at u >= 0.75: biased low by the
	// mean headroom of those windows (~14%).
	if re > 0.2 || we > 0.2 {
		t.Errorf("open-loop: errors %.3f/%.3f, want <= 20%%", re, we)
	}
	// The M/M/1 queueing correction removes that bias on M/M/1 traffic.
	re, we, _ = estimateErrors(t, ws, EstimateOptions{QueueingCorrection: true})
	t.Logf("open loop with queueing correction: T_read100 %.1f%%, T_write100 %.1f%%", 100*re, 100*we)
	if re > 0.06 || we > 0.06 {
		t.Errorf("open-loop with queueing correction: errors %.3f/%.3f, want <= 6%%", re, we)
	}
}

// TestEstimateErrorTable prints the README table (go test -run ErrorTable -v).
func TestEstimateErrorTable(t *testing.T) {
	for _, qc := range []bool{false, true} {
		for _, kind := range []synthKind{closedLoop, openLoop} {
			var sr, sw float64
			const seeds = 10
			for s := uint64(0); s < seeds; s++ {
				re, we, _ := estimateErrors(t, synthWindows(rand.New(rand.NewPCG(s, 99)), 3000, kind), EstimateOptions{QueueingCorrection: qc})
				sr += re
				sw += we
			}
			t.Logf("| %s | queueing correction %v | %.1f%% | %.1f%% |",
				map[synthKind]string{closedLoop: "closed loop", openLoop: "open loop (M/M/1)"}[kind], qc, 100*sr/seeds, 100*sw/seeds)
		}
	}
}

func TestEstimateNeedsTwoReadRatios(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	ws := synthWindows(rng, 2000, closedLoop)
	for i := range ws { // one read ratio only: 70%
		tot := ws[i].ReadIOPS + ws[i].WriteIOPS
		ws[i].ReadIOPS, ws[i].WriteIOPS = 0.7*tot, 0.3*tot
	}
	_, q, err := EstimateFromHistory(ws, EstimateOptions{})
	if !errors.Is(err, ErrNotIdentifiable) || !strings.Contains(err.Error(), "need windows at >= 2 distinct read ratios") {
		t.Fatalf("error %v", err)
	}
	if len(q.Bands) != 3 || q.Bands[0].Fitted || q.Bands[0].Error == "" {
		t.Errorf("quality %+v", q)
	}
}

func TestEstimateNoSaturation(t *testing.T) {
	ws := make([]Window, 100)
	for i := range ws {
		ws[i] = Window{IOSizeBytes: 4096, ReadIOPS: float64(i), WriteIOPS: 10, LatencySeconds: 0.001}
	}
	_, _, err := EstimateFromHistory(ws, EstimateOptions{})
	if !errors.Is(err, ErrNotIdentifiable) || !strings.Contains(err.Error(), "0 saturated windows, need 6") {
		t.Fatalf("error %v", err)
	}
	// A busy signal marks saturation without latency.
	for i := range ws {
		rho := float64(i%5) / 5
		ws[i] = Window{IOSizeBytes: 4096, ReadIOPS: rho * 1000 / (rho + (1-rho)*4), WriteIOPS: (1 - rho) * 1000 / (rho + (1-rho)*4), Busy: 0.99}
	}
	cal, _, err := EstimateFromHistory(ws, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := cal.Points[0]; !near(p.ReadIOPS, 1000, 1e-9) || !near(p.WriteIOPS, 250, 1e-9) {
		t.Errorf("exact conservation data: got %+v, want 1000/250", p)
	}
}

func TestEstimateBadInput(t *testing.T) {
	for _, c := range []struct {
		ws   []Window
		want string
	}{
		{nil, "windows: empty"},
		{[]Window{{IOSizeBytes: 0, ReadIOPS: 1}}, "windows[0].ioSizeBytes: must be > 0, got 0"},
		{[]Window{{IOSizeBytes: 1, ReadIOPS: 1}, {IOSizeBytes: 1, ReadIOPS: -1}}, "windows[1].readIops: must be a finite number >= 0, got -1"},
		{[]Window{{IOSizeBytes: 1, WriteIOPS: math.NaN()}}, "windows[0].writeIops: must be a finite number >= 0, got NaN"},
		{[]Window{{IOSizeBytes: 1, LatencySeconds: math.Inf(1)}}, "windows[0].latencySeconds: must be a finite number >= 0, got +Inf"},
	} {
		_, _, err := EstimateFromHistory(c.ws, EstimateOptions{})
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.ws, err, c.want)
		}
	}
}

func ExampleEstimateFromHistory() {
	// Saturated windows of a 4 KiB workload at three read ratios, on a
	// cluster with T_read100 = 1000 and T_write100 = 250 (f_rw = 4).
	var ws []Window
	for _, rho := range []float64{0.2, 0.5, 0.8} {
		k := 1000 / (100*rho + 100*(1-rho)*4)
		for i := 0; i < 3; i++ {
			ws = append(ws, Window{IOSizeBytes: 4096, ReadIOPS: 100 * rho * k, WriteIOPS: 100 * (1 - rho) * k, Busy: 1})
		}
	}
	cal, q, err := EstimateFromHistory(ws, EstimateOptions{MinSaturated: 9})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := cal.Points[0]
	fmt.Printf("%.0f bytes: T_read100 %.0f, T_write100 %.0f from %d saturated windows\n", p.IOSizeBytes, p.ReadIOPS, p.WriteIOPS, q.Saturated)
	// Output:
	// 4096 bytes: T_read100 1000, T_write100 250 from 9 saturated windows
}
