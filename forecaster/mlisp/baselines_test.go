package mlisp

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/regress"
)

// rampOf is q's exact latency at 50, 75, ... 1000 IOPS.
func rampOf(q mm1) (iops, lat []float64) {
	for x := 50.0; x <= 1000; x += 25 {
		iops = append(iops, x)
		lat = append(lat, q.latency(x))
	}
	return iops, lat
}

// Known truth: on exact M/M/1 data both baselines are exact. The queueing
// fit recovers L0 = S and Mu; BASIL's line holds because the M/M/1 response
// time is L = S·(1 + N) with N = ρ/(1 − ρ) the mean number in system, so
// L is exactly linear in the outstanding IO and its closed form is the
// same curve. (With IOPS·L in IOPS·ms, L = S + (1/Mu)·IOPS·L, so A = 1/Mu.)
func TestBaselinesRecoverMM1(t *testing.T) {
	q := mm1{S: 2, Mu: 2000}
	iops, lat := rampOf(q)
	qf, err := FitQueueing(iops, lat)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(qf.L0-2) > 1e-6 || math.Abs(qf.Mu-2000) > 1e-3 {
		t.Errorf("queueing fit L0=%v Mu=%v, want 2 and 2000", qf.L0, qf.Mu)
	}
	b, err := FitLinearOIO(iops, lat)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(b.A-1.0/2000) > 1e-12 || math.Abs(b.B-2) > 1e-9 {
		t.Errorf("BASIL fit A=%v B=%v, want 1/2000 and 2", b.A, b.B)
	}
	for _, x := range []float64{1250, 1500, 1900} {
		want := q.latency(x)
		if got := qf.Latency(x); math.Abs(got-want) > 1e-5*want {
			t.Errorf("queueing at %v: %v, want %v", x, got, want)
		}
		if got := b.Latency(x); math.Abs(got-want) > 1e-9*want {
			t.Errorf("BASIL at %v: %v, want %v", x, got, want)
		}
	}
	if !math.IsInf(qf.Latency(qf.Mu), 1) || !math.IsInf(b.Latency(2001), 1) {
		t.Error("latency at or beyond saturation must be +Inf")
	}
}

// Close to saturation (the largest load at ρ 0.993 and 0.996 of Mu, between
// the coarse grid's last point 0.995 and the fine points 0.99 and 0.999) the
// fit still recovers M/M/1 exactly: the golden-section bracket is the best
// grid point's neighbours in order of ρ.
func TestBaselinesRecoverMM1NearSaturation(t *testing.T) {
	for _, rho := range []float64{0.993, 0.996} {
		q := mm1{S: 2, Mu: 1000 / rho}
		qf, err := FitQueueing(rampOf(q))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(qf.L0-2) > 1e-6 || math.Abs(qf.Mu-q.Mu)/q.Mu > 1e-6 {
			t.Errorf("ρ %v: queueing fit L0=%v Mu=%v, want 2 and %v", rho, qf.L0, qf.Mu, q.Mu)
		}
	}
}

// Mu always exceeds the largest observed IOPS, even for data that rise
// steeply at the end, and flat data give a very large Mu.
func TestQueueingMuAboveObserved(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var iops, lat []float64
	for k := 0; k < 200; k++ {
		x := 1000 * rng.Float64()
		iops = append(iops, x)
		lat = append(lat, 1+math.Pow(x/1000, 8)*50+0.1*rng.Float64())
	}
	q, err := FitQueueing(iops, lat)
	if err != nil {
		t.Fatal(err)
	}
	if !(q.Mu > 1000) {
		t.Errorf("Mu = %v must exceed the largest observed IOPS", q.Mu)
	}
	flat := []float64{2, 2.01, 1.99, 2, 2.02, 1.98}
	q2, err := FitQueueing([]float64{1, 2, 3, 4, 5, 6}, flat)
	if err != nil {
		t.Fatal(err)
	}
	if q2.Mu < 60 {
		t.Errorf("flat data: Mu = %v, want far above the observed 6 IOPS", q2.Mu)
	}
}

func TestBaselinesRejectBadInput(t *testing.T) {
	cases := []struct {
		name       string
		iops, lat  []float64
		wantSubstr string
	}{
		{"empty", nil, nil, "iops: empty"},
		{"mismatch", []float64{1, 2, 3}, []float64{1, 2}, "latency: length 2"},
		{"nan", []float64{1, math.NaN(), 3}, []float64{1, 2, 3}, "iops: element 1 is NaN"},
		{"inf", []float64{1, 2, 3}, []float64{1, math.Inf(1), 3}, "latency: element 1 is +Inf"},
		{"few", []float64{1, 2}, []float64{1, 2}, "need at least 3"},
		{"negative iops", []float64{1, -2, 3}, []float64{1, 2, 3}, "iops: element 1 is negative"},
		{"zero latency", []float64{1, 2, 3}, []float64{1, 0, 3}, "latency must be positive"},
		{"constant", []float64{1, 2, 3}, []float64{4, 4, 4}, "latency: constant"},
	}
	for _, c := range cases {
		_, err1 := FitQueueing(c.iops, c.lat)
		_, err2 := FitLinearOIO(c.iops, c.lat)
		for _, err := range []error{err1, err2} {
			if err == nil || !errors.Is(err, regress.ErrInput) || !strings.Contains(err.Error(), c.wantSubstr) {
				t.Errorf("%s: %v, want ErrInput mentioning %q", c.name, err, c.wantSubstr)
			}
		}
	}
	if _, err := FitQueueing([]float64{0, 0, 0}, []float64{1, 2, 3}); err == nil {
		t.Error("all-zero IOPS: no error")
	}
	// OIO constant: latency ∝ 1/IOPS.
	if _, err := FitLinearOIO([]float64{1, 2, 4}, []float64{4, 2, 1}); err == nil || !strings.Contains(err.Error(), "constant") {
		t.Errorf("constant OIO: %v", err)
	}
	// Latency falling as IOPS rises: the line's intercept is negative, and
	// B/(1 − Aλ) predicted −0.62 ms at 50 IOPS and +Inf at 100, a load seen.
	if _, err := FitLinearOIO([]float64{110, 100, 95}, []float64{0.001, 0.002, 0.003}); err == nil || !strings.Contains(err.Error(), "not positive") {
		t.Errorf("a line with a negative latency at no load: err %v, want refused", err)
	}
}

// TestQueueingFitWhateverTheUnits: the same latencies in units 1e160 times
// larger give the same service rate. Every sum overflowed (Inf − Inf: NaN
// for every ρ) and the search kept its first candidate, a flat curve.
func TestQueueingFitWhateverTheUnits(t *testing.T) {
	iops := []float64{1, 2, 3, 4}
	small, err := FitQueueing(iops, []float64{1, 1.5, 3, 10})
	if err != nil {
		t.Fatal(err)
	}
	huge, err := FitQueueing(iops, []float64{1e160, 1.5e160, 3e160, 1e161})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(huge.Mu/small.Mu-1) > 1e-9 || math.Abs(huge.L0/(1e160*small.L0)-1) > 1e-9 {
		t.Errorf("Mu %v, L0 %v in huge units; want %v, %v x 1e160", huge.Mu, huge.L0, small.Mu, small.L0)
	}
}
