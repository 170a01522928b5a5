package trend

import (
	"encoding/json"
	"iter"
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Growth is the form of the utilization trend.
type Growth int

const (
	// GrowthAuto fits both forms and keeps the one with the smaller
	// squared error in utilization (equal parameter counts: the AIC choice;
	// with Bend each form decides its own bend, and a bent form then has
	// the advantage of a parameter: give Bend a fixed form).
	GrowthAuto Growth = iota
	// GrowthLinear: U(t) = a + b·t + daily harmonics.
	GrowthLinear
	// GrowthExponential: log U(t) = a + b·t + daily harmonics (the daily
	// cycle is then a proportion of the level).
	GrowthExponential
)

func (g Growth) String() string {
	switch g {
	case GrowthAuto:
		return "auto"
	case GrowthLinear:
		return "linear"
	case GrowthExponential:
		return "exponential"
	}
	return "Growth(?)"
}

// Day is the period of the cycle the utilization trend models.
const Day = 86400.0

// minHarmonicSpan is the shortest history the default fit gives a daily
// harmonic: over less than three quarters of a day the sine and cosine of
// the day are indistinguishable from a curvature of the trend, and
// extrapolating them turns that curvature into an ETA hours off (6 h of the
// growth-interference scenario gave 1.8 h for a true 6 h). Shorter history
// is fitted with the line alone.
const minHarmonicSpan = 0.75 * Day

// maxHarmonics bounds UtilizationOptions.Harmonics.
const maxHarmonics = 6

// maxHorizon bounds UtilizationOptions.HorizonSeconds: ten years.
const maxHorizon = 3650 * Day

// DefaultHorizonSeconds is the default UtilizationOptions.HorizonSeconds:
// one year. An ETA beyond it is +Inf.
const DefaultHorizonSeconds = 365 * Day

// UtilizationOptions tunes FitUtilization. Zero values take the defaults.
type UtilizationOptions struct {
	Growth Growth `json:"growth"`
	// Harmonics of the daily cycle: default none below 18 h of history (a
	// harmonic is then a curvature, see minHarmonicSpan), 1 below two days
	// (one period cannot pin more), 2 from two days on.
	Harmonics int `json:"harmonics"`
	// Level of the band, in (0, 1). Default 0.95.
	Level float64 `json:"level"`
	// HorizonSeconds bounds the ETA search; beyond it the ETA is +Inf.
	// Default 365 days.
	HorizonSeconds float64 `json:"horizonSeconds"`
	// Bend lets the line bend once (a hinge, see doc.go "A line that
	// bends"), where the history's hourly medians prefer it to a straight
	// line by BIC; never on under two days of history. The forecast then
	// follows the last segment: a drift that sped up or stopped is
	// extrapolated at its current pace.
	Bend bool `json:"bend,omitempty"`
	// ChooseHarmonics picks the number of daily harmonics, 1 to
	// maxHarmonics, by BIC on the history's hourly medians, from two days
	// of history on and when Harmonics is 0 (see doc.go): a daily profile
	// that switches at once (business hours, a nightly batch) needs more
	// than two, and what two leave of it reads as wander.
	ChooseHarmonics bool `json:"chooseHarmonics,omitempty"`
	// Profile lets ChooseHarmonics take, instead of harmonics, the
	// hour-of-day profile: a level per hour of the day (see doc.go "The
	// daily profile"). A few harmonics
	// fall short of the top of a window that switches at once (four hours
	// of nightly backup) and overshoot a wider one (eight business hours),
	// by several percent, which moves the ETA of the daily peaks by a day;
	// the profile cannot overshoot its levels. Not for a trend whose
	// cycle is a Limit's: DailyCycle holds harmonics only.
	Profile bool `json:"profile,omitempty"`
}

// UtilizationTrend is a fitted trend of the capacity frontier's utilization
// over time (see doc.go, "Saturation ETA").
type UtilizationTrend struct {
	Growth    Growth `json:"growth"`
	Harmonics int    `json:"harmonics"`
	// Profile: the daily cycle is the hour-of-day profile, not harmonics
	// (Harmonics is then 0).
	Profile bool      `json:"profile,omitempty"`
	Coef    []float64 `json:"coef"` // a, b (per day), cos, sin per harmonic or the profile's levels of hours 0-22, then the bend's change of slope (per day) if BendAt ≠ 0
	TMean   float64   `json:"tMean"`
	FirstT  float64   `json:"firstT"`
	LastT   float64   `json:"lastT"`
	N       int       `json:"n"`
	// ResidualStd is in the fitted scale (U, or log U).
	ResidualStd float64 `json:"residualStd"`
	// ResidualLag1 is the lag-1 autocorrelation of the residuals in time
	// order, clamped to [0, 0.99]: Slope's standard error counts windows
	// that wander together as fewer.
	ResidualLag1 float64   `json:"residualLag1,omitempty"`
	Z            float64   `json:"z"`
	Cov          []float64 `json:"cov"` // (XᵀWX)⁻¹ at the robust weights W of the last solve, row-major
	Horizon      float64   `json:"horizonSeconds"`
	// BendAt is the Unix time at which the line bends, its slope changing
	// by the last coefficient; 0: a straight line.
	BendAt float64 `json:"bendAt,omitempty"`
	// BacktestSlopeError is the error per day ahead of the line's own
	// forecasts from origins 6-24 h before the end (with the bend option,
	// from two days of history, the origins that have a day and a half
	// before them; 0 otherwise, or when the errors are no larger than the
	// bins' noise): what the slope's standard error does not hold, a drift
	// that keeps changing (see doc.go).
	BacktestSlopeError float64 `json:"backtestSlopeErrorPerDay,omitempty"`
	// Limit is the level the trend is compared with, in the fitted
	// quantity's units; nil: 1 (the utilization of a fixed frontier).
	Limit *Limit `json:"limit,omitempty"`
}

// Limit is the level the trend must reach when it moves with the mix: the
// capacity at the forecast read ratio, relative to the capacity the
// trend's quantity was divided by. The read ratio follows a line from
// ReadRatio0 at T0 (Slope per second) plus its daily cycle (Cycle: cos and
// sin coefficients per harmonic of the day, on the clock's phase, as
// UtilizationTrend's), clamped to [0, 1]: where the hours of the demand
// peak are the write-heavy ones, the capacity at the peak is below that
// at the day's mean mix. Capacity tabulates the relative capacity at read
// ratios 0, 1/(n−1), …, 1, interpolated linearly.
//
// The band (optional): the read ratio at t lies within
// ± Z·√(LevelSE² + (SlopeSE·(t − T0))²) of its forecast (the level's
// prediction error, one window's noise included, and the slope's, which
// grows with the time ahead; a slope held at 0 as not significant has
// its standard error too), and CapacityLower and CapacityUpper tabulate the
// ends of the capacity's own band (the calibration's) as Capacity does.
// The limit's band at t is the lowest lower end and the highest upper end
// over that range of read ratios (bandEnds).
type Limit struct {
	T0            float64   `json:"t0"`
	ReadRatio0    float64   `json:"readRatio0"`
	Slope         float64   `json:"slopePerSecond"`
	Cycle         []float64 `json:"cycle,omitempty"`
	Capacity      []float64 `json:"capacity"`
	Z             float64   `json:"z,omitempty"`
	LevelSE       float64   `json:"levelSE,omitempty"`
	SlopeSE       float64   `json:"slopeSEPerSecond,omitempty"`
	CapacityLower []float64 `json:"capacityLower,omitempty"`
	CapacityUpper []float64 `json:"capacityUpper,omitempty"`
}

// At is the limit at t; NaN for a corrupt table or cycle.
func (l *Limit) At(t float64) float64 { return l.capacityAt(t, true) }

// meanAt is the limit at the day's mean mix (without the mix's cycle),
// which the daily mean of demand is compared with.
func (l *Limit) meanAt(t float64) float64 { return l.capacityAt(t, false) }

func (l *Limit) capacityAt(t float64, cycle bool) float64 {
	r, ok := l.readRatio(t, cycle)
	if !ok {
		return math.NaN()
	}
	return interpolate(l.Capacity, clamp01(r))
}

// maxBandTable bounds the capacity table a band is read from: the band
// scans the table's knots over the read ratio's range at every step of the
// ETA's search (the exporter's table has a few hundred points).
const maxBandTable = 1025

// finiteNonNeg reports whether v is a number in [0, +Inf): a standard
// error, a z or a scale a saved state may hold.
func finiteNonNeg(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }

// bandOK reports whether the band can be read: standard errors finite and
// not negative, a capacity table of at most maxBandTable points, and band
// tables of its length with finite, positive values, lower ≤ capacity ≤
// upper at every point. A band that is not (a damaged saved state) is
// ignored, as one saved before the band was: the limit at both ends.
func (l *Limit) bandOK() bool {
	n := len(l.Capacity)
	if !finiteNonNeg(l.Z) || !finiteNonNeg(l.LevelSE) || !finiteNonNeg(l.SlopeSE) || n > maxBandTable {
		return false
	}
	for _, c := range [][]float64{l.CapacityLower, l.CapacityUpper} {
		if c != nil && len(c) != n {
			return false
		}
	}
	for k, c := range l.Capacity {
		lo, hi := c, c
		if l.CapacityLower != nil {
			lo = l.CapacityLower[k]
		}
		if l.CapacityUpper != nil {
			hi = l.CapacityUpper[k]
		}
		if !(lo > 0 && lo <= c && c <= hi && !math.IsInf(hi, 0)) {
			return false
		}
	}
	return true
}

// bandEnds returns the ends of the limit's band as functions of time: the
// lowest lower end and the highest upper end of the capacity's band over
// the read ratio's band (see Limit); the limit at both ends without a band
// or with one that cannot be read (bandOK, checked once here, not at every
// step of the ETA's search); NaN for a corrupt limit.
func (l *Limit) bandEnds() (lower, upper func(t float64) float64) {
	if !l.bandOK() {
		return l.At, l.At
	}
	return func(t float64) float64 { lo, _ := l.band(t); return lo },
		func(t float64) float64 { _, hi := l.band(t); return hi }
}

// band is the band at t of a band that bandOK accepted.
func (l *Limit) band(t float64) (lower, upper float64) {
	r, ok := l.readRatio(t, true)
	if !ok {
		return math.NaN(), math.NaN()
	}
	d := 0.0
	if l.Z > 0 {
		d = l.Z * math.Hypot(l.LevelSE, l.SlopeSE*(t-l.T0)) // +Inf far enough ahead: every read ratio
	}
	// Widened before it is clamped: a forecast past 1 is all reads, and
	// its band only reaches below 1 by more than the excess.
	lo, hi := clamp01(r-d), clamp01(r+d)
	if math.IsNaN(lo) || math.IsNaN(hi) { // r and d both infinite: every read ratio
		lo, hi = 0, 1
	}
	lowTable, highTable := l.Capacity, l.Capacity
	if l.CapacityLower != nil {
		lowTable = l.CapacityLower
	}
	if l.CapacityUpper != nil {
		highTable = l.CapacityUpper
	}
	// The ends, the knots between and the forecast itself (rounding may
	// put the limit at r a step below the ends on a flat stretch).
	lower, upper = interpolate(lowTable, lo), interpolate(highTable, lo)
	lower, upper = math.Min(lower, interpolate(lowTable, hi)), math.Max(upper, interpolate(highTable, hi))
	if c := clamp01(r); !math.IsNaN(c) {
		lower, upper = math.Min(lower, interpolate(lowTable, c)), math.Max(upper, interpolate(highTable, c))
	}
	// The table's points inside (lo, hi): a piecewise linear function
	// takes its extremes at its knots or the interval's ends.
	n := len(l.Capacity)
	for k := int(math.Floor(lo*float64(n-1))) + 1; k < n && float64(k) < hi*float64(n-1); k++ {
		lower, upper = math.Min(lower, lowTable[k]), math.Max(upper, highTable[k])
	}
	return lower, upper
}

// readRatio is the forecast read ratio at t, with the mix's daily cycle
// or without it, not clamped; ok is false for a corrupt limit or a NaN.
func (l *Limit) readRatio(t float64, cycle bool) (r float64, ok bool) {
	if len(l.Capacity) < 2 || len(l.Cycle)%2 != 0 || len(l.Cycle) > 2*maxHarmonics {
		return math.NaN(), false
	}
	r = l.ReadRatio0 + l.Slope*(t-l.T0)
	if cycle && len(l.Cycle) > 0 {
		w := 2 * math.Pi * math.Mod(t, Day) / Day
		for k := 0; k+1 < len(l.Cycle); k += 2 {
			h := float64(k/2 + 1)
			r += l.Cycle[k]*math.Cos(h*w) + l.Cycle[k+1]*math.Sin(h*w)
		}
	}
	return r, !math.IsNaN(r)
}

func clamp01(r float64) float64 { return math.Min(math.Max(r, 0), 1) } // NaN stays NaN

// interpolate reads the table of values at read ratios 0, 1/(n−1), …, 1
// at r in [0, 1], linearly; NaN for any other r.
func interpolate(table []float64, r float64) float64 {
	if !(r >= 0 && r <= 1) {
		return math.NaN()
	}
	n := len(table)
	x := r * float64(n-1)
	i := min(int(x), n-2)
	f := x - float64(i)
	return table[i]*(1-f) + table[i+1]*f
}

// FitUtilization fits the utilization trend of the frontier (times in Unix
// seconds, u the utilization 0..1 and beyond). It needs at least 3 + 2·H
// finite points over a positive span; GrowthExponential needs every u > 0
// (GrowthAuto then falls back to linear).
func FitUtilization(times, u []float64, opts UtilizationOptions) (*UtilizationTrend, error) {
	if len(times) != len(u) {
		return nil, inputError("u", "length %d does not match %d times", len(u), len(times))
	}
	for i := range times {
		if !finite(times[i]) {
			return nil, inputError("times", "element %d is %v", i, times[i])
		}
		if !finite(u[i]) {
			return nil, inputError("u", "element %d is %v", i, u[i])
		}
	}
	if opts.Growth < GrowthAuto || opts.Growth > GrowthExponential {
		return nil, inputError("opts.Growth", "unknown growth %d", int(opts.Growth))
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	if !(opts.Level > 0 && opts.Level < 1) {
		return nil, inputError("opts.Level", "must be in (0, 1), got %v", opts.Level)
	}
	if opts.HorizonSeconds == 0 {
		opts.HorizonSeconds = DefaultHorizonSeconds
	}
	if !finite(opts.HorizonSeconds) || opts.HorizonSeconds < 0 || opts.HorizonSeconds > maxHorizon {
		return nil, inputError("opts.HorizonSeconds", "must be in [0, %v] (ten years), got %v", maxHorizon, opts.HorizonSeconds)
	}
	if len(times) == 0 {
		return nil, inputError("times", "empty")
	}
	first, last := times[0], times[0]
	for _, t := range times {
		first, last = math.Min(first, t), math.Max(last, t)
	}
	if !(last > first) {
		return nil, inputError("times", "all equal; a trend needs a time range")
	}
	h := opts.Harmonics
	if h < 0 || h > maxHarmonics {
		return nil, inputError("opts.Harmonics", "must be in [0, %d], got %d", maxHarmonics, h)
	}
	if h == 0 {
		switch span := last - first; {
		case span >= 2*Day:
			h = 2
		case span >= minHarmonicSpan:
			h = 1
		}
	}
	if len(times) < 3+2*h {
		return nil, inputError("times", "%d points are too few for a line and %d daily harmonics", len(times), h)
	}
	positive := true
	for _, v := range u {
		positive = positive && v > 0
	}
	if opts.Growth == GrowthExponential && !positive {
		return nil, inputError("u", "exponential growth needs every utilization > 0")
	}
	// The hourly medians the harmonics and the bend are chosen on, per
	// growth form's scale, over the last maxBendSpan; none under two days.
	binned := finite(last-first) && last-first >= minBendHistory
	binFrom := math.Max(first, last-maxBendSpan)
	var binT, binY [GrowthExponential + 1][]float64 // by scale, computed once
	bins := func(g Growth) ([]float64, []float64) {
		if binT[g] == nil {
			binT[g], binY[g] = hourlyMedians(times, u, g, binFrom, last)
		}
		return binT[g], binY[g]
	}
	// The cycle's form is chosen once for both growth forms (chosen per
	// form, the form that took more would win the squared-error
	// comparison below on its extra parameters), on the log scale when
	// the exponential form may be fitted: growth times a cosine is there
	// a cosine and a second harmonic the linear scale hides.
	form := cycleForm{harmonics: h}
	if opts.ChooseHarmonics && opts.Harmonics == 0 && binned {
		scale := GrowthLinear
		if positive && opts.Growth != GrowthLinear {
			scale = GrowthExponential
		}
		bt, by := bins(scale)
		form = chooseHarmonics(bt, by, min(maxHarmonics, (len(times)-3)/2), h, opts.Profile && len(times) >= 3+profileParams)
	}
	var best *UtilizationTrend
	var firstErr error
	bestSSE := math.Inf(1)
	for _, g := range []Growth{GrowthLinear, GrowthExponential} {
		if opts.Growth != GrowthAuto && opts.Growth != g || g == GrowthExponential && !positive {
			continue
		}
		var bendAt float64
		if opts.Bend && binned {
			bt, by := bins(g)
			bendAt = chooseBend(bt, by, form, binFrom, last)
		}
		ut, err := fitHarmonic(times, u, g, form, bendAt, opts)
		if err != nil {
			// Auto keeps the form that fits: the log scale's weights can
			// fail where the linear fit holds.
			if opts.Growth == GrowthAuto {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			return nil, err
		}
		var sse float64
		for i, t := range times {
			r := u[i] - ut.unscale(ut.curve(t, true))
			sse += r * r
		}
		if sse < bestSSE {
			best, bestSSE = ut, sse
		}
	}
	if best == nil {
		if firstErr != nil {
			return nil, firstErr
		}
		return nil, inputError("u", "no growth form could be fitted")
	}
	if opts.Bend && binned {
		bt, by := bins(best.Growth)
		best.BacktestSlopeError = backtestSlopeError(bt, by, form, binFrom, last)
	}
	return best, nil
}

// backtestSlopeError is the error per day ahead of the line refitted at
// the origins 6, 12, 18 and 24 h before last that have a day and a half of
// bins before them (its bend chosen there as at the end), predicting the
// bins after each up to last: √(Σ(e² − s²)/Σh²) over every predicted bin,
// e its error, h its time ahead in days and s² the bins' noise about the
// origin's fit (its residual variance). 0 without an origin, or when the
// errors are no larger than the noise.
func backtestSlopeError(bt, by []float64, form cycleForm, first, last float64) float64 {
	var see, shh float64
	for origin, n := range backtestOrigins(bt, first, last) {
		ut, ok := fitBins(bt[:n], by[:n], form, chooseBend(bt[:n], by[:n], form, first, origin))
		if !ok {
			continue
		}
		// A bin's own noise is in every error whatever the time ahead:
		// taken out (the origin's fit's residual variance over its degrees
		// of freedom), what is left grows with the time ahead.
		_, sse := binResiduals(ut, bt[:n], by[:n])
		noise := sse / float64(n-ut.params())
		for i := n; i < len(bt); i++ {
			e, h := by[i]-ut.curve(bt[i], true), (bt[i]-origin)/Day
			see, shh = see+e*e-noise, shh+h*h
		}
	}
	if !(shh > 0) || !(see > 0) || !finite(see) {
		return 0
	}
	return math.Sqrt(see / shh)
}

func fitHarmonic(times, u []float64, g Growth, form cycleForm, bendAt float64, opts UtilizationOptions) (*UtilizationTrend, error) {
	n := len(times)
	ut := &UtilizationTrend{Growth: g, Harmonics: form.harmonics, Profile: form.profile, N: n, FirstT: times[0], LastT: times[0], Horizon: opts.HorizonSeconds, BendAt: bendAt}
	p := ut.params()
	for _, t := range times {
		ut.TMean += t / float64(n)
		ut.FirstT, ut.LastT = math.Min(ut.FirstT, t), math.Max(ut.LastT, t)
	}
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i, t := range times {
		X.SetRow(i, ut.row(t, true))
		y[i] = u[i]
		if g == GrowthExponential {
			y[i] = math.Log(u[i])
		}
	}
	// Iteratively reweighted least squares with Tukey's bisquare: the
	// first pass is ordinary least squares; each next one downweights
	// residuals by their size against the MAD scale, so the dips of an OSD
	// restart or a scrape gap do not tilt the line (on the
	// growth-interference scenario they made the least-squares slope 31%
	// steep; Theil-Sen on the same series was within 1%).
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	res := make([]float64, n)
	var inv mat.Dense
	var fitted mat.VecDense
	var scale float64
	for iter := 0; iter < irlsIterations; iter++ {
		var err error
		if inv, err = ut.solveWeighted(X, y, w); err != nil && iter > 0 {
			// The rate sample at a window's edge belongs to the hour
			// before, and pulls the least-squares level of the hour it
			// is stamped in off that hour's other windows: on a quiet
			// series by more than the cut-off, so the bisquare gives every
			// window of the hour weight 0 and leaves its level
			// unidentified (the fit failed on a business-hours window).
			// The cut-off is widened until the design is identified: the
			// hour's good windows come back first, the edge sample stays
			// out, and the next round tightens it again. Flooring the
			// weights instead would keep the edge sample in that hour's
			// level for good.
			for k := 2.0; err != nil && k <= 1024; k *= 2 {
				for i, r := range res {
					w[i] = bisquare(r / (k * bisquareC * scale))
				}
				inv, err = ut.solveWeighted(X, y, w)
			}
			if err != nil { // the last resort: every window in, at 1%
				for i := range w {
					w[i] = math.Max(w[i], minSolveWeight)
				}
				inv, err = ut.solveWeighted(X, y, w)
			}
		}
		if err != nil {
			return nil, err
		}
		fitted.MulVec(X, mat.NewVecDense(p, ut.Coef)) // X's rows are curve's
		for i := range y {
			res[i] = y[i] - fitted.AtVec(i)
		}
		scale = madScale(res)
		if !(scale > 0) {
			break // an exact fit: nothing to downweight
		}
		for i, r := range res {
			w[i] = bisquare(r / (bisquareC * scale))
		}
	}
	var ss, sw float64
	for i, r := range res {
		ss += w[i] * r * r
		sw += w[i]
	}
	if sw > float64(p) {
		ut.ResidualStd = math.Sqrt(ss / (sw - float64(p)))
	}
	ut.ResidualLag1 = lag1(times, res, w)
	ut.Cov = make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			ut.Cov[i*p+j] = inv.At(i, j)
		}
	}
	ut.Z = math.Sqrt2 * math.Erfinv(opts.Level)
	for _, c := range ut.Coef {
		if !finite(c) {
			return nil, inputError("u", "the fit is not finite")
		}
	}
	return ut, nil
}

// lag1 is the lag-1 autocorrelation of the residuals r in time order,
// leaving out those the robust weights w set to 0 (a restart's dip is no
// neighbour of anything), clamped to [0, 0.99].
func lag1(times, r, w []float64) float64 {
	idx := make([]int, 0, len(r))
	for i := range r {
		if w[i] > 0 {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return times[idx[a]] < times[idx[b]] })
	ordered := make([]float64, len(idx))
	for k, i := range idx {
		ordered[k] = r[i]
	}
	return math.Min(autocorr1(ordered), 0.99)
}

// autocorr1 is Σ r_k r_{k−1} / Σ r_k² over r in order, at least 0 (0 for
// no spread).
func autocorr1(r []float64) float64 {
	var num, den float64
	for k, v := range r {
		den += v * v
		if k > 0 {
			num += v * r[k-1]
		}
	}
	if !(den > 0) {
		return 0
	}
	return math.Max(num/den, 0)
}

// irlsIterations and bisquareC: Tukey's bisquare at the usual 95%
// Gaussian efficiency constant; ten rounds settle it on the series tested.
// minSolveWeight floors the weights when those of the bisquare leave the
// design singular even at 1024 times its cut-off: every window then counts,
// a restart's dip at 1% of a good window's weight.
const (
	irlsIterations = 10
	bisquareC      = 4.685
	minSolveWeight = 0.01
)

func bisquare(x float64) float64 {
	if math.Abs(x) >= 1 {
		return 0
	}
	v := 1 - x*x
	return v * v
}

// madScale is 1.4826·median|r|: the standard deviation of Gaussian
// residuals, unmoved by a minority of wild ones. Like R's MASS::rlm
// (median|r|/0.6745) it is taken about 0, the fit, not about the residuals'
// median: dips all on one side pull the first least-squares fit off the
// good windows by more than their spread, and a scale about the median then
// gave every window weight 0.
func madScale(r []float64) float64 {
	abs := make([]float64, len(r))
	for i, v := range r {
		abs[i] = math.Abs(v)
	}
	return 1.4826 * median(abs)
}

// solveWeighted sets ut.Coef to the weighted least-squares fit of y on X
// and returns (XᵀWX)⁻¹.
func (ut *UtilizationTrend) solveWeighted(X *mat.Dense, y, w []float64) (mat.Dense, error) {
	n, p := X.Dims()
	xtwx := mat.NewDense(p, p, nil)
	for i := 0; i < n; i++ { // Σ wᵢ xᵢxᵢᵀ, the upper triangle, without a weighted copy of X
		if w[i] == 0 {
			continue
		}
		row := X.RawRowView(i)
		for j, xj := range row {
			if xj == 0 {
				continue // the profile's rows are mostly zeros
			}
			wx := w[i] * xj
			for k := j; k < p; k++ {
				xtwx.Set(j, k, xtwx.At(j, k)+wx*row[k])
			}
		}
	}
	for j := 0; j < p; j++ {
		for k := 0; k < j; k++ {
			xtwx.Set(j, k, xtwx.At(k, j))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(xtwx); err != nil {
		return inv, inputError("times", "the line and daily harmonics are not identifiable from these times (%v)", err)
	}
	wy := make([]float64, n)
	for i := range y {
		wy[i] = w[i] * y[i]
	}
	var xty, beta mat.VecDense
	xty.MulVec(X.T(), mat.NewVecDense(n, wy))
	beta.MulVec(&inv, &xty)
	ut.Coef = make([]float64, p)
	for j := range ut.Coef {
		ut.Coef[j] = beta.AtVec(j)
	}
	return inv, nil
}

// valid reports whether the trend's shape and its coefficients agree (a
// trend decoded from corrupt JSON may not): the other methods return NaN
// or no forecast otherwise.
func (ut *UtilizationTrend) valid() bool {
	p := ut.params()
	return ut.coefOK() && len(ut.Cov) == p*p && finiteNonNeg(ut.Z) && finiteNonNeg(ut.ResidualStd)
}

// coefOK reports whether the coefficients fit the shape, which is all the
// curve needs.
func (ut *UtilizationTrend) coefOK() bool {
	return ut.Harmonics >= 0 && ut.Harmonics <= maxHarmonics && !(ut.Profile && ut.Harmonics != 0) && len(ut.Coef) == ut.params()
}

// cycleForm is the form of a daily cycle: harmonics, or the hour-of-day
// profile.
type cycleForm struct {
	harmonics int
	profile   bool
}

// profileParams is the profile's number of coefficients: 24 hourly levels
// that sum to 0 (the cycle's daily mean; the line is the mean), the last
// the negated sum of the others.
const profileParams = 23

// params is the number of coefficients: the line, two per harmonic or the
// profile's 23 levels, and the bend's change of slope if the line bends.
func (ut *UtilizationTrend) params() int {
	p := 2 + 2*ut.Harmonics
	if ut.Profile {
		p += profileParams
	}
	if ut.BendAt != 0 {
		p++
	}
	return p
}

// row is the design row at t: 1, (t − t̄) in days, then cos and sin of each
// harmonic of the day (absolute Unix time, so the phase is the clock's) or
// the profile's hour of the day, then, for a line that bends,
// max(0, t − BendAt) in days; without the cycle the cycle's entries are 0.
func (ut *UtilizationTrend) row(t float64, cycle bool) []float64 {
	r := make([]float64, ut.params())
	r[0], r[1] = 1, (t-ut.TMean)/Day
	if cycle {
		w := 2 * math.Pi * math.Mod(t, Day) / Day
		for k := 1; k <= ut.Harmonics; k++ {
			r[2*k], r[2*k+1] = math.Cos(float64(k)*w), math.Sin(float64(k)*w)
		}
		if ut.Profile {
			// A level per hour of the day; hour 23's is the negated sum of
			// the others (effect coding), so the cycle's daily mean is 0.
			h := math.Mod(t, Day) / 3600
			if h < 0 {
				h += 24
			}
			switch k := int(h); {
			case !(h >= 0 && h < 24): // t not finite: the line's NaN stands
			case k < profileParams:
				r[2+k] = 1
			default:
				for j := 0; j < profileParams; j++ {
					r[2+j] = -1
				}
			}
		}
	}
	if ut.BendAt != 0 {
		r[len(r)-1] = math.Max(t-ut.BendAt, 0) / Day
	}
	return r
}

// curve is the fitted value at t in the fitted scale, with or without the
// daily cycle.
func (ut *UtilizationTrend) curve(t float64, cycle bool) float64 {
	if !ut.coefOK() {
		return math.NaN()
	}
	var s float64
	for j, x := range ut.row(t, cycle) {
		s += ut.Coef[j] * x
	}
	return s
}

// halfWidth is the prediction band's half-width at t in the fitted scale:
// z·s·√(1 + xᵀ(XᵀWX)⁻¹x).
func (ut *UtilizationTrend) halfWidth(t float64, cycle bool) float64 {
	if ut.Z == 0 {
		return 0 // not 0·Inf
	}
	return ut.Z * ut.predictionSE(t, cycle)
}

// PredictionSE is the standard error of one window's value at t about the
// forecast with the daily cycle, in the fitted scale: the band's
// half-width over Z (the forecast's error and one window's noise).
func (ut *UtilizationTrend) PredictionSE(t float64) float64 { return ut.predictionSE(t, true) }

func (ut *UtilizationTrend) predictionSE(t float64, cycle bool) float64 {
	if !ut.valid() {
		return math.NaN()
	}
	x := ut.row(t, cycle)
	p := len(x)
	var q float64
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			q += x[i] * ut.Cov[i*p+j] * x[j]
		}
	}
	if math.IsNaN(q) { // a damaged covariance: no width known, the widest band
		return math.Inf(1)
	}
	return ut.ResidualStd * math.Sqrt(1+math.Max(q, 0))
}

func (ut *UtilizationTrend) unscale(v float64) float64 {
	if ut.Growth == GrowthExponential {
		return math.Exp(v)
	}
	return v
}

// TrendAt is the fitted trend at t without the daily cycle (the daily
// mean), in the fitted quantity's units.
func (ut *UtilizationTrend) TrendAt(t float64) float64 { return ut.unscale(ut.curve(t, false)) }

// Slope is the fitted slope per day in the fitted scale at the end of the
// history (after the bend, if the line bends), and its standard error,
// counting residuals that wander together as fewer (ResidualLag1).
func (ut *UtilizationTrend) Slope() (perDay, stdErr float64) {
	if !ut.valid() {
		return math.NaN(), math.NaN()
	}
	p := ut.params()
	// Windows whose residuals wander together are fewer independent ones:
	// the variance grows by (1 + ρ)/(1 − ρ) (the AR(1) effective count).
	rho := math.Min(math.Max(ut.ResidualLag1, 0), 0.99)
	inflate := math.Sqrt((1 + rho) / (1 - rho))
	if ut.BendAt == 0 {
		return ut.Coef[1], inflate * ut.ResidualStd * math.Sqrt(math.Max(ut.Cov[p+1], 0))
	}
	// The slope after the bend is b + c: Var = Var b + Var c + 2 Cov(b, c).
	k := p - 1
	v := ut.Cov[p+1] + ut.Cov[k*p+k] + 2*ut.Cov[p+k]
	return ut.Coef[1] + ut.Coef[k], inflate * ut.ResidualStd * math.Sqrt(math.Max(v, 0))
}

// DriftSlope is the slope per day at the end of the history (after the
// bend) when it is a drift, beyond two standard errors (windows that
// wander together counted as fewer), else 0: the read ratio's line is
// extrapolated at it. Where that count is small the bar is Student's t
// at its degrees of freedom instead (driftCritical): a flat mix that
// wanders for hours reads as a drift in 53 of 200 histories instead of
// 72. Gating on the backtest's error too (BacktestSlopeError) took it for
// a drift in 6, but held a true drift of 0.02 a day under short-memory
// noise in most, its forecast 36 h ahead erring by an RMS 0.0205 instead
// of 0.0048: that error feeds the band, not the gate.
func (ut *UtilizationTrend) DriftSlope() float64 {
	if b, se := ut.Slope(); math.Abs(b) > ut.driftCritical()*se {
		return b
	}
	return 0
}

// driftCritical is how many standard errors make a drift: 2, or the
// two-sided 95% quantile of Student's t at the windows' effective count
// N(1 − ρ)/(1 + ρ) less the fit's coefficients where that is larger (the
// effective-sample-size test of a trend in an autocorrelated series,
// Santer et al., "Statistical significance of trends and trend
// differences in layer-average atmospheric temperature time series",
// 2000). A mix that wanders for hours leaves a few independent windows in
// three days, and a slope two standard errors out is then no rarity;
// noise that forgets in minutes leaves hundreds and the bar stays at 2.
// +Inf (never a drift) when the effective count does not exceed the
// coefficients.
func (ut *UtilizationTrend) driftCritical() float64 {
	rho := math.Min(math.Max(ut.ResidualLag1, 0), 0.99)
	dof := float64(ut.N)*(1-rho)/(1+rho) - float64(len(ut.Coef))
	if !(dof > 0) {
		return math.Inf(1)
	}
	return math.Max(2, distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dof}.Quantile(0.975))
}

// DailyCycle is the fitted daily cycle's coefficients in the fitted
// scale, cos and sin per harmonic (the terms of Limit.Cycle); nil without
// harmonics (a profile too) or for a corrupt trend.
func (ut *UtilizationTrend) DailyCycle() []float64 {
	if ut.Harmonics <= 0 || ut.Profile || !ut.valid() {
		return nil
	}
	return append([]float64(nil), ut.Coef[2:2+2*ut.Harmonics]...)
}

// At is the utilization forecast at t with the daily cycle, and its band.
func (ut *UtilizationTrend) At(t float64) (mean, lower, upper float64) {
	m, h := ut.curve(t, true), ut.halfWidth(t, true)
	return ut.unscale(m), ut.unscale(m - h), ut.unscale(m + h)
}

// SaturationETA is the time until utilization reaches 1 (capacity), in
// seconds from now; +Inf: not within the horizon.
type SaturationETA struct {
	// PeakSeconds: until the daily peaks (trend plus the daily cycle)
	// reach capacity — the ETA to act on.
	PeakSeconds float64
	// EarlySeconds and LateSeconds bound PeakSeconds: until the upper
	// band of the peaks reaches the lower end of the limit's band, and the
	// lower band of the peaks its upper end.
	EarlySeconds float64
	LateSeconds  float64
	// MeanSeconds: until the trend without the daily cycle (the daily
	// mean) reaches capacity; never earlier than PeakSeconds when the
	// cycle has an amplitude.
	MeanSeconds float64
	// Reason is "" for a forecast, "saturated" when utilization is
	// already at or past capacity and "over SLO" when the caller said the
	// latency SLO is already violated (all ETAs 0 then).
	Reason string
}

type saturationJSON struct {
	PeakSeconds  *float64 `json:"peakSeconds"`
	EarlySeconds *float64 `json:"earlySeconds"`
	LateSeconds  *float64 `json:"lateSeconds"`
	MeanSeconds  *float64 `json:"meanSeconds"`
	Reason       string   `json:"reason,omitempty"`
}

// MarshalJSON encodes +Inf ("not within the horizon") as null.
func (e SaturationETA) MarshalJSON() ([]byte, error) {
	return json.Marshal(saturationJSON{infToNil(e.PeakSeconds), infToNil(e.EarlySeconds), infToNil(e.LateSeconds), infToNil(e.MeanSeconds), e.Reason})
}

// UnmarshalJSON decodes null as +Inf.
func (e *SaturationETA) UnmarshalJSON(b []byte) error {
	var j saturationJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = SaturationETA{nilToInf(j.PeakSeconds), nilToInf(j.EarlySeconds), nilToInf(j.LateSeconds), nilToInf(j.MeanSeconds), j.Reason}
	return nil
}

// etaStep is the scan step of the crossing search (then bisected to the
// second): a quarter of an hour resolves a daily peak.
const etaStep = 900.0

// ETA is the saturation ETA from now. currentU is the utilization observed
// now and overSLO says whether the latency SLO is already violated: either
// (currentU ≥ 1 or overSLO) makes every ETA 0. A NaN currentU is ignored.
func (ut *UtilizationTrend) ETA(now, currentU float64, overSLO bool) SaturationETA {
	switch {
	case overSLO:
		return SaturationETA{Reason: "over SLO"}
	case currentU >= 1:
		return SaturationETA{Reason: "saturated"}
	}
	if l := ut.Limit; l != nil {
		lower, upper := l.bandEnds()
		return ut.crossings(now, l.At, l.meanAt, lower, upper)
	}
	one := func(float64) float64 { return 1 }
	return ut.crossings(now, one, one, one, one)
}

// LevelETA is when the trend reaches a fixed level (in the trend's units)
// instead of its Limit: the daily peaks, the band's ends and the mean, as
// for ETA, the early end against lowLevel and the late end against
// highLevel (the level's own band; both level when it has none). The
// exporter asks it for the load at which latency crosses its SLO.
func (ut *UtilizationTrend) LevelETA(now, level, lowLevel, highLevel float64) SaturationETA {
	lim := func(float64) float64 { return level }
	lo := func(float64) float64 { return lowLevel }
	hi := func(float64) float64 { return highLevel }
	return ut.crossings(now, lim, lim, lo, hi)
}

// crossings scans the trend from now for the first time each of its
// curves reaches limit; the daily mean is compared with meanLimit, the
// limit without the mix's daily cycle. The band's early end is the upper
// band of the peaks reaching the limit's lower end, its late end the lower
// band reaching the limit's upper end: the demand's uncertainty and the
// limit's together.
func (ut *UtilizationTrend) crossings(now float64, limit, meanLimit, limitLower, limitUpper func(float64) float64) SaturationETA {
	inf := math.Inf(1)
	if !finite(now) || now+etaStep == now || !ut.valid() {
		// Also a trend decoded from corrupt JSON: no forecast.
		return SaturationETA{inf, inf, inf, inf, ""}
	}
	horizon := ut.Horizon
	if !(horizon >= 0 && horizon <= maxHorizon) {
		horizon = maxHorizon
	}
	cross := func(f, limit func(t float64) float64) float64 {
		reached := func(t float64) bool {
			l := limit(t)
			if ut.Growth == GrowthExponential {
				l = math.Log(l)
			}
			return f(t) >= l // false for a NaN limit: no forecast
		}
		if reached(now) {
			return 0
		}
		steps := int(math.Ceil(horizon / etaStep))
		for k := 1; k <= steps; k++ {
			t := now + float64(k)*etaStep
			if reached(t) {
				lo, hi := t-etaStep, t
				for i := 0; i < 20 && hi-lo > 1; i++ { // 900 s to under a second
					mid := (lo + hi) / 2
					if reached(mid) {
						hi = mid
					} else {
						lo = mid
					}
				}
				if hi-now > horizon {
					return inf
				}
				return hi - now
			}
		}
		return inf
	}
	return SaturationETA{
		PeakSeconds:  cross(func(t float64) float64 { return ut.curve(t, true) }, limit),
		EarlySeconds: cross(func(t float64) float64 { return ut.curve(t, true) + ut.halfWidth(t, true) }, limitLower),
		LateSeconds:  cross(func(t float64) float64 { return ut.curve(t, true) - ut.halfWidth(t, true) }, limitUpper),
		MeanSeconds:  cross(func(t float64) float64 { return ut.curve(t, false) }, meanLimit),
	}
}

// minBendHistory is the shortest history a line may bend on (two days:
// the daily harmonics are then pinned by two periods, so a bend is not a
// misread cycle), and minBendSegment the shortest segment on either side
// of a bend (half a day: the slope of a shorter one is the cycle's).
// The bend is sought in the last maxBendSpan of the history, on medians of
// bins bendBin wide: hourly bins keep the daily harmonics identifiable,
// and ten days of them bound the search (240 bins, as many candidates).
const (
	minBendHistory = 2 * Day
	minBendSegment = 0.5 * Day
	maxBendSpan    = 10 * Day
	bendBin        = 3600.0
	maxBendBins    = int(maxBendSpan / bendBin)
)

// chooseBend returns where the line bends, 0 for a straight one. The
// choice is made on the medians of hourly bins of the last maxBendSpan of
// the series (in the fitted scale): windows a minute apart are not
// independent, and an information criterion counting them as such takes
// any wiggle for a bend. A bend is kept only when it passes two tests:
//
//   - BIC: the best bend by least squares over the bin boundaries at least
//     minBendSegment from either end, with its time and change of slope
//     counted as two parameters, m·ln(SSE₀/SSE₁) > 2·ln m, m the bins'
//     effective count m(1 − ρ)/(1 + ρ) (ρ the lag-1 autocorrelation of
//     the bent line's residuals): residuals that wander for hours are
//     fewer independent ones;
//   - forecasting: from the origins 6, 12, 18 and 24 h before the end that
//     have a day and a half of bins before them, the bent line fitted to
//     the bins before each (its bend chosen there by least squares)
//     predicts the following 12 h (6 h from the last origin) with at most
//     half the squared error of the straight one, summed over the origins
//     (so a bend is kept once it has been seen for most of a day).
//
// A read ratio that wanders for hours (AR(1) 0.99 per 5-minute window,
// with a night-time step two harmonics do not hold) passed BIC on the
// bins counted as independent in 32 of 40 trials, with their effective
// count in 19 (both with two fixed harmonics), and both tests in 3; without the night step, over 200
// trials, its read ratio 36 h ahead erred by an RMS 0.0457 with the bend
// against 0.0371 straight, the harmonics chosen as the exporter does (the
// tests).
func chooseBend(bt, by []float64, h cycleForm, first, last float64) float64 {
	if len(bt) == 0 {
		return 0
	}
	tau, sse0, sse1, res := bestBend(bt, by, h, first, last)
	if tau == 0 || !(sse0 > 0) || !finite(sse0) {
		return 0
	}
	rho := math.Min(autocorr1(res), 0.95)
	me := float64(len(res)) * (1 - rho) / (1 + rho)
	if !(me > 2 && me*math.Log(sse0/sse1) > 2*math.Log(me)) {
		return 0
	}
	// The forecasting test.
	var errStraight, errBent float64
	tried := 0
	// Origins before the bend count what both lines miss, which keeps a
	// bend seen for less than most of a day (TestRecentBend) and one that a
	// wander's turn passed off as a bend straight: on a wandering mix,
	// counting only origins past the bend let 5 of 40 bend instead of 3,
	// and the error 36 h ahead was a third above the straight line's
	// instead of a fifth (two fixed harmonics).
	for origin, n := range backtestOrigins(bt, first, last) {
		tb, _, _, _ := bestBend(bt[:n], by[:n], h, first, origin)
		if tb == 0 {
			continue
		}
		straight, ok0 := fitBins(bt[:n], by[:n], h, 0)
		bent, ok1 := fitBins(bt[:n], by[:n], h, tb)
		if !ok0 || !ok1 {
			continue
		}
		for i := n; i < len(bt) && bt[i] <= origin+bendHorizon; i++ {
			e0, e1 := by[i]-straight.curve(bt[i], true), by[i]-bent.curve(bt[i], true)
			errStraight += e0 * e0
			errBent += e1 * e1
		}
		tried++
	}
	if tried == 0 || !(errBent < 0.5*errStraight) {
		return 0
	}
	return tau
}

// backtestOrigins yields the origins 6, 12, 18 and 24 h before last
// (bendOriginStep apart) that have a day and a half of bins after first
// before them (a bend needs half a day either side and a cycle to be told
// from), each with the number of bins bt up to it.
func backtestOrigins(bt []float64, first, last float64) iter.Seq2[float64, int] {
	return func(yield func(float64, int) bool) {
		for j := 1; j <= 4; j++ {
			origin := last - float64(j)*bendOriginStep
			if origin-first < 1.5*Day {
				continue
			}
			n := 0
			for n < len(bt) && bt[n] <= origin {
				n++
			}
			if !yield(origin, n) {
				return
			}
		}
	}
}

// hourlyMedians bins the series from first to last (in g's fitted scale)
// by the hour since first and returns each non-empty bin's median time and
// value, in time order.
func hourlyMedians(times, u []float64, g Growth, first, last float64) (bt, by []float64) {
	nb := int((last-first)/bendBin) + 1
	binT, binY := make([][]float64, nb), make([][]float64, nb)
	for i, t := range times {
		if t < first {
			continue
		}
		k := min(int((t-first)/bendBin), nb-1)
		y := u[i]
		if g == GrowthExponential {
			y = math.Log(y)
		}
		binT[k], binY[k] = append(binT[k], t), append(binY[k], y)
	}
	for k := range binT {
		if len(binT[k]) > 0 {
			bt, by = append(bt, median(binT[k])), append(by, median(binY[k]))
		}
	}
	return bt, by
}

// chooseHarmonics is the daily cycle's form, 1 to most harmonics or, if
// profile, the hour-of-day profile, whose line through the hourly medians
// has the least BIC, m·ln(SSE/m) + k·ln m (m bins, k coefficients: 2 + 2H,
// or 25 for the profile). The bins are counted as independent: the cycle
// is periodic, and a wander that is not does not buy it much. BIC is
// trusted only on two days of bins and with at least half of them left
// to the residuals (on 16 windows 10 h apart of a flat noisy mix it took 3
// to 5 harmonics in 62 of 200 histories, and the fit then failed in 21):
// otherwise fallback harmonics, the default, stand.
func chooseHarmonics(bt, by []float64, most, fallback int, profile bool) cycleForm {
	m := float64(len(bt))
	best := cycleForm{harmonics: fallback}
	if len(bt) < int(minBendHistory/bendBin) {
		return best
	}
	most = min(most, (len(bt)/2-2)/2) // 2 + 2H ≤ m/2
	forms := make([]cycleForm, 0, most+1)
	for h := 1; h <= most; h++ {
		forms = append(forms, cycleForm{harmonics: h})
	}
	if profile && 2+profileParams <= len(bt)/2 {
		forms = append(forms, cycleForm{profile: true})
	}
	bestBIC := math.Inf(1)
	for _, f := range forms {
		ut, ok := fitBins(bt, by, f, 0)
		if !ok {
			continue
		}
		_, sse := binResiduals(ut, bt, by)
		if sse == 0 {
			return f // an exact fit: nothing more to explain
		}
		if bic := m*math.Log(sse/m) + float64(ut.params())*math.Log(m); bic < bestBIC {
			best, bestBIC = f, bic
		}
	}
	return best
}

// bendOriginStep and bendHorizon are the forecasting test's spacing of
// origins and how far it predicts from each (up to the end of the
// history: 6 h from the last origin).
const (
	bendOriginStep = 6 * 3600.0
	bendHorizon    = 12 * 3600.0
)

// fitBins is the least-squares line (bent at bendAt unless 0) with h
// daily harmonics through the bins.
func fitBins(bt, by []float64, h cycleForm, bendAt float64) (*UtilizationTrend, bool) {
	m := len(bt)
	ut := &UtilizationTrend{Harmonics: h.harmonics, Profile: h.profile, BendAt: bendAt}
	if m < ut.params()+2 {
		return nil, false
	}
	for _, t := range bt {
		ut.TMean += t / float64(m)
	}
	X := mat.NewDense(m, ut.params(), nil)
	w := make([]float64, m)
	for i, t := range bt {
		X.SetRow(i, ut.row(t, true))
		w[i] = 1
	}
	if _, err := ut.solveWeighted(X, by, w); err != nil {
		return nil, false
	}
	return ut, true
}

// binResiduals are the bins' residuals from ut's curve, cycle included,
// and their sum of squares.
func binResiduals(ut *UtilizationTrend, bt, by []float64) (res []float64, sse float64) {
	res = make([]float64, len(bt))
	for i, t := range bt {
		res[i] = by[i] - ut.curve(t, true)
		sse += res[i] * res[i]
	}
	return res, sse
}

// orthonormalColumns is an orthonormal basis of the columns of ut's design
// at times bt (cycle included), by modified Gram–Schmidt, each column
// orthogonalized twice (the second pass takes what rounding left of the
// earlier ones); ok is false when a column lies in the span of the others.
func orthonormalColumns(bt []float64, ut *UtilizationTrend) (q [][]float64, ok bool) {
	p := ut.params()
	q = make([][]float64, p)
	for j := range q {
		q[j] = make([]float64, len(bt))
	}
	for i, t := range bt {
		for j, v := range ut.row(t, true) {
			q[j][i] = v
		}
	}
	for j, c := range q {
		before := floats.Norm(c, 2)
		for pass := 0; pass < 2; pass++ {
			for _, b := range q[:j] {
				floats.AddScaled(c, -floats.Dot(b, c), b)
			}
		}
		n := floats.Norm(c, 2)
		if !(n > 1e-10*before) { // all but rounding of the column lay in the others' span
			return nil, false
		}
		floats.Scale(1/n, c)
	}
	return q, true
}

// bestBend is the bend on the bin grid (first + k·bendBin, at least
// minBendSegment from first and from last) whose bent line fits the bins
// with the least squared error: its time (0: none could be fitted), the
// straight line's squared error (NaN without a candidate) and its own, and
// its residuals.
//
// Each candidate's squared error is the straight line's less what the
// hinge z = max(0, t − τ) adds (Frisch–Waugh): SSE₁ = SSE₀ − (zᵀr₀)²/‖Mz‖²,
// r₀ the straight line's residuals and Mz the hinge's part orthogonal to
// the straight design (z − Q·Qᵀz, Q an orthonormal basis of its columns),
// so a candidate costs O(m·p) and no fit; only the best is fitted
// (TestBestBendAgainstRefits).
func bestBend(bt, by []float64, h cycleForm, first, last float64) (tau, sse0, sse1 float64, res []float64) {
	sse0, sse1 = math.NaN(), math.Inf(1)
	bendCandidates(bt, by, h, first, last, func(t, s0, s1 float64) {
		sse0 = s0
		if s1 < sse1 {
			tau, sse1 = t, s1
		}
	})
	if tau == 0 {
		return 0, sse0, sse1, nil
	}
	bent, ok := fitBins(bt, by, h, tau)
	if !ok {
		return 0, sse0, math.Inf(1), nil
	}
	res, sse1 = binResiduals(bent, bt, by)
	return tau, sse0, sse1, res
}

// bendCandidates calls each with every bend on bestBend's grid, the
// straight line's squared error and the bent line's by the Frisch–Waugh
// update; with nothing when the straight line cannot be fitted.
func bendCandidates(bt, by []float64, h cycleForm, first, last float64, each func(tau, sse0, sse1 float64)) {
	straight, ok := fitBins(bt, by, h, 0)
	if !ok {
		return
	}
	r0, sse0 := binResiduals(straight, bt, by)
	q, ok := orthonormalColumns(bt, straight)
	if !ok {
		return
	}
	m := len(bt)
	z := make([]float64, m)
	for k := 1; k <= maxBendBins; k++ { // bounded: first + bendBin may round to first
		t := first + float64(k)*bendBin
		if !(t < last) {
			break
		}
		if t-first < minBendSegment || last-t < minBendSegment || t == 0 { // BendAt 0 is a straight line
			continue
		}
		for i, x := range bt {
			z[i] = math.Max(0, x-t) / Day
		}
		for _, c := range q { // z becomes Mz
			floats.AddScaled(z, -floats.Dot(c, z), c)
		}
		mm := floats.Dot(z, z)
		// The hinge lies in the straight design (what is left of it is
		// rounding, against a hinge of order m days² in all): no bend there.
		if !(mm > 1e-12*float64(m)) {
			continue
		}
		zr := floats.Dot(z, r0) // (Mz)ᵀr₀: r₀ is orthogonal to the design up to rounding
		each(t, sse0, math.Max(sse0-zr*zr/mm, 0))
	}
}
