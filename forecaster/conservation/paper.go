package conservation

import (
	"math"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// ReadWriteAtReadPercent is the paper's eq. 6 exactly as published: with
// C = T_read100 and R the read percent (0..100),
//
//	k = T_read100 / (R + (100 − R) f_rw),   T_read = k R,   T_write = k (100 − R).
//
// T_read + T_write is the max total IOPS at that read percent and one IO size.
// The public API elsewhere takes read ratios in 0..1; this function keeps the
// paper's percent so its worked cases can be checked as printed.
func ReadWriteAtReadPercent(tRead100, fRW, readPercent float64) (k, tRead, tWrite float64, err error) {
	if err := checkPositive("tRead100", tRead100); err != nil {
		return 0, 0, 0, err
	}
	if err := checkPositive("fRW", fRW); err != nil {
		return 0, 0, 0, err
	}
	if !check.Finite(readPercent) || readPercent < 0 || readPercent > 100 {
		return 0, 0, 0, inputError("readPercent", "must be in 0..100, got %v", readPercent)
	}
	k = tRead100 / (readPercent + (100-readPercent)*fRW)
	return k, k * readPercent, k * (100 - readPercent), nil
}

// TotalFromCapacityShares is the paper's eq. 7: P_i is the share of the
// cluster's *capacity* given to size class i (the paper split its COSBench
// workers by ratio), M_i = 100 k^{S_i} the max IOPS of class i alone, and
//
//	T_total = 100 Σ_i P_i k^{S_i} = Σ_i P_i M_i.
//
// shares must be >= 0 and sum to 1 (within 1e-9); maxIOPS > 0.
func TotalFromCapacityShares(shares, maxIOPS []float64) (float64, error) {
	if err := checkShares(shares, maxIOPS); err != nil {
		return 0, err
	}
	var t float64
	for i, p := range shares {
		t += p * maxIOPS[i]
	}
	return t, nil
}

// TotalFromOpShares is eq. 7's counterpart when P_i is the share of
// *operations* (what Prometheus rates give). Class i then takes P_i T of the
// T ops/s and uses P_i T / M_i of the capacity; the shares of capacity sum to
// one at saturation, so the total is the harmonic form
//
//	T_total = 1 / Σ_i (P_i / M_i).
func TotalFromOpShares(shares, maxIOPS []float64) (float64, error) {
	if err := checkShares(shares, maxIOPS); err != nil {
		return 0, err
	}
	var s float64
	for i, p := range shares {
		s += p / maxIOPS[i]
	}
	return 1 / s, nil
}

// OpToCapacityShares converts op shares p_i to capacity shares
// q_i = (p_i/M_i) / Σ_j (p_j/M_j).
func OpToCapacityShares(opShares, maxIOPS []float64) ([]float64, error) {
	if err := checkShares(opShares, maxIOPS); err != nil {
		return nil, err
	}
	out := make([]float64, len(opShares))
	var s float64
	for i, p := range opShares {
		out[i] = p / maxIOPS[i]
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out, nil
}

// CapacityToOpShares converts capacity shares q_i to op shares
// p_i = q_i M_i / Σ_j q_j M_j.
func CapacityToOpShares(capShares, maxIOPS []float64) ([]float64, error) {
	if err := checkShares(capShares, maxIOPS); err != nil {
		return nil, err
	}
	out := make([]float64, len(capShares))
	var s float64
	for i, q := range capShares {
		out[i] = q * maxIOPS[i]
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out, nil
}

func checkShares(shares, maxIOPS []float64) error {
	if len(shares) == 0 {
		return inputError("shares", "empty")
	}
	if len(maxIOPS) != len(shares) {
		return inputError("maxIOPS", "length %d does not match %d shares", len(maxIOPS), len(shares))
	}
	var sum float64
	for i, p := range shares {
		if !check.Finite(p) || p < 0 || p > 1 {
			return inputError("shares["+itoa(i)+"]", "must be in 0..1, got %v", p)
		}
		sum += p
		if err := checkPositive("maxIOPS["+itoa(i)+"]", maxIOPS[i]); err != nil {
			return err
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		return inputError("shares", "must sum to 1, sum is %v", sum)
	}
	return nil
}

// SizeShare is one IO size of a mixed-size workload: its read ratio (0..1)
// and its share (0..1; op share or capacity share depending on the method).
type SizeShare struct {
	IOSizeBytes float64 `json:"ioSizeBytes"`
	ReadRatio   float64 `json:"readRatio"`
	Share       float64 `json:"share"`
}

// classMax returns M_i = T_read + T_write of eq. 6 for each class.
func (m *Model) classMax(mix []SizeShare) (shares, maxIOPS []float64, extrapolated bool, err error) {
	if len(mix) == 0 {
		return nil, nil, false, inputError("mix", "empty")
	}
	shares = make([]float64, len(mix))
	maxIOPS = make([]float64, len(mix))
	for i, s := range mix {
		if !check.Finite(s.ReadRatio) || s.ReadRatio < 0 || s.ReadRatio > 1 {
			return nil, nil, false, inputError("mix["+itoa(i)+"].readRatio", "must be in 0..1, got %v", s.ReadRatio)
		}
		if err := checkPositive("mix["+itoa(i)+"].ioSizeBytes", s.IOSizeBytes); err != nil {
			return nil, nil, false, err
		}
		sc, err := m.At(s.IOSizeBytes)
		if err != nil {
			return nil, nil, false, inputError("mix["+itoa(i)+"].ioSizeBytes", "%v is too far outside the calibrated range to extrapolate", s.IOSizeBytes)
		}
		_, r, w, _ := ReadWriteAtReadPercent(sc.ReadIOPS, sc.FRW, 100*s.ReadRatio)
		shares[i], maxIOPS[i] = s.Share, r+w
		extrapolated = extrapolated || sc.Extrapolated
	}
	return shares, maxIOPS, extrapolated, nil
}

// MaxForCapacityShares is eq. 7 on this model's calibration: Share is the
// share of capacity given to each size (as in the paper's experiments).
// It is the paper's law on the pure points: the interference terms (γ, η)
// of a model with mixed points are left out, which AtMix, the one the
// exporter serves, keeps; the tests check the paper's equations with it.
func (m *Model) MaxForCapacityShares(mix []SizeShare) (total float64, extrapolated bool, err error) {
	shares, maxIOPS, ext, err := m.classMax(mix)
	if err != nil {
		return 0, false, err
	}
	t, err := TotalFromCapacityShares(shares, maxIOPS)
	return t, ext, err
}

// MaxForOpShares is the harmonic form on this model's calibration: Share is
// the share of operations of each size (as measured by Prometheus rates),
// without interference, like MaxForCapacityShares.
func (m *Model) MaxForOpShares(mix []SizeShare) (total float64, extrapolated bool, err error) {
	shares, maxIOPS, ext, err := m.classMax(mix)
	if err != nil {
		return 0, false, err
	}
	t, err := TotalFromOpShares(shares, maxIOPS)
	return t, ext, err
}

// NewPaperModel is the paper's law through the pure points of c: the model
// of c without its mixed points (γ = η = 0), with the same sizes, runs and
// interpolation. Against the frontier it is the line that no time-average
// of the calibrated pure loads can cross.
func NewPaperModel(c Calibration) (*Model, error) {
	c.Mixed = nil
	return NewModel(c)
}
