package mlisp

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/storcast/storcast/internal/fuzzbytes"
)

// FuzzBaselines: the two baseline fits either fail with an error or give a
// model whose latency is positive (or +Inf beyond saturation) and whose
// queueing Mu exceeds every observed IOPS.
func FuzzBaselines(f *testing.F) {
	f.Add(fuzzbytes.Of(1, 2, 3, 4, 1, 1.5, 2.5, 5))
	f.Add(fuzzbytes.Of(0, 0, 1, 1, 2, 2, 3, 3))
	f.Add(fuzzbytes.Of(5, 1, math.NaN(), 2, 3, 4))
	f.Fuzz(func(t *testing.T, data []byte) {
		v := fuzzbytes.Floats(data)
		n := len(v) / 2
		iops, lat := v[:n], v[n:2*n]
		if q, err := FitQueueing(iops, lat); err == nil {
			for _, x := range iops {
				if !(q.Mu > x) {
					t.Fatalf("Mu %v not above observed %v", q.Mu, x)
				}
			}
			if l := q.Latency(0); math.IsNaN(l) {
				t.Fatalf("queueing latency NaN: %+v", q)
			}
		}
		if b, err := FitLinearOIO(iops, lat); err == nil {
			if math.IsNaN(b.A) || math.IsNaN(b.B) {
				t.Fatalf("BASIL NaN: %+v", b)
			}
		}
	})
}

// FuzzFit: M-LISP on arbitrary small data sets either fails with an error or
// returns a 21-point curve of finite values.
func FuzzFit(f *testing.F) {
	seed := make([]float64, 0, 3*40)
	for t := 0; t < 40; t++ {
		x := float64(10 + 20*t)
		seed = append(seed, x, 1+x/500+0.01*float64(t%3), x/1000)
	}
	f.Add(fuzzbytes.Of(seed...), uint8(3))
	f.Add(fuzzbytes.Of(1, 2, 3), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, p uint8) {
		v := fuzzbytes.Floats(data)
		cols := int(p%4) + 2
		T := len(v) / cols
		if T == 0 || T > 200 {
			return
		}
		d := Dataset{IOPS: "c0", Latency: "c1"}
		for j := 0; j < cols; j++ {
			d.Names = append(d.Names, "c"+string(rune('0'+j)))
			d.Columns = append(d.Columns, v[j*T:(j+1)*T])
		}
		m, err := Fit(d, Options{MinSamples: 5})
		if err != nil {
			return
		}
		if len(m.Curve.Points) != 21 {
			t.Fatalf("%d points", len(m.Curve.Points))
		}
		for _, pt := range m.Curve.Points {
			for _, x := range []float64{pt.IOPS, pt.Lower, pt.Mean, pt.Upper} {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("non-finite curve point %+v", pt)
				}
			}
		}
	})
}

// FuzzModelJSON: a persisted model read back from disk may be corrupt;
// decoding must fail with an error or yield a model that extrapolates
// without panicking.
func FuzzModelJSON(f *testing.F) {
	f.Add([]byte(`{"signature":["iops","lat"],"samples":[[1,2],[2,3],[3,5]],"max_iops":3,"options":{}}`))
	f.Add([]byte(`{"signature":["iops","lat","q"],"samples":[[1,2,0],[2,3,1],[3,5,2],[4,9,3]],"max_iops":4,"options":{"steps":3}}`))
	f.Add([]byte(`{"signature":["a"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Model
		if err := json.Unmarshal(data, &m); err != nil {
			return
		}
		c, err := m.Extrapolate(2 * m.MaxIOPS)
		if err != nil {
			return
		}
		for _, p := range c.Points {
			if math.IsNaN(p.Mean) {
				t.Fatalf("NaN curve point %+v", p)
			}
		}
	})
}
