package insideout

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"syscall"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The benchmark data set: benchN windows of the synthetic cluster with
// 8-16 OSD hosts and 3 MON hosts, 32 metrics per role → 256 features.
const (
	benchSeed = 2026
	benchN    = 20000
)

var benchData = flag.String("insideout.benchdata", "", "write the benchmark data set (little-endian float64: n, p, X row-major, y) to this file and exit the test")

func benchSchema() Schema { return synthSchema(32, 32) }

// TestWriteBenchmarkData writes the benchmark's data set for
// scripts/bench_insideout_sklearn.py:
//
//	go test ./forecaster/insideout -run TestWriteBenchmarkData -insideout.benchdata /tmp/insideout-bench.f64
//
// Layout: float64 n, float64 p, then X (n×p row-major), then y (read IOPS),
// all little-endian.
func TestWriteBenchmarkData(t *testing.T) {
	if *benchData == "" {
		t.Skip("set -insideout.benchdata to write the data set")
	}
	s := benchSchema()
	X, ys := synthMatrix(benchSeed, benchN, 8, 16, s)
	n, p := X.Dims()
	f, err := os.Create(*benchData)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 8*(2+n*p+n))
	put := func(v float64) { buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v)) }
	put(float64(n))
	put(float64(p))
	for i := 0; i < n; i++ {
		for _, v := range X.RawRowView(i) {
			put(v)
		}
	}
	for _, v := range ys[ReadIOPS] {
		put(v)
	}
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d×%d to %s", n, p, *benchData)
}

var benchCache = map[[2]int]struct {
	X  *mat.Dense
	ys map[Target][]float64
}{}

func benchSet(n, metrics int) (*mat.Dense, map[Target][]float64, []string) {
	s := synthSchema(metrics, metrics)
	k := [2]int{n, metrics}
	d, ok := benchCache[k]
	if !ok {
		d.X, d.ys = synthMatrix(benchSeed, n, 8, 16, s)
		benchCache[k] = d
	}
	return d.X, d.ys, s.FeatureNames()
}

// BenchmarkTrain: the full two-level learner (standardize, Ridge, 10
// thresholds × 30-alpha Lasso path × 10-fold CV, refit) on n windows ×
// 8·metrics features, for one target (read IOPS) and for all four.
//
//	go test ./forecaster/insideout -run '^$' -bench Train -benchmem -benchtime 3x
func BenchmarkTrain(b *testing.B) {
	for _, c := range []struct{ n, metrics int }{{2000, 8}, {2000, 32}, {20000, 32}} {
		X, ys, names := benchSet(c.n, c.metrics)
		for _, all := range []bool{false, true} {
			targets := map[Target][]float64{ReadIOPS: ys[ReadIOPS]}
			label := "read_iops"
			if all {
				targets, label = ys, "4_targets"
			}
			b.Run(fmt.Sprintf("n=%d/p=%d/%s", c.n, len(names), label), func(b *testing.B) {
				var peak uint64
				b.ReportAllocs()
				cpu0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					m, err := TrainMatrix(names, X, targets, Options{Seed: 1})
					if err != nil {
						b.Fatal(err)
					}
					if i == 0 {
						tm := m.Targets[ReadIOPS]
						b.ReportMetric(tm.CVAccuracy, "cv_accuracy")
						b.ReportMetric(float64(len(tm.Selected)), "selected")
					}
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapSys)
				}
				// CPU seconds (user+sys, all threads) per op: the honest figure
				// when other jobs share the machine and stretch wall time.
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu_s/op")
				b.ReportMetric(float64(peak)/(1<<20), "heap_sys_MiB")
			})
		}
	}
}

// BenchmarkPredict: one window of 12 OSD + 3 MON hosts × 64 metrics,
// aggregated and predicted for four targets.
func BenchmarkPredict(b *testing.B) {
	s := synthSchema(32, 32)
	ws, ys := synthWindows(1, 300, 8, 16, s)
	m, err := Train(s, ws, ys, Options{Seed: 1, Folds: 3, Thresholds: []float64{0, 1}})
	if err != nil {
		b.Fatal(err)
	}
	w, _ := synthWindow(7, 0, 12, 12, s)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Predict(w); err != nil {
			b.Fatal(err)
		}
	}
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
