package regress

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func benchProblem(n, p int) (*mat.Dense, []float64) {
	beta := make([]float64, p)
	for j := 0; j < p; j += 10 {
		beta[j] = float64(j%7) - 3
	}
	return linearData(1, n, beta, 5, 1)
}

// go test ./forecaster/regress -run '^$' -bench 'Ridge|LassoPath|NNLS' -benchmem -benchtime 3x
func BenchmarkRidge(b *testing.B) {
	for _, s := range [][2]int{{100, 10}, {10000, 100}, {100000, 256}} {
		X, y := benchProblem(s[0], s[1])
		b.Run(fmt.Sprintf("n=%d/p=%d", s[0], s[1]), func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuSeconds()
			defer func() { b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu_s/op") }()
			for b.Loop() {
				if _, err := FitRidge(X, y, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLassoPath: 100-alpha warm-started path (eps 1e-3).
func BenchmarkLassoPath(b *testing.B) {
	for _, s := range [][2]int{{100, 10}, {10000, 100}, {100000, 256}} {
		X, y := benchProblem(s[0], s[1])
		b.Run(fmt.Sprintf("n=%d/p=%d", s[0], s[1]), func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuSeconds()
			defer func() { b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu_s/op") }()
			for b.Loop() {
				if _, err := ElasticNetPath(X, y, PathOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNNLS: square systems the size of M-LISP's Kriging (a CART leaf's
// samples plus 21 synthetic ones).
func BenchmarkNNLS(b *testing.B) {
	for _, n := range []int{10, 50, 200} {
		A, rhs := randProblem(rand.New(rand.NewPCG(3, 0)), n, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuSeconds()
			defer func() { b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu_s/op") }()
			for b.Loop() {
				if _, err := NNLS(A, rhs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cpuSeconds is user+sys CPU time of the process: the figure to compare when
// other jobs share the machine.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
