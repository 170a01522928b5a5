package conservation_test

import (
	"fmt"
	"os"

	"github.com/storcast/storcast/forecaster/conservation"
)

func Example() {
	data, err := os.ReadFile("testdata/calibration.yml")
	if err != nil {
		panic(err)
	}
	cal, err := conservation.LoadCalibration(data)
	if err != nil {
		panic(err)
	}
	m, err := conservation.NewModel(cal)
	if err != nil {
		panic(err)
	}
	// What Prometheus sees now: 4 KiB reads and writes.
	res, err := m.AtMix([]conservation.OpClass{
		{Op: conservation.Read, IOSizeBytes: 4096, Rate: 60000},
		{Op: conservation.Write, IOSizeBytes: 4096, Rate: 5000},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("utilization %.3f, max %.0f IOPS (%.0f read + %.0f write), headroom %.0f IOPS\n",
		res.Utilization, res.MaxTotalIOPS, res.MaxReadIOPS, res.MaxWriteIOPS, res.HeadroomIOPS)
	// Output:
	// utilization 0.500, max 130000 IOPS (120000 read + 10000 write), headroom 65000 IOPS
}

func ExampleReadWriteAtReadPercent() {
	// Eq. 6: 70% reads on a size with T_read100 = 180000 and f_rw = 6.
	k, r, w, _ := conservation.ReadWriteAtReadPercent(180000, 6, 70)
	fmt.Printf("k=%.0f read=%.0f write=%.0f total=%.0f\n", k, r, w, r+w)
	// Output:
	// k=720 read=50400 write=21600 total=72000
}

func ExampleModel_Curve() {
	m, _ := conservation.NewModel(conservation.Calibration{Points: []conservation.Point{
		{IOSizeBytes: 4096, ReadIOPS: 100000, WriteIOPS: 25000},
	}})
	curve, extrapolated, _ := m.Curve(4096, conservation.ReadRatios(5))
	for _, p := range curve {
		fmt.Printf("read ratio %.2f: %.0f IOPS\n", p.ReadRatio, p.MaxIOPS)
	}
	fmt.Println("extrapolated:", extrapolated)
	// Output:
	// read ratio 0.00: 25000 IOPS
	// read ratio 0.25: 30769 IOPS
	// read ratio 0.50: 40000 IOPS
	// read ratio 0.75: 57143 IOPS
	// read ratio 1.00: 100000 IOPS
	// extrapolated: false
}

// Interference: a 4 KiB cluster whose 50/50 mix saturated at 4000 IOPS,
// inside the two-point line (4419), with repeated runs of every figure,
// tight enough (about 1%) for γ to pass its t-test against 0.
// Worked by hand: a = 2000/19000, b = 2000/2500, γ = (1 − a − b)/(4ab) =
// 0.281; at 1400 reads + 600 writes/s, L = 0.3137, Q = 4γ(1400/19000)(600/2500)
// = 0.0199, U = L + Q = 0.334, and the max 2000·2/(L + √(L² + 4Q)) = 5438.
// The band, where one more saturated run would land (95%): the runs'
// relative noise pooled over the three figures is σ = 1.04% (5 dof), and
// the max at this mix moves with the figures by elasticities e_j (the
// mixed point's through γ), so it is 5438·exp(∓t₀.₉₇₅(5)·σ·√(1 + Σ e_j²/n_j)).
func ExampleModel_AtMix_interference() {
	m, err := conservation.NewModel(conservation.Calibration{
		Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 19000, WriteIOPS: 2500,
			ReadRuns: []float64{18800, 19000, 19200}, WriteRuns: []float64{2480, 2500, 2520}}},
		Mixed: []conservation.MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 4000, Runs: []float64{3960, 4040}}},
	})
	if err != nil {
		panic(err)
	}
	g := m.Interference()[0]
	fmt.Printf("γ at 4 KiB: %.3f ± %.3f (s.e., %.1f dof): %s (runs allow %.3f..%.3f)\n", g.Gamma, g.StdErr, g.DoF, g.Test, g.Lower, g.Upper)
	res, err := m.AtMix([]conservation.OpClass{
		{Op: conservation.Read, IOSizeBytes: 4096, Rate: 1400},
		{Op: conservation.Write, IOSizeBytes: 4096, Rate: 600},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("U now %.3f, load ratio %.3f\n", res.Utilization, res.LoadRatio)
	fmt.Printf("max at this mix %.0f IOPS [%.0f, %.0f], headroom %.3f [%.3f, %.3f]\n",
		res.MaxTotalIOPS, res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, res.HeadroomRatio, res.HeadroomRatioLower, res.HeadroomRatioUpper)
	// Output:
	// γ at 4 KiB: 0.281 ± 0.029 (s.e., 5.0 dof): kept (runs allow 0.223..0.343)
	// U now 0.334, load ratio 0.368
	// max at this mix 5438 IOPS [5226, 5659], headroom 0.632 [0.617, 0.647]
}

func ExampleMaxAtReadRatio() {
	// 70% reads on T_read100 = 180000, T_write100 = 30000: the paper's
	// line, and the frontier with interference γ = 0.3.
	for _, g := range []float64{0, 0.3} {
		t, _ := conservation.MaxAtReadRatio(180000, 30000, g, 0.7)
		fmt.Printf("γ %.1f: %.0f IOPS\n", g, t)
	}
	// Output:
	// γ 0.0: 72000 IOPS
	// γ 0.3: 59932 IOPS
}

func ExampleLowerBoundFromHistory() {
	// A history that never saturated: the most it served at 70% reads.
	ws := []conservation.Window{
		{IOSizeBytes: 4096, ReadIOPS: 2800, WriteIOPS: 1200},
		{IOSizeBytes: 4096, ReadIOPS: 3500, WriteIOPS: 1000},
		{IOSizeBytes: 4096, ReadIOPS: 1000, WriteIOPS: 1000},
	}
	b, reason, err := conservation.LowerBoundFromHistory(ws, 4096, 0.7)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.0f\n%s\n", b.IOPS, reason)
	// Output:
	// 4000
	// history never saturated at this mix: max IOPS at 70% reads at 4096 bytes is at least 4000, covered by window 0 (2800 reads/s + 1200 writes/s) of 3 in the size band
}
