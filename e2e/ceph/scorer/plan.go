package main

import (
	"fmt"
	"io"
	"math"

	"github.com/storcast/storcast/forecaster/conservation"
)

// PlanStep is one line of the load plan. Kind "load" runs fio; kind "mark"
// is where run.sh takes the M-LISP snapshot (trained on the steps before it).
type PlanStep struct {
	Kind      string // load or mark
	Name      string
	ReadPct   int
	BS        string
	BSBytes   float64
	Fraction  float64 // of the predicted capacity; 0 = saturated (no rate limit)
	RateRead  int     // fio --rate_iops for reads, 0 = unlimited
	RateWrite int
}

// Saturated reports whether the step runs without a rate limit.
func (s PlanStep) Saturated() bool { return s.Fraction == 0 }

// PlanFromFio derives the load plan from fio's calibration JSON: rate limits
// are fractions of the capacity the conservation model predicts at each mix.
func PlanFromFio(fioJSON []byte) ([]PlanStep, error) {
	cal, err := conservation.ImportFio(fioJSON)
	if err != nil {
		return nil, err
	}
	m, err := conservation.NewModel(cal)
	if err != nil {
		return nil, err
	}
	return Plan(m)
}

// The plan's shape: the ramp (50% reads) and the other mixes.
var (
	rampReadPct   = 50
	rampLower     = []float64{0.2, 0.4, 0.6}
	rampHigher    = []float64{0.8, 0} // 0: saturated
	otherMixes    = []int{70, 30}
	otherFraction = []float64{0.5, 0}
)

const planBS, planBSBytes = "4k", 4096.0

// Plan returns the load steps for a calibrated model.
func Plan(m *conservation.Model) ([]PlanStep, error) {
	var out []PlanStep
	add := func(readPct int, f float64) error {
		pts, _, err := m.Curve(planBSBytes, []float64{float64(readPct) / 100})
		if err != nil {
			return err
		}
		s := PlanStep{Kind: "load", ReadPct: readPct, BS: planBS, BSBytes: planBSBytes, Fraction: f}
		if f == 0 {
			s.Name = fmt.Sprintf("r%d-sat", readPct)
		} else {
			s.Name = fmt.Sprintf("r%d-f%02d", readPct, int(math.Round(f*100)))
			total := f * pts[0].MaxIOPS
			s.RateRead = int(math.Max(1, math.Round(total*float64(readPct)/100)))
			s.RateWrite = int(math.Max(1, math.Round(total*float64(100-readPct)/100)))
		}
		out = append(out, s)
		return nil
	}
	for _, f := range rampLower {
		if err := add(rampReadPct, f); err != nil {
			return nil, err
		}
	}
	out = append(out, PlanStep{Kind: "mark", Name: "mlisp"})
	for _, f := range rampHigher {
		if err := add(rampReadPct, f); err != nil {
			return nil, err
		}
	}
	for _, r := range otherMixes {
		for _, f := range otherFraction {
			if err := add(r, f); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// WritePlan prints the plan in the format run.sh reads:
// kind name read_pct bs rate_read rate_write.
func WritePlan(w io.Writer, steps []PlanStep) error {
	if _, err := fmt.Fprintln(w, "# kind name read_pct bs rate_read rate_write (0 0: saturated)"); err != nil {
		return err
	}
	for _, s := range steps {
		var err error
		if s.Kind == "mark" {
			_, err = fmt.Fprintf(w, "mark %s 0 - 0 0\n", s.Name)
		} else {
			_, err = fmt.Fprintf(w, "load %s %d %s %d %d\n", s.Name, s.ReadPct, s.BS, s.RateRead, s.RateWrite)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
