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
