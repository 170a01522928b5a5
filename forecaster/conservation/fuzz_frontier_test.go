package conservation

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/internal/fuzzbytes"
)

// FuzzFrontier: for any numbers, the closed forms either return an error
// that wraps ErrInput or a positive finite max on the frontier (U = 1 within
// 1e-9), and a mixed point's γ reproduces the point. Input: 8 float64s
// (internal/fuzzbytes): T_read100, T_write100, γ, read ratio, mixed IOPS,
// a read rate, a write rate, a second size.
func FuzzFrontier(f *testing.F) {
	f.Add(fuzzbytes.Of(180000, 30000, 0.3, 0.5, 40000, 1000, 500, 65536))
	f.Add(fuzzbytes.Of(19193, 2539, 0, 0.7, 6064, 10, 0, 4096))
	f.Add(fuzzbytes.Of(1, 1, -0.25, 0.5, 2, 1, 1, 1))
	f.Add(fuzzbytes.Of(1e308, 5e-324, 1e300, 1e-300, 1e308, 1e308, 5e-324, 1e308))
	f.Add(fuzzbytes.Of(math.NaN(), math.Inf(1), math.Inf(-1), -1, 0, math.Copysign(0, -1), 1, 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		v := fuzzbytes.Floats(data)
		if len(v) < 8 {
			return
		}
		tr, tw, g, rho, mixed, rr, wr, s2 := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		accepted := func(name string, err error) bool {
			if err != nil && !errors.Is(err, ErrInput) {
				t.Fatalf("%s: error %v does not wrap ErrInput", name, err)
			}
			return err == nil
		}
		if mt, err := MaxAtReadRatio(tr, tw, g, rho); accepted("MaxAtReadRatio", err) {
			if !(mt > 0) || math.IsInf(mt, 0) {
				t.Fatalf("MaxAtReadRatio(%v, %v, %v, %v) = %v", tr, tw, g, rho, mt)
			}
			a, b := rho/tr*mt, (1-rho)/tw*mt
			normal := func(x float64) bool { return x == 0 || x > 1e-290 && x < 1e290 }
			// On the frontier, where the shares and the ratios they come
			// from are representable.
			if normal(a) && normal(b) && normal(rho/tr) && normal((1-rho)/tw) && check.Finite(4*g*a*b) {
				if u := a + b + 4*g*a*b; math.Abs(u-1) > 1e-9 {
					t.Fatalf("U at MaxAtReadRatio(%v, %v, %v, %v) = %v = %.15g", tr, tw, g, rho, mt, u)
				}
			}
		}
		// The round trip, for a mix (a share under a millionth is none: at
		// 1e-307 of the load γ reaches 1e161 and the shares' products
		// underflow) and figures inside floating point's range.
		if gm, err := GammaFromMixed(tr, tw, rho, mixed); accepted("GammaFromMixed", err) && gm >= MinGamma {
			if mt, err := MaxAtReadRatio(tr, tw, gm, rho); err == nil && mixed > 1e-300 && mixed < 1e300 && tr < 1e300 && tw < 1e300 && tr > 1e-300 && tw > 1e-300 &&
				rho >= 1e-6 && rho <= 1-1e-6 {
				if !near(mt, mixed, 1e-8) {
					t.Fatalf("γ %v from mixed %v gives back %v", gm, mixed, mt)
				}
			}
		}
		_, err := FrontierUtilization(rr, wr, tr, tw, g)
		accepted("FrontierUtilization", err)
		cal := Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: tr, WriteIOPS: tw}, {IOSizeBytes: s2, ReadIOPS: tr / 2, WriteIOPS: tw / 2}},
			Mixed: []MixedPoint{{IOSizeBytes: 4096, ReadRatio: rho, IOPS: mixed}}}
		m, err := NewModel(cal)
		if !accepted("NewModel", err) {
			return
		}
		res, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: rr}, {Op: Write, IOSizeBytes: s2, Rate: wr}})
		if errors.Is(err, ErrNoLoad) || !accepted("AtMix", err) {
			return
		}
		if !(res.MaxTotalIOPS > 0) || math.IsNaN(res.Utilization) || res.MaxTotalIOPSLower > res.MaxTotalIOPS || res.MaxTotalIOPSUpper < res.MaxTotalIOPS {
			t.Fatalf("AtMix on %+v: %+v", cal, res)
		}
		// Past capacity U is at least 1, below it under 1 (with γ < 0 U
		// fell back after its peak: TestUtilizationNeverFallsPastCapacity).
		if res.LoadRatio >= 1+1e-9 && res.Utilization < 1 || res.LoadRatio < 1-1e-9 && res.Utilization >= 1 {
			t.Fatalf("AtMix on %+v: load ratio %v but U %v", cal, res.LoadRatio, res.Utilization)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
	})
}

// FuzzLowerBoundFromHistory: any windows give an error wrapping ErrInput or
// a bound that is finite, >= 0 and no more than what some window served.
func FuzzLowerBoundFromHistory(f *testing.F) {
	f.Add(fuzzbytes.Of(4096, 0.5, 4096, 3000, 1000, 4100, 1000, 2000))
	f.Add(fuzzbytes.Of(4096, 1, 4096, 0, 0, 8192, 5e-324, 1e308))
	f.Add(fuzzbytes.Of(math.NaN(), -1, 0, math.Inf(1), math.Copysign(0, -1), 1, 1, 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		v := fuzzbytes.Floats(data)
		if len(v) < 2 {
			return
		}
		var ws []Window
		for i := 2; i+2 < len(v); i += 3 {
			ws = append(ws, Window{IOSizeBytes: v[i], ReadIOPS: v[i+1], WriteIOPS: v[i+2]})
		}
		b, reason, err := LowerBoundFromHistory(ws, v[0], v[1])
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error %v does not wrap ErrInput", err)
			}
			return
		}
		if reason == "" || math.IsNaN(b.IOPS) || b.IOPS < 0 {
			t.Fatalf("bound %+v, reason %q", b, reason)
		}
		if b.Window >= 0 && b.IOPS > ws[b.Window].ReadIOPS+ws[b.Window].WriteIOPS && !math.IsInf(b.IOPS, 1) {
			t.Fatalf("bound %v above what window %d served (%+v)", b.IOPS, b.Window, ws[b.Window])
		}
	})
}
