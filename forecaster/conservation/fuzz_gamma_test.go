package conservation

import (
	"errors"
	"math"
	"testing"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/internal/fuzzbytes"
)

// fuzzRuns spreads n runs of a figure x by the relative spread s; the
// figure is their mean, as LoadCalibration makes it. The offsets differ per
// figure (k) so that runs of different figures do not move together.
func fuzzRuns(x, s float64, n, k int) (float64, []float64) {
	if n < 2 {
		return x, nil
	}
	d := [4]float64{-1, 0.6, 1, -0.3}
	runs := make([]float64, n)
	for j := range runs {
		runs[j] = x * (1 + s*d[(j+k)%4])
	}
	return mean(runs), runs
}

// FuzzGammaRuns: calibrations with repeated runs decoded from the bytes
// (internal/fuzzbytes, 13 float64s: two sizes with their read and write
// IOPS, a mixed point's read ratio and IOPS at the first size, the relative
// spread of the pure and of the mixed runs, the number of runs, a query's
// read ratio and size) either fail with an error wrapping ErrInput or give
// a model where
//   - γ's test is consistent: zero sets γ to 0, kept means |estimate| beyond
//     the t quantile times its standard error, untested has none;
//   - every γ at 0 reproduces the paper's model (the calibration without its
//     mixed points) bit for bit, at every mix and on the curve;
//   - U at the max at the query's mix is 1 within 1e-9 relative;
//   - the band brackets the central max, and covers the mixed runs at
//     their mix.
func FuzzGammaRuns(f *testing.F) {
	f.Add(fuzzbytes.Of(4096, 16056, 3081, 65536, 10428, 1458, 0.5, 4892, 0.06, 0.04, 2, 0.7, 16384))
	f.Add(fuzzbytes.Of(4096, 16000, 3000, 65536, 10400, 1450, 0.5, 4200, 0.005, 0.005, 3, 0.3, 4096))
	f.Add(fuzzbytes.Of(4096, 16000, 3000, 65536, 10400, 1450, 0.5, 5000, 0.2, 0.2, 4, 0.5, 8192))
	f.Add(fuzzbytes.Of(4096, 16000, 3000, 65536, 10400, 1450, 0.3, 6000, 0, 0, 1, 0.9, 1e6))
	f.Add(fuzzbytes.Of(1, 1e308, 5e-324, math.NaN(), -1, math.Inf(1), 1, 0, 1e300, -2, 1e9, -1, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		v := fuzzbytes.Floats(data)
		if len(v) < 13 {
			return
		}
		n := 1
		if check.Finite(v[10]) && v[10] >= 1 && v[10] <= 6 {
			n = int(v[10])
		}
		var c Calibration
		for k, p := range [2][3]float64{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}} {
			r, rr := fuzzRuns(p[1], v[8], n, 2*k)
			w, wr := fuzzRuns(p[2], v[8], n, 2*k+1)
			c.Points = append(c.Points, Point{IOSizeBytes: p[0], ReadIOPS: r, WriteIOPS: w, ReadRuns: rr, WriteRuns: wr})
		}
		mm, mr := fuzzRuns(v[7], v[9], n, 3)
		c.Mixed = []MixedPoint{{IOSizeBytes: v[0], ReadRatio: v[6], IOPS: mm, Runs: mr}}
		m, err := NewModel(c)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("NewModel: %v does not wrap ErrInput", err)
			}
			return
		}
		allZero := true
		for _, g := range m.Interference() {
			switch g.Test {
			case GammaZero:
				if g.Gamma != 0 {
					t.Fatalf("fell back but γ %v: %+v", g.Gamma, g)
				}
				if math.Abs(g.AllSizes) > tQuantile975(g.DoF)*g.AllSizesStdErr {
					t.Fatalf("fell back with |γ of all sizes| beyond t·se: %+v", g)
				}
			case GammaNotSignificant:
				if g.Gamma != g.Estimate {
					t.Fatalf("not significant but γ %v differs from its estimate: %+v", g.Gamma, g)
				}
				if math.Abs(g.AllSizes) > tQuantile975(g.DoF)*g.AllSizesStdErr {
					t.Fatalf("not significant with |γ of all sizes| beyond t·se: %+v", g)
				}
			case GammaKept:
				if g.Gamma != g.Estimate {
					t.Fatalf("kept γ %v differs from its estimate: %+v", g.Gamma, g)
				}
				if !(math.Abs(g.AllSizes) > tQuantile975(g.DoF)*g.AllSizesStdErr) {
					t.Fatalf("kept with |γ of all sizes| within t·se: %+v", g)
				}
			case GammaUntested:
				if g.DoF != 0 || g.StdErr != 0 || g.AllSizesStdErr != 0 || g.Gamma != g.Estimate {
					t.Fatalf("untested with a standard error: %+v", g)
				}
			default:
				t.Fatalf("unknown test %q", g.Test)
			}
			allZero = allZero && g.Gamma == 0
		}
		// The band covers the mixed runs at their mix (the point sits at a
		// calibrated size), where the figures and the capacity shares at the
		// point are in a sane range (else even the central fit cannot pass
		// through the point: products of the shares underflow).
		mp := c.Mixed[0]
		sane := func(x float64) bool { return x > 1e-100 && x < 1e100 }
		if len(mp.Runs) > 1 && sane(mp.IOPS) && sane(c.Points[0].ReadIOPS) && sane(c.Points[0].WriteIOPS) && mp.ReadRatio > 1e-6 && mp.ReadRatio < 1-1e-6 &&
			sane(mp.ReadRatio*mp.IOPS/c.Points[0].ReadIOPS) && sane((1-mp.ReadRatio)*mp.IOPS/c.Points[0].WriteIOPS) {
			r, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: mp.IOSizeBytes, Rate: mp.ReadRatio}, {Op: Write, IOSizeBytes: mp.IOSizeBytes, Rate: 1 - mp.ReadRatio}})
			if err == nil && (r.MaxTotalIOPSLower > runsMin(mp.IOPS, mp.Runs)*(1+1e-6) || r.MaxTotalIOPSUpper < runsMax(mp.IOPS, mp.Runs)*(1-1e-6)) {
				t.Fatalf("band %v..%v at the mixed point misses its runs %v", r.MaxTotalIOPSLower, r.MaxTotalIOPSUpper, mp.Runs)
			}
		}
		rho, size := v[11], v[12]
		if !check.Finite(rho) || rho < 0 || rho > 1 || !(size > 0) || !check.Finite(size) {
			return
		}
		classes := []OpClass{{Op: Read, IOSizeBytes: size, Rate: rho}, {Op: Write, IOSizeBytes: size, Rate: 1 - rho}}
		res, err := m.AtMix(classes)
		if errors.Is(err, ErrNoLoad) {
			return
		}
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("AtMix: %v does not wrap ErrInput", err)
			}
			return
		}
		if !(res.MaxTotalIOPSLower <= res.MaxTotalIOPS && res.MaxTotalIOPS <= res.MaxTotalIOPSUpper) {
			t.Fatalf("band %v..%v misses %v", res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, res.MaxTotalIOPS)
		}
		// At the frontier: U(max at the mix) = 1, where the scaled rates and
		// the capacity shares at the unit mix are representable (a share
		// that underflows to 0 drops its interference at the unit mix only).
		at := []OpClass{{Op: Read, IOSizeBytes: size, Rate: rho * res.MaxTotalIOPS}, {Op: Write, IOSizeBytes: size, Rate: (1 - rho) * res.MaxTotalIOPS}}
		sc, _ := m.At(size)
		scaled := func(rate, unit float64) bool { return unit == 0 || rate > 1e-290 && rate < 1e290 }
		share := func(rate, capacity float64) bool { x := rate / capacity; return rate == 0 || x > 1e-290 && x < 1e290 }
		if res.MaxTotalIOPS < 1e290 && res.MaxTotalIOPS > 1e-290 && res.Utilization > 1e-290 && share(rho, sc.ReadIOPS) && share(1-rho, sc.WriteIOPS) &&
			scaled(at[0].Rate, rho) && scaled(at[1].Rate, 1-rho) {
			if u, err := m.AtMix(at); err == nil && math.Abs(u.Utilization-1) > 1e-9 {
				t.Fatalf("U at the max %v of %+v is %.15g", res.MaxTotalIOPS, classes, u.Utilization)
			}
		}
		if !allZero {
			return
		}
		paper := c
		paper.Mixed = nil
		pm, err := NewModel(paper)
		if err != nil {
			t.Fatalf("the paper's model of a calibration NewModel accepted: %v", err)
		}
		want, err := pm.AtMix(classes)
		if err != nil {
			t.Fatalf("the paper's model fails where the frontier does not: %v", err)
		}
		if res.MaxTotalIOPS != want.MaxTotalIOPS || res.Utilization != want.Utilization || res.HeadroomRatio != want.HeadroomRatio || res.LoadRatio != want.LoadRatio {
			t.Fatalf("γ 0 everywhere, yet %+v differs from the paper's %+v", res, want)
		}
		rs := []float64{0, rho, 0.5, 1}
		cf, _, err1 := m.Curve(size, rs)
		cp, _, err2 := pm.Curve(size, rs)
		if (err1 == nil) != (err2 == nil) {
			// The frontier's band ends keep their γ (the runs' ends are
			// fitted as measured); only where an end's capacity at the size
			// is out of range may its frontier fail where the paper's does not.
			extreme := false
			for _, e := range []*Model{m.lo, m.hi} {
				if e == nil {
					continue
				}
				ec, err := e.At(size)
				extreme = extreme || err != nil || !(ec.ReadIOPS > 1e-290 && ec.ReadIOPS < 1e290 && ec.WriteIOPS > 1e-290 && ec.WriteIOPS < 1e290)
			}
			if !extreme || err2 != nil {
				t.Fatalf("Curve errors differ: %v vs the paper's %v", err1, err2)
			}
			return
		}
		for i := range cf {
			if cf[i].MaxIOPS != cp[i].MaxIOPS {
				t.Fatalf("curve at ρ %v: %v, the paper's %v", rs[i], cf[i].MaxIOPS, cp[i].MaxIOPS)
			}
		}
	})
}
