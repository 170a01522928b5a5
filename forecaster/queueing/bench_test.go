package queueing

import (
	"math/rand/v2"
	"testing"

	"github.com/storcast/storcast/forecaster/backtest"
	"github.com/storcast/storcast/forecaster/mlisp"
)

// BenchmarkFit1000 fits 1000 M/M/1 samples (calibration included);
// BenchmarkMLISPFit1000 fits M-LISP to the same windows with two counters
// (U and queue depth).
//
//	go test -run XXX -bench Fit1000 -benchmem ./forecaster/queueing
func BenchmarkFit1000(b *testing.B) {
	h := openHistory(rand.New(rand.NewPCG(1, 1)), 1000, 0.95, 0.05, mm1Latency)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fit(h, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFit1000Closed(b *testing.B) {
	h := closedHistory(rand.New(rand.NewPCG(1, 1)), 1000, 32, 0.05)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fit(h, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMLISPFit1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	ws := windowsOf(rng, openHistory(rng, 1000, 0.95, 0.05, mm1Latency))
	f := mlisp.Forecaster{Names: []string{"u", "queue_depth"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Fit(ws); err != nil {
			b.Fatal(err)
		}
	}
}

var _ backtest.Forecaster = mlisp.Forecaster{}
