package mlisp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/backtest"
	"gonum.org/v1/gonum/floats"
)

// paperWL1 is the paper's Table 4, workload WL1 trained on 0–800 IOPS:
// percentage errors at 1000, 1200, 1400 and 1600 IOPS = 1.25, 1.5, 1.75 and
// 2 times the training range.
var paperWL1 = []float64{6.08, 2.92, 11.65, 25.49}

// mlispMeasured is TestBacktestTable's mean error of the default M-LISP at
// 1.25, 1.5, 1.75 and 2 times each split, measured on its 10 seeds.
var mlispMeasured = map[float64][]float64{
	600: {0.035, 0.051, 0.103, 0.173},
	800: {0.044, 0.127, 0.273, 0.466},
}

// TestBacktestTable is the README's M-LISP accuracy table: the extrapolation
// backtest (package backtest) of M-LISP, its paper-exact Kriging variant and
// the two baselines on a simulated cluster with a known latency curve,
// L = 2 ms / (1 − IOPS/2000) with 5% log-normal noise, and counters that
// follow the load (queue depth by Little's law, cpu, disk utilization,
// network bytes) next to irrelevant, constant, inactive and often-missing
// ones. Errors are means over 10 independently drawn data sets.
//
//	go test -run TestBacktestTable -v ./forecaster/mlisp
func TestBacktestTable(t *testing.T) {
	q := mm1{S: 2, Mu: 2000}
	const seeds = 10
	type row struct {
		name  string
		model func(names []string) backtest.Forecaster
	}
	rows := []row{
		{"M-LISP (regression Kriging, default)", func(n []string) backtest.Forecaster { return Forecaster{Names: n} }},
		{"M-LISP (regression Kriging, no convex floor: before)", func(n []string) backtest.Forecaster {
			return Forecaster{Names: n, Options: Options{NoConvexFloor: true}}
		}},
		{"M-LISP (paper's non-negative Kriging)", func(n []string) backtest.Forecaster {
			return Forecaster{Names: n, Options: Options{Kriging: KrigingPaper}}
		}},
		{"BASIL-style, latency linear in OIO", func([]string) backtest.Forecaster { return BASILForecaster{} }},
		{"queueing fit L0/(1 − IOPS/mu)", func([]string) backtest.Forecaster { return QueueingForecaster{} }},
	}
	multiples := []float64{1.25, 1.5, 1.75, 2}
	var b strings.Builder
	fmt.Fprintf(&b, "| model | trained below | 1.25x | 1.5x | 1.75x | 2x | MAPE above X | coverage, raw Kriging band | coverage, calibrated band | calibrated upper / mean at 2x |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| paper, Table 4 (WL1, real NetApp filer) | 800 IOPS | %.1f%% | %.1f%% | %.1f%% | %.1f%% | | | | |\n", paperWL1[0], paperWL1[1], paperWL1[2], paperWL1[3])
	for _, split := range []float64{600, 800} {
		rowErrs := make([][]float64, len(rows))
		for ri, r := range rows {
			errs := make([]float64, len(multiples))
			var mape, cover, rawCover, width float64
			var covers []float64
			for s := 0; s < seeds; s++ {
				rng := rand.New(rand.NewPCG(uint64(s+1), 11))
				ws, names := windows(synthCluster(rng, q, 3000, 0.9, 0.05, 20, 5))
				rep, err := backtest.Run(r.model(names), ws, split, backtest.Options{Multiples: multiples})
				if err != nil {
					t.Fatalf("%s, split %v, seed %d: %v", r.name, split, s, err)
				}
				for k, a := range rep.AtMultiples {
					if a.N == 0 {
						t.Fatalf("%s: no observed windows around %v IOPS", r.name, a.Load)
					}
					errs[k] += a.Error / seeds
				}
				mape += rep.MAPE / seeds
				cover += rep.Coverage / seeds
				covers = append(covers, rep.Coverage)
				if f, ok := r.model(names).(Forecaster); ok {
					f.RawBand = true
					raw, err := backtest.Run(f, ws, split, backtest.Options{Multiples: multiples})
					if err != nil {
						t.Fatalf("%s raw band, split %v, seed %d: %v", r.name, split, s, err)
					}
					rawCover += raw.Coverage / seeds
					a := rep.AtMultiples[len(multiples)-1]
					width += a.Upper / a.Predicted / seeds
				}
				// Real outcomes, per data set.
				switch ri {
				case 0:
					// Near the data M-LISP must be usable, and nowhere may it
					// run away (the paper-exact variant does: see the table).
					if e := rep.AtMultiples[0].Error; !(e < 0.25) {
						t.Errorf("M-LISP split %v seed %d: error %.1f%% at 1.25x, want < 25%%", split, s, 100*e)
					}
					for _, a := range rep.AtMultiples {
						if !(a.Error < 1) {
							t.Errorf("M-LISP split %v seed %d: error %.1f%% at %vx, want < 100%%", split, s, 100*a.Error, a.Multiple)
						}
					}
				case 3:
					for _, a := range rep.AtMultiples {
						if !(a.Error < 0.15) {
							t.Errorf("BASIL split %v seed %d: error %.1f%% at %vx; M/M/1 latency is linear in OIO, want < 15%%", split, s, 100*a.Error, a.Multiple)
						}
					}
				case 4:
					for _, a := range rep.AtMultiples {
						if !(a.Error < 0.05) {
							t.Errorf("queueing split %v seed %d: error %.1f%% at %vx; the model is the truth's form, want < 5%%", split, s, 100*a.Error, a.Multiple)
						}
					}
				}
			}
			cov, rawCov, wid := "–", "–", "–"
			if !math.IsNaN(cover) {
				cov = fmt.Sprintf("%.0f%% (seeds %.0f–%.0f%%)", 100*cover, 100*floats.Min(covers), 100*floats.Max(covers))
				rawCov = fmt.Sprintf("%.0f%%", 100*rawCover)
				wid = fmt.Sprintf("%.2f", width)
			}
			fmt.Fprintf(&b, "| %s | %.0f IOPS (ρ = %.1f) | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %s | %s | %s |\n",
				r.name, split, split/q.Mu, 100*errs[0], 100*errs[1], 100*errs[2], 100*errs[3], 100*mape, rawCov, cov, wid)
			rowErrs[ri] = errs
			if ri == 1 {
				// The convex floor must cut the mean error at 1.5–2x.
				for k := 1; k < len(multiples); k++ {
					if !(rowErrs[0][k] < rowErrs[1][k]) {
						t.Errorf("split %v, %vx: error %.1f%% with the convex floor, %.1f%% without; want lower", split, multiples[k], 100*rowErrs[0][k], 100*rowErrs[1][k])
					}
				}
			}
			if ri == 0 {
				// The mean error over the 10 data sets at each multiple,
				// at most 1.3 times the one measured on these seeds (the
				// table in docs/models.md): a change that loses a third
				// of the accuracy anywhere fails.
				for k, want := range mlispMeasured[split] {
					if !(errs[k] <= 1.3*want) {
						t.Errorf("M-LISP split %v: mean error %.1f%% at %vx, measured %.1f%%: want <= %.1f%%", split, 100*errs[k], multiples[k], 100*want, 130*want)
					}
				}
				t.Logf("M-LISP split %v: calibrated coverage per seed %.3f", split, covers)
				// The calibrated band must hold its nominal 95% on held-out
				// extrapolation, up to a tolerance: measured 97.2% (split
				// 600; seeds 88–100%) and 91.6% (split 800; seeds 68–99%)
				// on these 10 seeds, the raw Kriging band 48% and 30%.
				good := 0
				for _, c := range covers {
					if c >= 0.85 {
						good++
					}
				}
				if !(cover >= 0.9) || good < 9 || floats.Min(covers) < 0.6 {
					t.Errorf("M-LISP split %v: calibrated coverage %.1f%% (%d of %d seeds ≥ 85%%, lowest %.1f%%), want mean ≥ 90%%, ≥ 9 seeds ≥ 85%%, none < 60%%",
						split, 100*cover, good, seeds, 100*floats.Min(covers))
				}
				if !(rawCover < cover) {
					t.Errorf("M-LISP split %v: calibrated coverage %.3f not above the raw band's %.3f", split, cover, rawCover)
				}
			}
		}
	}
	t.Log("\n" + b.String())
}
