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
	Kind    string // load or mark
	Name    string
	ReadPct int
	BS      string
	BSBytes float64
	// ReadBSBytes and WriteBSBytes, when set, are the sizes of the two
	// directions of a mixed-size step (reads at one size, writes at
	// another, as two jobs at once); 0 = BSBytes for both.
	ReadBSBytes, WriteBSBytes float64
	Fraction                  float64 // of the predicted capacity; 0 = saturated (no rate limit)
	RateRead                  int     // fio --rate_iops for reads, 0 = unlimited
	RateWrite                 int
	Ramp                      bool // a step of the ramp (its steps after the mark are the M-LISP targets)
}

// Saturated reports whether the step runs without a rate limit.
func (s PlanStep) Saturated() bool { return s.Fraction == 0 }

// MixedSize reports whether the step's reads and writes have different sizes.
func (s PlanStep) MixedSize() bool {
	return s.ReadBSBytes > 0 && s.WriteBSBytes > 0 && s.ReadBSBytes != s.WriteBSBytes
}

// Sizes returns the IO size of the step's reads and of its writes.
func (s PlanStep) Sizes() (read, write float64) {
	read, write = s.BSBytes, s.BSBytes
	if s.ReadBSBytes > 0 {
		read = s.ReadBSBytes
	}
	if s.WriteBSBytes > 0 {
		write = s.WriteBSBytes
	}
	return read, write
}

// PlanFromFio derives the Ceph load plan from fio's calibration JSON: rate
// limits are fractions of the capacity the conservation model predicts at
// each mix.
func PlanFromFio(fioJSON []byte) ([]PlanStep, error) { return cephSystem.PlanFrom(fioJSON) }

// The plan's shape: the ramp (50% reads) and the other mixes.
var (
	rampReadPct   = 50
	rampLower     = []float64{0.2, 0.4, 0.6}
	rampHigher    = []float64{0.8, 0} // 0: saturated
	otherMixes    = []int{70, 30}
	otherFraction = []float64{0.5, 0}
)

const planBS, planBSBytes = "4k", 4096.0

// The Ceph plan's held-out steps: a size the calibration did not measure
// (between its 4 KiB and 64 KiB, so interpolated), and 4 KiB reads with
// 64 KiB writes at once (fio's "READ,WRITE" spelling of bs; run.sh runs it
// as a read job and a write job in one group, so the mix is whatever the
// cluster gives each job, not a set ratio: the step's read share is
// nominal, the scorer takes the mix fio measured).
var (
	cephUncalBS, cephUncalBSBytes = "16k", 16384.0
	cephMixedBS                   = "4k,64k"
	cephMixedRead, cephMixedWrite = 4096.0, 65536.0
)

// Plan returns the Ceph load steps for a calibrated model: the ramp and the
// other mixes at 4 KiB, then the held-out saturated steps: 50% reads at
// 16 KiB, and 4 KiB reads with 64 KiB writes.
func Plan(m *conservation.Model) ([]PlanStep, error) {
	p := planner{m: m}
	p.ramp(planBS, planBSBytes)
	for _, r := range otherMixes {
		for _, f := range otherFraction {
			p.add(r, planBS, planBSBytes, f, "")
		}
	}
	p.add(rampReadPct, cephUncalBS, cephUncalBSBytes, 0, "16k")
	if s := p.add(rampReadPct, cephMixedBS, (cephMixedRead+cephMixedWrite)/2, 0, "mixsize"); s != nil {
		s.ReadBSBytes, s.WriteBSBytes = cephMixedRead, cephMixedWrite
	}
	return p.out, p.err
}

// planner builds a plan step by step; the first error sticks.
type planner struct {
	m   *conservation.Model
	out []PlanStep
	err error
}

// add appends a load step at readPct and IO size bsBytes (bs as the load
// tool spells it), rate-limited at fraction f of the predicted capacity (0:
// saturated). suffix, when set, goes into the name (r50-16k-sat).
func (p *planner) add(readPct int, bs string, bsBytes, f float64, suffix string) *PlanStep {
	if p.err != nil {
		return nil
	}
	pts, _, err := p.m.Curve(bsBytes, []float64{float64(readPct) / 100})
	if err != nil {
		p.err = err
		return nil
	}
	s := PlanStep{Kind: "load", ReadPct: readPct, BS: bs, BSBytes: bsBytes, Fraction: f}
	name := fmt.Sprintf("r%d", readPct)
	if suffix != "" {
		name += "-" + suffix
	}
	if f == 0 {
		s.Name = name + "-sat"
	} else {
		s.Name = fmt.Sprintf("%s-f%02d", name, int(math.Round(f*100)))
		total := f * pts[0].MaxIOPS
		s.RateRead = int(math.Max(1, math.Round(total*float64(readPct)/100)))
		s.RateWrite = int(math.Max(1, math.Round(total*float64(100-readPct)/100)))
	}
	p.out = append(p.out, s)
	return &p.out[len(p.out)-1]
}

// ramp appends the ramp at rampReadPct: the lower steps, the M-LISP mark,
// the higher steps.
func (p *planner) ramp(bs string, bsBytes float64) {
	for _, f := range rampLower {
		if s := p.add(rampReadPct, bs, bsBytes, f, ""); s != nil {
			s.Ramp = true
		}
	}
	p.out = append(p.out, PlanStep{Kind: "mark", Name: "mlisp"})
	for _, f := range rampHigher {
		if s := p.add(rampReadPct, bs, bsBytes, f, ""); s != nil {
			s.Ramp = true
		}
	}
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
