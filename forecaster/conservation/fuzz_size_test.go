package conservation

import (
	"errors"
	"math"
	"testing"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/internal/fuzzbytes"
)

// FuzzSizeInterference: calibrations with a mixed-size point decoded from
// the bytes (internal/fuzzbytes, 14 float64s: two sizes with their read and
// write IOPS, the 50/50 IOPS at the first size, the read ratio and IOPS of
// reads at the first size with writes at the second, the relative spread of
// the runs, the number of runs, and a query's read ratio, read size and
// write size) either fail with an error wrapping ErrInput or give a model
// where
//   - η's test is consistent: zero sets η to 0, kept means |estimate|
//     beyond the t quantile times its standard error, untested has none;
//   - η set to 0 reproduces the model without the mixed-size point bit for
//     bit at the query's mix (single runs, where the pool of runs is the
//     same);
//   - U at the max at the query's mix is 1 within 1e-9 relative, and the
//     band brackets the max.
func FuzzSizeInterference(f *testing.F) {
	f.Add(fuzzbytes.Of(4096, 36000, 12000, 65536, 9000, 3000, 15000, 0.5, 4400, 0.03, 2, 0.7, 4096, 65536))
	f.Add(fuzzbytes.Of(4096, 26382, 4150, 65536, 11980, 2907, 6436, 0.716, 6236, 0.04, 2, 0.5, 8192, 32768))
	f.Add(fuzzbytes.Of(4096, 36000, 12000, 65536, 9000, 3000, 15000, 0.3, 5000, 0, 1, 0.9, 65536, 4096))
	f.Add(fuzzbytes.Of(1, 1e308, 5e-324, math.NaN(), -1, math.Inf(1), 1, 0.5, 1e300, -2, 1e9, -1, 0, 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		v := fuzzbytes.Floats(data)
		if len(v) < 14 {
			return
		}
		n := 1
		if check.Finite(v[10]) && v[10] >= 1 && v[10] <= 6 {
			n = int(v[10])
		}
		var c Calibration
		for k, p := range [2][3]float64{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}} {
			r, rr := fuzzRuns(p[1], v[9], n, 2*k)
			w, wr := fuzzRuns(p[2], v[9], n, 2*k+1)
			c.Points = append(c.Points, Point{IOSizeBytes: p[0], ReadIOPS: r, WriteIOPS: w, ReadRuns: rr, WriteRuns: wr})
		}
		m5, m5r := fuzzRuns(v[6], v[9], n, 1)
		ms, msr := fuzzRuns(v[8], v[9], n, 3)
		c.Mixed = []MixedPoint{
			{IOSizeBytes: v[0], ReadRatio: 0.5, IOPS: m5, Runs: m5r},
			{IOSizeBytes: v[0], WriteIOSizeBytes: v[3], ReadRatio: v[7], IOPS: ms, Runs: msr},
		}
		m, err := NewModel(c)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("NewModel: %v does not wrap ErrInput", err)
			}
			return
		}
		e, ok := m.SizeInterference()
		if ok != c.Mixed[1].mixedSize() {
			t.Fatalf("size interference %v for mixed point %+v", ok, c.Mixed[1])
		}
		if ok {
			switch e.Test {
			case GammaZero:
				if e.Eta != 0 || math.Abs(e.Estimate) > tQuantile975(e.DoF)*e.StdErr {
					t.Fatalf("fell back inconsistently: %+v", e)
				}
			case GammaNotSignificant:
				if e.Eta != e.Estimate || math.Abs(e.Estimate) > tQuantile975(e.DoF)*e.StdErr {
					t.Fatalf("not significant inconsistently: %+v", e)
				}
			case GammaKept:
				if !(math.Abs(e.Estimate) > tQuantile975(e.DoF)*e.StdErr) || e.DoF <= 0 {
					t.Fatalf("kept inconsistently: %+v", e)
				}
			case GammaUntested:
				if e.DoF != 0 || e.StdErr != 0 {
					t.Fatalf("untested with a standard error: %+v", e)
				}
			default:
				t.Fatalf("unknown test %q", e.Test)
			}
		}
		rho, rs, ws := v[11], v[12], v[13]
		if !check.Finite(rho) || rho < 0 || rho > 1 || !(rs > 0) || !check.Finite(rs) || !(ws > 0) || !check.Finite(ws) {
			return
		}
		classes := []OpClass{{Op: Read, IOSizeBytes: rs, Rate: rho}, {Op: Write, IOSizeBytes: ws, Rate: 1 - rho}}
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
		sr, _ := m.At(rs)
		sw, _ := m.At(ws)
		sane := func(x float64) bool { return x == 0 || x > 1e-290 && x < 1e290 }
		at := []OpClass{{Op: Read, IOSizeBytes: rs, Rate: rho * res.MaxTotalIOPS}, {Op: Write, IOSizeBytes: ws, Rate: (1 - rho) * res.MaxTotalIOPS}}
		// Sizes below a byte are no IO; extrapolated there (1e-76 bytes in
		// one crasher) the capacities reach 1e83 and U keeps 3 digits.
		// Shares under a millionth of a mix are none (the mixed-size point's
		// or the query's: at 1e-288 the interference terms rest on products
		// at the edge of floating point).
		share := func(x float64) bool { return x >= 1e-6 && x <= 1-1e-6 }
		if sane(res.MaxTotalIOPS) && res.MaxTotalIOPS > 0 && res.Utilization > 1e-290 && sane(rho/sr.ReadIOPS) && sane((1-rho)/sw.WriteIOPS) && sane(at[0].Rate) && sane(at[1].Rate) && rs >= 1 && ws >= 1 &&
			(rho == 0 || rho == 1 || share(rho)) && share(v[7]) {
			if u, err := m.AtMix(at); err == nil && math.Abs(u.Utilization-1) > 1e-9 {
				t.Fatalf("U at the max %v of %+v is %.15g", res.MaxTotalIOPS, classes, u.Utilization)
			}
		}
		if !ok || n > 1 {
			return
		}
		zero := *m
		ze := *m.eta
		ze.Eta = 0
		zero.eta = &ze
		without := c
		without.Mixed = c.Mixed[:1]
		wm, err := NewModel(without)
		if err != nil {
			t.Fatalf("the model without the mixed-size point of an accepted calibration: %v", err)
		}
		got, err1 := zero.AtMix(classes)
		want, err2 := wm.AtMix(classes)
		if (err1 == nil) != (err2 == nil) || got != want {
			t.Fatalf("η 0: %+v (%v), without the mixed-size point %+v (%v)", got, err1, want, err2)
		}
	})
}
