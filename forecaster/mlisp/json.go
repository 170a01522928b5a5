package mlisp

import (
	"encoding/json"
	"fmt"
	"math"
)

// UnmarshalJSON decodes a model persisted with encoding/json, validates it
// and rebuilds the per-counter CARTs from its working set (they are not
// serialized; growing them on the signature columns takes milliseconds), so
// a decoded model extrapolates exactly like the one that was saved.
func (m *Model) UnmarshalJSON(b []byte) error {
	type plain Model
	var d plain
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	s := len(d.Signature)
	if s < 2 {
		return fmt.Errorf("mlisp: decoding model: signature has %d counters, need IOPS and latency", s)
	}
	if len(d.Samples) < 2 {
		return fmt.Errorf("mlisp: decoding model: %d samples", len(d.Samples))
	}
	for i, r := range d.Samples {
		if len(r) != s {
			return fmt.Errorf("mlisp: decoding model: sample %d has %d values for %d signature counters", i, len(r), s)
		}
		for _, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("mlisp: decoding model: sample %d is not finite", i)
			}
		}
	}
	if !(d.MaxIOPS > 0) || math.IsInf(d.MaxIOPS, 0) {
		return fmt.Errorf("mlisp: decoding model: max_iops %v", d.MaxIOPS)
	}
	for i, r := range d.Samples {
		if r[0] > d.MaxIOPS {
			return fmt.Errorf("mlisp: decoding model: sample %d at %v IOPS is above max_iops %v", i, r[0], d.MaxIOPS)
		}
	}
	if d.Curve != nil {
		if err := d.Curve.check(); err != nil {
			return fmt.Errorf("mlisp: decoding model: curve: %w", err)
		}
	}
	if err := d.Options.validate(); err != nil {
		return fmt.Errorf("mlisp: decoding model: %w", err)
	}
	if err := d.Calibration.Validate(); err != nil {
		return fmt.Errorf("mlisp: decoding model: %w", err)
	}
	*m = Model(d)
	m.Options = m.Options.withDefaults()
	if err := m.prepare(); err != nil {
		return fmt.Errorf("mlisp: decoding model: %w", err)
	}
	return nil
}

// check refuses a curve Fit does not make: the exporter serves a restored
// curve as it was saved (At, Crossing, Knee read it directly), so a band
// out of order or points out of IOPS order would reach the API and the
// alerts.
func (c *Curve) check() error {
	prev := math.Inf(-1)
	for i, p := range c.all() {
		for _, v := range []float64{p.IOPS, p.Lower, p.Mean, p.Upper, p.RawLower, p.RawUpper} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("point %d is not finite", i)
			}
		}
		if !(p.IOPS >= prev) {
			return fmt.Errorf("point %d at %v IOPS comes after %v", i, p.IOPS, prev)
		}
		if !(0 <= p.Lower && p.Lower <= p.Mean && p.Mean <= p.Upper && p.RawLower <= p.Mean && p.Mean <= p.RawUpper) {
			return fmt.Errorf("point %d at %v IOPS: band lower %v, mean %v, upper %v (raw %v, %v) not 0 <= lower <= mean <= upper", i, p.IOPS, p.Lower, p.Mean, p.Upper, p.RawLower, p.RawUpper)
		}
		prev = p.IOPS
	}
	return nil
}
