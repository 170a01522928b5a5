package queueing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/backtest"
	"github.com/storcast/storcast/forecaster/mlisp"
)

// windowsOf turns samples into backtest windows: Load = IOPS, Target =
// latency, Features = [U, outstanding requests X·L with 5% noise] (the
// counter M-LISP would see as queue depth).
func windowsOf(rng *rand.Rand, h []Sample) []backtest.Window {
	out := make([]backtest.Window, len(h))
	for i, s := range h {
		q := s.Throughput * s.Latency * math.Exp(0.05*rng.NormFloat64())
		out[i] = backtest.Window{Load: s.Throughput, Target: s.Latency, Features: []float64{s.U, q}}
	}
	return out
}

// TestBacktestAgainstMLISP is the docs/models.md comparison table: package
// backtest's protocol (fit below a split load X in IOPS, score every window
// above it and the ±5% bins at multiples of X) for this package and for
// M-LISP (mlisp.Forecaster, default options: the paper's pipeline with
// regression Kriging, convex floor and calibrated band) on the same
// windows, 5 seeds each. The histories lie in this package's families (a
// plumbing check for it; M-LISP's shape is free), so the table shows what a
// capacity-anchored shape gains over load-axis extrapolation, not accuracy
// on a real cluster. Asserts that this package's MAPE above X stays under
// 10% and beats M-LISP's on the open-loop histories, and that every row,
// the closed-loop ones included (where neither model predicts above the
// split), is the one docs/models.md shows.
//
//	go test -run TestBacktestAgainstMLISP -v ./forecaster/queueing
func TestBacktestAgainstMLISP(t *testing.T) {
	cases := []struct {
		name      string
		gen       func(*rand.Rand) []Sample
		split     float64 // in IOPS
		multiples []float64
	}{
		{"M/M/1, U ≤ 0.95", func(r *rand.Rand) []Sample { return openHistory(r, 1000, 0.95, 0.05, mm1Latency) }, 0.6 * truthC, []float64{1.25, 1.5}},
		{"M/D/1, U ≤ 0.95", func(r *rand.Rand) []Sample { return openHistory(r, 1000, 0.95, 0.05, md1Latency) }, 0.6 * truthC, []float64{1.25, 1.5}},
		{"closed MVA, 1–32 clients", func(r *rand.Rand) []Sample { return closedHistory(r, 1000, 32, 0.05) }, 0.9 * truthC, []float64{1.05, 1.1}},
		{"closed MVA, 1–32 clients", func(r *rand.Rand) []Sample { return closedHistory(r, 1000, 32, 0.05) }, 0.7 * truthC, []float64{1.15, 1.3}},
	}
	models := []backtest.Forecaster{Forecaster{UColumn: 0}, mlisp.Forecaster{Names: []string{"u", "queue_depth"}}}
	docs, err := os.ReadFile("../../docs/models.md")
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 5
	var b strings.Builder
	fmt.Fprintf(&b, "| history | split X | model | error at m1·X | error at m2·X | MAPE above X | MAPE above X, windows at U < 1 | band coverage |\n|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, c := range cases {
		mapes := make([]float64, len(models))
		for mi, model := range models {
			errs := make([]float64, len(c.multiples))
			var mape, mapeBelow, cover float64
			var saturated, above int
			for s := 0; s < seeds; s++ {
				rng := rand.New(rand.NewPCG(uint64(s), 21))
				ws := windowsOf(rng, c.gen(rng))
				rep, err := backtest.Run(model, ws, c.split, backtest.Options{Multiples: c.multiples})
				if err != nil {
					t.Fatalf("%s %s seed %d: %v", c.name, model.Name(), s, err)
				}
				for k, a := range rep.AtMultiples {
					errs[k] += a.Error / seeds
				}
				mape += rep.MAPE / seeds
				cover += rep.Coverage / seeds
				saturated += rep.Saturated
				above += rep.Test
				// The same protocol without the windows at or past capacity,
				// which this package answers "saturated" (not scored): both
				// models on the same windows.
				var below []backtest.Window
				for _, w := range ws {
					if w.Features[0] < 1 {
						below = append(below, w)
					}
				}
				repBelow, err := backtest.Run(model, below, c.split, backtest.Options{Multiples: c.multiples})
				if err != nil {
					t.Fatalf("%s %s seed %d, U < 1: %v", c.name, model.Name(), s, err)
				}
				mapeBelow += repBelow.MAPE / seeds
			}
			mapes[mi] = mape
			row := fmt.Sprintf("| %s | %.0f IOPS (U %.2f) | %s | %.1f%% (×%.2f) | %.1f%% (×%.2f) | %s | %.1f%% | %.0f%% |", c.name, c.split, c.split/truthC, model.Name(),
				100*errs[0], c.multiples[0], 100*errs[1], c.multiples[1], withSaturated(mape, saturated, above), 100*mapeBelow, 100*cover)
			fmt.Fprintln(&b, row)
			if !strings.Contains(string(docs), row+"\n") {
				t.Errorf("docs/models.md lacks the row\n%s", row)
			}
		}
		if !strings.HasPrefix(c.name, "closed") && (mapes[0] > 0.10 || mapes[0] >= mapes[1]) {
			t.Errorf("%s: queueing MAPE %.1f%%, mlisp %.1f%%: want queueing < 10%% and below mlisp", c.name, 100*mapes[0], 100*mapes[1])
		}
	}
	t.Log("\n" + b.String())
}

// TestBacktestWithEmptyBins: backtest.Run's default multiples (1.25-2 x the
// split) reach loads the history never held; their bins are empty and
// their centres carry no U. The backtest still scores the windows above the
// split (the exporter's latency accuracy is this figure) and reports the
// empty bins as NaN, not as a failed run.
func TestBacktestWithEmptyBins(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 21))
	ws := windowsOf(rng, openHistory(rng, 200, 0.6, 0.05, mm1Latency))
	rep, err := backtest.Run(Forecaster{UColumn: 0}, ws, 0.45*truthC, backtest.Options{})
	if err != nil {
		t.Fatalf("backtest with empty bins: %v", err)
	}
	if !(rep.MAPE < 0.1) || !(rep.Accuracy > 0.9) {
		t.Errorf("MAPE %v, accuracy %v above the split: want under 10%%, over 90%%", rep.MAPE, rep.Accuracy)
	}
	empty := 0
	for _, a := range rep.AtMultiples {
		if a.N == 0 {
			empty++
			if !math.IsNaN(a.Error) || !math.IsNaN(a.Predicted) {
				t.Errorf("empty bin at %.2fx: error %v, predicted %v, want NaN", a.Multiple, a.Error, a.Predicted)
			}
		}
	}
	if empty == 0 {
		t.Errorf("no empty bin at multiples %+v: the test does not reach the case", rep.AtMultiples)
	}
}

// withSaturated is a MAPE in percent with, where the model answered windows
// at U ≥ 1 "saturated" (backtest.Run counts them, does not score them), how
// many of the windows above the split over the seeds.
func withSaturated(mape float64, saturated, above int) string {
	if saturated == 0 {
		return fmt.Sprintf("%.1f%%", 100*mape)
	}
	return fmt.Sprintf("%.1f%% (%d of %d saturated)", 100*mape, saturated, above)
}
