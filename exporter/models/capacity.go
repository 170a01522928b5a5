package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/conservation"
)

// Capacity is a fitted conservation model: the calibration it was built
// from and where that came from.
type Capacity struct {
	Calibration conservation.Calibration `json:"calibration"`
	Source      string                   `json:"source"` // file, history
	N           int                      `json:"samples"`
	Acc         map[string]float64       `json:"accuracy,omitempty"`
	// History is the calibration file tested against the lookback's
	// measured load (zero for a capacity estimated from that history).
	History HistoryLoad `json:"history"`
	model   *conservation.Model
}

var (
	_ Fitted = (*Capacity)(nil)
	_ Noter  = (*Capacity)(nil)
	_ Fitter = CapacityFitter{}
)

// Model is the conservation model.
func (c *Capacity) Model() *conservation.Model { return c.model }

func (c *Capacity) Samples() int               { return c.N }
func (c *Capacity) Scores() map[string]float64 { return finiteScores(c.Acc) }

// Note says first whether the history contradicts the calibration
// (HistoryLoad), then, per size with a mixed point, what the calibration's runs made
// of the read/write interference γ: kept (the γ common to all sizes told
// from 0 by a t-test on its standard error, the runs' noise pooled), not
// significant (used as estimated all the same), zero (not significant and
// an estimate the frontier cannot take: the paper's law; the max-IOPS band
// still spans the runs) or untested (no repeated runs: a calibration of
// single runs, or mixed points read off a history fit); likewise the
// interference between sizes η from mixed-size points. Empty without
// either.
func (c *Capacity) Note() string {
	if c.model == nil {
		return ""
	}
	var parts []string
	if n := c.History.note(); n != "" {
		parts = append(parts, n)
	}
	for _, g := range c.model.Interference() {
		switch g.Test {
		case conservation.GammaKept:
			parts = append(parts, fmt.Sprintf("γ at %g bytes %.3g ± %.2g (s.e., %.0f dof from the runs' pooled noise; all sizes %.3g ± %.2g): kept", g.IOSizeBytes, g.Gamma, g.StdErr, g.DoF, g.AllSizes, g.AllSizesStdErr))
		case conservation.GammaNotSignificant:
			parts = append(parts, fmt.Sprintf("γ at %g bytes %.3g ± %.2g (s.e., %.0f dof from the runs' pooled noise; all sizes %.3g ± %.2g): not told from 0 by the runs, used as estimated, the max-IOPS band wide enough for either", g.IOSizeBytes, g.Gamma, g.StdErr, g.DoF, g.AllSizes, g.AllSizesStdErr))
		case conservation.GammaZero:
			parts = append(parts, fmt.Sprintf("γ at %g bytes estimated %.3g ± %.2g (s.e., %.0f dof from the runs' pooled noise; all sizes %.3g ± %.2g) is not told from 0 and puts some mix above the line between the pure points: the paper's model (γ = 0) is used, the max-IOPS band spans the runs", g.IOSizeBytes, g.Estimate, g.StdErr, g.DoF, g.AllSizes, g.AllSizesStdErr))
		default:
			parts = append(parts, fmt.Sprintf("γ at %g bytes %.3g: untested, no repeated runs to test it against 0", g.IOSizeBytes, g.Gamma))
		}
	}
	if e, ok := c.model.SizeInterference(); ok {
		switch e.Test {
		case conservation.GammaKept:
			parts = append(parts, fmt.Sprintf("interference between sizes η %.3g ± %.2g (s.e., %.0f dof from the runs' pooled noise): kept", e.Eta, e.StdErr, e.DoF))
		case conservation.GammaNotSignificant:
			parts = append(parts, fmt.Sprintf("interference between sizes η %.3g ± %.2g (s.e., %.0f dof from the runs' pooled noise): not told from 0 by the runs, used as estimated", e.Eta, e.StdErr, e.DoF))
		case conservation.GammaZero:
			parts = append(parts, fmt.Sprintf("interference between sizes η estimated %.3g ± %.2g (s.e., %.0f dof from the runs' pooled noise) is not told from 0 and would turn the frontier back before its point: none is used, the max-IOPS band spans the runs", e.Estimate, e.StdErr, e.DoF))
		default:
			parts = append(parts, fmt.Sprintf("interference between sizes η %.3g: untested, no repeated runs to test it against 0", e.Eta))
		}
	}
	return strings.Join(parts, "; ")
}

// NewCapacity builds the fitted capacity model of a calibration from src
// (file, history) learned from n samples with the given accuracy.
func NewCapacity(cal conservation.Calibration, src string, n int, acc map[string]float64) (*Capacity, error) {
	m, err := conservation.NewModel(cal)
	if err != nil {
		return nil, err
	}
	return &Capacity{Calibration: cal, Source: src, N: n, Acc: finiteScores(acc), model: m}, nil
}

// CapacityFitter fits the conservation model: from the cluster's calibration
// file when it has one, else estimated from the saturated windows of the
// history.
type CapacityFitter struct {
	// Estimate tunes the estimate from history.
	Estimate conservation.EstimateOptions
}

func (CapacityFitter) Name() string                 { return Conservation }
func (CapacityFitter) Enabled(*config.Cluster) bool { return true }

// Fit implements Fitter.
func (f CapacityFitter) Fit(_ context.Context, in Input) (Fitted, error) {
	if in.Cluster.Calibration.File != "" {
		cal, err := in.Cluster.Calibration.Load()
		if err != nil {
			return nil, err
		}
		c, err := NewCapacity(cal, "file", len(cal.Points), nil)
		if err != nil {
			return nil, err
		}
		if c.History, err = testHistoryLoad(c.model, in.Frame); err != nil {
			return nil, err
		}
		return c, nil
	}
	ws := features.CapacityWindows(in.Frame)
	if err := needWindows(Conservation, len(ws), 1, "with load"); err != nil {
		// An idle lookback: waiting, not failing (a source that answers
		// nothing at all is storcast_source_up 0).
		return nil, err
	}
	cal, q, err := conservation.EstimateFromHistory(ws, f.Estimate)
	if errors.Is(err, conservation.ErrNotIdentifiable) {
		// Never saturated: say what the history proves, a lower bound at
		// today's mix, rather than nothing.
		if in.HasObserved && in.Observed.IOSizeBytes > 0 {
			b, reason, berr := conservation.LowerBoundFromHistory(ws, in.Observed.IOSizeBytes, in.Observed.ReadRatio)
			if berr == nil && b.IOPS > 0 {
				// The estimate's own reason too: which size bands lacked
				// saturated windows, and why.
				return &CapacityBound{Bound: b, Reason: reason + "; " + err.Error(), N: b.Windows, Windows: conservation.BoundWindows(ws)}, nil
			}
		}
		// No lower bound to serve either: the capacity model waits for
		// saturated windows (or a calibration file).
		return nil, &NeedsCapacity{Model: Conservation, Reason: err.Error()}
	}
	if err != nil {
		return nil, err
	}
	// Accuracy: how well the fitted capacity line explains the saturated
	// windows (their utilization should be 1): max(1 − RMS(U − 1), 0).
	var s float64
	var k int
	for _, b := range q.Bands {
		if b.Fitted {
			s += b.RMSResidual * b.RMSResidual
			k++
		}
	}
	var acc map[string]float64
	if k > 0 {
		acc = map[string]float64{"max_iops": math.Max(1-math.Sqrt(s/float64(k)), 0)}
	}
	return NewCapacity(cal, "history", q.Saturated, acc)
}

// Decode implements Fitter: a calibration, or a lower bound.
func (CapacityFitter) Decode(data []byte) (Fitted, error) {
	var probe struct {
		Bound *conservation.Bound `json:"bound"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, err
	}
	if probe.Bound != nil {
		var b CapacityBound
		err := json.Unmarshal(data, &b)
		return &b, err
	}
	var c Capacity
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	d, err := NewCapacity(c.Calibration, c.Source, c.N, c.Acc)
	if err != nil {
		return nil, err
	}
	d.History = c.History
	return d, nil
}

// CapacityBound is what a history that never saturated proves: the max
// total IOPS at the mix it was computed for is at least Bound.IOPS.
type CapacityBound struct {
	Bound  conservation.Bound `json:"bound"`
	Reason string             `json:"reason"`
	N      int                `json:"samples"`
	// Windows are the history's windows the bound needs at any mix
	// (conservation.BoundWindows): the mix moves between fits, and the
	// bound served is the one at the mix observed (At).
	Windows []conservation.Window `json:"windows,omitempty"`
}

// At is the bound on max total IOPS at the observed mix, recomputed from
// the kept windows: the fit's bound is for the mix of its time, and a
// bound of 1,000 IOPS proved at 90% reads was served at 10% reads, where
// the same history proves 111. Without an observation, or kept windows (a
// state saved before them), the fit's.
func (b *CapacityBound) At(obs features.Observed, hasObs bool) float64 {
	if !hasObs || len(b.Windows) == 0 || !(obs.IOSizeBytes > 0) {
		return b.Bound.IOPS
	}
	nb, _, err := conservation.LowerBoundFromHistory(b.Windows, obs.IOSizeBytes, obs.ReadRatio)
	if err != nil {
		return b.Bound.IOPS
	}
	return nb.IOPS
}

var _ Fitted = (*CapacityBound)(nil)

func (b *CapacityBound) Samples() int               { return b.N }
func (b *CapacityBound) Scores() map[string]float64 { return nil }

// Note says that the figure is a bound, and why.
func (b *CapacityBound) Note() string {
	return "history never saturated: max IOPS is only bounded from below (" + b.Reason + ")"
}
