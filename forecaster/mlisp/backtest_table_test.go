package mlisp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/backtest"
)

func TestBacktestTable(t *testing.T) {
	q := mm1{S: 2, Mu: 2000}
	rng := rand.New(rand.NewPCG(7, 11))
	d := synthCluster(rng, q, 3000, 0.9, 0.05, 20, 5)
	ws, names := windows(d)
	models := []backtest.Forecaster{
		Forecaster{Names: names},
		BASILForecaster{},
		QueueingForecaster{},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %-6s %-9s %8s %8s %8s %8s %9s %9s\n", "model", "split", "rho", "1.25x", "1.5x", "1.75x", "2x", "MAPE", "coverage")
	for _, split := range []float64{600, 800} {
		for _, m := range models {
			r, err := backtest.Run(m, ws, split, backtest.Options{})
			if err != nil {
				t.Fatalf("%s split %v: %v", m.Name(), split, err)
			}
			fmt.Fprintf(&b, "%-9s %-6.0f %-9.2f", r.Model, split, split/q.Mu)
			for _, a := range r.AtMultiples {
				fmt.Fprintf(&b, " %7.1f%%", 100*a.Error)
			}
			fmt.Fprintf(&b, " %8.1f%% %9.2f\n", 100*r.MAPE, r.Coverage)
		}
	}
	t.Log("\n" + b.String())
}
