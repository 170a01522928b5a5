package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/trend"
)

// Saturation is the name of the saturation ETA's model.
const Saturation = "saturation"

// SaturationFitter fits the saturation ETA as the issue of capacity
// planning puts it: demand's trend at the forecast mix meets the capacity
// at that mix. Demand is fitted in units of the capacity at the latest
// window's mix (forecaster/trend.FitUtilization: a line with the daily
// cycle, so the daily peaks, not the mean, set the ETA; the cycle's form,
// harmonics or the hour-of-day profile, chosen by BIC, since a window that
// switches at once is not a few harmonics and its top is what meets the
// capacity first); the read ratio's
// trend (a line that may bend once, with its own daily cycle) gives the
// forecast mix, and the capacity at it (relative to the same reference)
// is the limit the demand trend must reach. A mix drifting toward writes
// thus counts as a falling limit, with the interference the capacity model
// fitted, and write-heavy hours at the demand peak as a lower limit there.
// It reads the capacity model fitted before it.
type SaturationFitter struct {
	Options trend.UtilizationOptions
}

var _ Fitter = SaturationFitter{}

func (SaturationFitter) Name() string                 { return Saturation }
func (SaturationFitter) Enabled(*config.Cluster) bool { return true }

// capacityTablePoints tabulates the capacity over read ratios in steps of
// 0.5%: the frontier is smooth in the read ratio, and linear
// interpolation between them errs far below the calibration's own spread.
const capacityTablePoints = 201

// Fit implements Fitter.
func (f SaturationFitter) Fit(_ context.Context, in Input) (Fitted, error) {
	capm, err := fittedCapacity(in, Saturation)
	if err != nil {
		return nil, err
	}
	obs, _ := utilizationSeries(capm, in.Frame)
	if err := needWindows(Saturation, len(obs), 3, "with load"); err != nil {
		return nil, err
	}
	ref := obs[len(obs)-1]
	cRef := capacityAtReadRatio(capm, ref, ref.ReadRatio)
	if !(cRef > 0) {
		return nil, fmt.Errorf("the capacity at the latest window's mix (read ratio %.3f) is %v", ref.ReadRatio, cRef)
	}
	times := make([]float64, len(obs))
	demand := make([]float64, len(obs))
	reads := make([]float64, len(obs))
	for i, o := range obs {
		times[i], demand[i], reads[i] = o.Time, o.IOPS/cRef, o.ReadRatio
	}
	opts := f.Options
	opts.ChooseHarmonics, opts.Profile = true, true
	ut, err := trend.FitUtilization(times, demand, opts)
	if err != nil {
		return nil, err
	}
	mix, err := trend.FitUtilization(times, reads, trend.UtilizationOptions{Growth: trend.GrowthLinear, Harmonics: f.Options.Harmonics, Bend: true, ChooseHarmonics: true})
	if err != nil {
		return nil, fmt.Errorf("read ratio trend: %w", err)
	}
	ut.Limit = mixLimit(capm, ref, cRef, mix)
	return &UtilizationFit{T: ut, N: len(obs), ReadRatio: mix, ReferenceIOPS: cRef}, nil
}

// classesAtReadRatio are the op classes of one operation per second at
// the sizes of o with read ratio r: a mix, for the capacity there.
func classesAtReadRatio(o features.Observed, r float64) []conservation.OpClass {
	o.ReadIOPS, o.WriteIOPS, o.IOPS = r, 1-r, 1
	return features.OpClasses(o)
}

// capacityAtReadRatio is the max total IOPS at the sizes of o with read
// ratio r (by operations); NaN when the capacity model cannot place it.
func capacityAtReadRatio(capm *conservation.Model, o features.Observed, r float64) float64 {
	res, err := capm.AtMixCentral(classesAtReadRatio(o, r))
	if err != nil || !(res.MaxTotalIOPS > 0) || !finite(res.MaxTotalIOPS) {
		return math.NaN()
	}
	return res.MaxTotalIOPS
}

// capacityBandAtReadRatio is capacityAtReadRatio and its band (the
// calibration's: where one more saturated run would land), all NaN where
// the capacity model cannot place the mix; where it can place the central
// figure but not the band (an end model that cannot place a size), the
// central figure at both ends.
func capacityBandAtReadRatio(capm *conservation.Model, o features.Observed, r float64) (central, lower, upper float64) {
	nan := math.NaN()
	classes := classesAtReadRatio(o, r)
	res, err := capm.AtMix(classes)
	if err != nil {
		if res, err = capm.AtMixCentral(classes); err != nil {
			return nan, nan, nan
		}
		res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper = res.MaxTotalIOPS, res.MaxTotalIOPS
	}
	if !(res.MaxTotalIOPS > 0) || !finite(res.MaxTotalIOPS) {
		return nan, nan, nan
	}
	lower, upper = math.Min(res.MaxTotalIOPSLower, res.MaxTotalIOPS), math.Max(res.MaxTotalIOPSUpper, res.MaxTotalIOPS)
	if !(lower > 0) || !finite(upper) {
		lower, upper = res.MaxTotalIOPS, res.MaxTotalIOPS
	}
	return res.MaxTotalIOPS, lower, upper
}

// mixLimit is the capacity at the forecast read ratio relative to cRef.
// The read ratio's daily-mean line is extrapolated from the latest window
// at its slope after the bend, if it bends, so a drift that sped up goes
// on at its latest pace, when that slope is significant (beyond two
// standard errors, windows that wander together counted as fewer), else
// held at its level: noise must not turn into a drift of the mix that
// moves the ETA. The mix's daily cycle rides on the line. On a drift
// accelerating under a square daily cycle of the mix, the straight line
// without the cycle put the ETA a day late at 11 of the 24 hours a history
// can end; the bend and the cycle, its harmonics chosen by BIC, at 3
// (TestSaturationETAByStartHour). Sizes stay the latest window's. A read
// ratio the capacity model cannot place takes its neighbour's value.
//
// The limit's band (the ETA's band) is the read ratio's and the
// capacity's: the read ratio within its prediction band at the latest
// window, widening with its slope's standard error ahead (also when the
// slope is held), and the capacity's band at each read ratio (the
// calibration's runs; none without them). Without them the ETA's band was
// demand's alone, minutes wide on a noise-free history where the read
// ratio's lag put the ETA hours late (TestSaturationETAByStartHour).
func mixLimit(capm *conservation.Model, ref features.Observed, cRef float64, mix *trend.UtilizationTrend) *trend.Limit {
	lim := &trend.Limit{T0: ref.Time, ReadRatio0: mix.TrendAt(ref.Time), Cycle: mix.DailyCycle()}
	lim.Slope = mix.DriftSlope() / trend.Day
	_, se := mix.Slope()
	if z, level, slopeSE := mix.Z, mix.PredictionSE(ref.Time), math.Max(se, mix.BacktestSlopeError); finite(z) && z > 0 && finite(level) && finite(slopeSE) {
		lim.Z, lim.LevelSE, lim.SlopeSE = z, level, slopeSE/trend.Day
	}
	lim.Capacity, lim.CapacityLower, lim.CapacityUpper = capacityTables(capm, ref, cRef)
	return lim
}

// capacityTables tabulates the capacity at the sizes of ref over read
// ratios 0, 0.5%, …, 1, relative to cRef, and its band's ends (nil when
// the band has no width anywhere); a read ratio the capacity model cannot
// place is filled (fillUnplaced).
func capacityTables(capm *conservation.Model, ref features.Observed, cRef float64) (capacity, lower, upper []float64) {
	capacity, lower, upper = make([]float64, capacityTablePoints), make([]float64, capacityTablePoints), make([]float64, capacityTablePoints)
	placed := make([]bool, capacityTablePoints)
	for k := range capacity {
		c, lo, hi := capacityBandAtReadRatio(capm, ref, float64(k)/(capacityTablePoints-1))
		capacity[k], lower[k], upper[k] = c/cRef, lo/cRef, hi/cRef
		placed[k] = !math.IsNaN(c) // all three placed, or none
	}
	if !fillUnplaced(placed, capacity, lower, upper) {
		return capacity, nil, nil // no read ratio placed: no limit (NaN)
	}
	if slices.Equal(lower, capacity) && slices.Equal(upper, capacity) {
		return capacity, nil, nil
	}
	return capacity, lower, upper
}

// fillUnplaced gives every point of the tables that was not placed the
// values of the last placed point before it, or for a leading gap of the
// first placed after it: all tables from the same point, so lower ≤
// capacity ≤ upper holds wherever it held at the placed points (trend.Limit
// reads no band otherwise). It reports whether any point was placed.
func fillUnplaced(placed []bool, tables ...[]float64) bool {
	from := slices.Index(placed, true)
	if from < 0 {
		return false
	}
	for k, ok := range placed {
		if ok {
			from = k
			continue
		}
		for _, t := range tables {
			t[k] = t[from]
		}
	}
	return true
}

// Decode implements Fitter.
func (SaturationFitter) Decode(data []byte) (Fitted, error) {
	var m UtilizationFit
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m.T == nil {
		return nil, errors.New("saturation: saved state has no trend")
	}
	return &m, nil
}

// UtilizationFit is a fitted utilization trend.
type UtilizationFit struct {
	// T is demand in units of the capacity at the latest window's mix,
	// with the capacity at the forecast mix as its limit.
	T *trend.UtilizationTrend `json:"trend"`
	N int                     `json:"samples"`
	// ReadRatio is the trend of the read ratio (by operations) that gave
	// the forecast mix.
	ReadRatio *trend.UtilizationTrend `json:"readRatio,omitempty"`
	// ReferenceIOPS is the capacity at the latest window's mix, T's unit
	// (0 in a state saved before it was kept).
	ReferenceIOPS float64 `json:"referenceIOPS,omitempty"`
}

func (m *UtilizationFit) Samples() int               { return m.N }
func (m *UtilizationFit) Scores() map[string]float64 { return nil }

// ETA is the saturation ETA from now at the current utilization; 0 when
// already saturated or over the latency SLO.
func (m *UtilizationFit) ETA(now, currentU float64, overSLO bool) trend.SaturationETA {
	return m.T.ETA(now, currentU, overSLO)
}

// hasReference reports whether the fit knows the capacity its demand is in
// units of (a state saved before it was kept does not): a load's ETA needs
// it.
func (m *UtilizationFit) hasReference() bool { return m.ReferenceIOPS > 0 && finite(m.ReferenceIOPS) }

// LoadETA is when demand's trend reaches iops (the latency knee: a load at
// today's mix, held there), as ETA does for the capacity: first by its
// daily peaks; the band's early end against lowIOPS, its late end against
// highIOPS (+Inf: no late end). ok is false without the reference
// capacity.
func (m *UtilizationFit) LoadETA(now, iops, lowIOPS, highIOPS float64) (eta trend.SaturationETA, ok bool) {
	if !m.hasReference() {
		return trend.SaturationETA{}, false
	}
	return m.T.LevelETA(now, iops/m.ReferenceIOPS, lowIOPS/m.ReferenceIOPS, highIOPS/m.ReferenceIOPS), true
}
