package mlisp

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+sys CPU time (all threads).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFit is the project's speed target: M-LISP on 1000 samples × 5000
// counters with 21 extrapolation points (the paper: 185–2465 s in Matlab).
// One op = cleansing + working set + signature closure + per-counter CARTs +
// the 21-point extrapolation.
//
//	go test ./forecaster/mlisp -run '^$' -bench Fit -benchmem -benchtime 3x
func BenchmarkFit(b *testing.B) {
	for _, size := range []struct{ windows, counters int }{{1000, 100}, {1000, 1000}, {1000, 5000}} {
		b.Run(fmt.Sprintf("samples=%d/counters=%d", size.windows, size.counters), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			d := synthCluster(rng, mm1{S: 2, Mu: 2000}, size.windows, 0.5, 0.05, size.counters-13, 5)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime(b)
			for i := 0; i < b.N; i++ {
				m, err := Fit(d, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(m.Curve.Points) != 21 {
					b.Fatalf("%d points", len(m.Curve.Points))
				}
			}
			// CPU seconds per op: unlike wall time, not stretched when other
			// jobs share the machine.
			b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkCalibrate is the band calibration's share of BenchmarkFit: the
// per-counter trees regrown on the working set below each internal split and
// the two extrapolations to X (the signature is reused, not searched again).
//
//	go test ./forecaster/mlisp -run '^$' -bench Calibrate -benchmem -benchtime 3x
func BenchmarkCalibrate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := synthCluster(rng, mm1{S: 2, Mu: 2000}, 1000, 0.5, 0.05, 5000-13, 5)
	m, err := Fit(d, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for i := 0; i < b.N; i++ {
		if m.calibrate() == nil {
			b.Fatal("no calibration")
		}
	}
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
