package trend

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// ErrInput is wrapped by every error that reports bad input; inputError
// returns one that names the argument.
var inputError, ErrInput = check.Input()

func finite(x float64) bool { return check.Finite(x) }

// Options tunes Fit. Zero values take the defaults.
type Options struct {
	// SeasonSeconds > 0 fits a seasonal profile with this period.
	SeasonSeconds float64 `json:"seasonSeconds"`
	// SeasonBins: phase bins of the profile. Default 24.
	SeasonBins int `json:"seasonBins"`
	// Level: coverage of the prediction band, in (0, 1). Default 0.95.
	Level float64 `json:"level"`
	// MaxPairs bounds the pairwise slopes of Theil–Sen. Default 200000.
	MaxPairs int `json:"maxPairs"`
}

// Trend is a fitted demand trend.
type Trend struct {
	TMean         float64   `json:"tMean"`     // t̄, Unix seconds
	Intercept     float64   `json:"intercept"` // a: trend value at t̄ (without season)
	Slope         float64   `json:"slope"`     // b, per second
	ResidualStd   float64   `json:"residualStd"`
	N             int       `json:"n"`
	Stt           float64   `json:"stt"` // Σ (t_i − t̄)²
	FirstT        float64   `json:"firstT"`
	LastT         float64   `json:"lastT"`
	Z             float64   `json:"z"`         // band half-width in residual std units
	BandLevel     float64   `json:"bandLevel"` // e.g. 0.95
	SeasonSeconds float64   `json:"seasonSeconds,omitempty"`
	Season        []float64 `json:"season,omitempty"` // per phase bin
}

// Fit fits the trend of values observed at times (Unix seconds, need not be
// sorted). It needs at least 3 points spanning a positive time range, all
// finite; with a season, at least two full periods of data.
func Fit(times, values []float64, opts Options) (*Trend, error) {
	if len(times) != len(values) {
		return nil, inputError("values", "length %d does not match %d times", len(values), len(times))
	}
	if len(times) < 3 {
		return nil, inputError("times", "%d points, need at least 3", len(times))
	}
	for i := range times {
		if !finite(times[i]) {
			return nil, inputError("times", "element %d is %v", i, times[i])
		}
		if !finite(values[i]) {
			return nil, inputError("values", "element %d is %v", i, values[i])
		}
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	if !(opts.Level > 0 && opts.Level < 1) {
		return nil, inputError("opts.Level", "must be in (0, 1), got %v", opts.Level)
	}
	if opts.MaxPairs <= 0 {
		opts.MaxPairs = 200000
	}
	if !finite(opts.SeasonSeconds) || opts.SeasonSeconds < 0 {
		return nil, inputError("opts.SeasonSeconds", "must be >= 0, got %v", opts.SeasonSeconds)
	}
	n := len(times)
	tr := &Trend{N: n, FirstT: times[0], LastT: times[0], BandLevel: opts.Level}
	for _, t := range times {
		tr.TMean += t
		tr.FirstT = math.Min(tr.FirstT, t)
		tr.LastT = math.Max(tr.LastT, t)
	}
	tr.TMean /= float64(n)
	for _, t := range times {
		tr.Stt += (t - tr.TMean) * (t - tr.TMean)
	}
	if tr.LastT == tr.FirstT || tr.Stt == 0 {
		return nil, inputError("times", "all equal; a trend needs a time range")
	}
	dt := make([]float64, n)
	for i, t := range times {
		dt[i] = t - tr.TMean
	}
	bins := 0
	if opts.SeasonSeconds > 0 {
		bins = opts.SeasonBins
		if bins <= 0 {
			bins = 24
		}
		if tr.LastT-tr.FirstT < 2*opts.SeasonSeconds {
			return nil, inputError("times", "span %.0f s is shorter than two seasons of %.0f s", tr.LastT-tr.FirstT, opts.SeasonSeconds)
		}
		tr.SeasonSeconds = opts.SeasonSeconds
	}
	if n-2-bins < 1 {
		return nil, inputError("times", "%d points are too few for a line and %d season bins", n, bins)
	}
	if bins > 0 {
		tr.Season = make([]float64, bins)
	}
	y := slices.Clone(values)
	rng := rand.New(rand.NewPCG(0x5eed, uint64(n)))
	rounds := 1
	if bins > 0 {
		rounds = 3
	}
	resid := make([]float64, n)
	for round := 0; round < rounds; round++ {
		// y holds values minus the current season.
		tr.Slope = theilSenSlope(dt, y, opts.MaxPairs, rng)
		for i := range resid {
			resid[i] = y[i] - tr.Slope*dt[i]
		}
		tr.Intercept = median(slices.Clone(resid))
		if bins == 0 {
			break
		}
		// Season: per-bin mean of values minus the line.
		sum := make([]float64, bins)
		cnt := make([]int, bins)
		for i, t := range times {
			b := tr.bin(t)
			sum[b] += values[i] - tr.Intercept - tr.Slope*dt[i]
			cnt[b]++
		}
		var mean float64
		var filled int
		for b := range sum {
			if cnt[b] > 0 {
				tr.Season[b] = sum[b] / float64(cnt[b])
				mean += tr.Season[b]
				filled++
			}
		}
		// Centre the profile so the line carries the level.
		for b := range tr.Season {
			if cnt[b] > 0 {
				tr.Season[b] -= mean / float64(filled)
			}
		}
		for i, t := range times {
			y[i] = values[i] - tr.Season[tr.bin(t)]
		}
	}
	var ss float64
	for i, t := range times {
		r := values[i] - tr.mean(t)
		ss += r * r
	}
	tr.ResidualStd = math.Sqrt(ss / float64(n-2-bins))
	tr.Z = math.Sqrt2 * math.Erfinv(opts.Level)
	return tr, nil
}

// theilSenSlope is the median pairwise slope; pairs with equal times are
// skipped. Above maxPairs, pairs are sampled (fixed seed: deterministic).
func theilSenSlope(t, y []float64, maxPairs int, rng *rand.Rand) float64 {
	n := len(t)
	total := n * (n - 1) / 2
	var slopes []float64
	if total <= maxPairs {
		slopes = make([]float64, 0, total)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if d := t[j] - t[i]; d != 0 {
					slopes = append(slopes, (y[j]-y[i])/d)
				}
			}
		}
	} else {
		// Draws are bounded: with nearly all times equal, few pairs count.
		slopes = make([]float64, 0, maxPairs)
		for draws := 0; len(slopes) < maxPairs && draws < 20*maxPairs; draws++ {
			i, j := rng.IntN(n), rng.IntN(n)
			if d := t[j] - t[i]; d != 0 {
				slopes = append(slopes, (y[j]-y[i])/d)
			}
		}
	}
	if len(slopes) == 0 {
		return 0
	}
	return median(slopes)
}

// median reorders v in place (quickselect, expected O(n)).
func median(v []float64) float64 {
	m := len(v) / 2
	hi := nthElement(v, m)
	if len(v)%2 == 1 {
		return hi
	}
	// The lower middle is the largest of v[:m] after selection.
	return (slices.Max(v[:m]) + hi) / 2
}

// nthElement partially sorts v so that v[k] is the k-th smallest, with
// smaller-or-equal values before it, and returns v[k].
func nthElement(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		// Median of three as pivot.
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

func (tr *Trend) bin(t float64) int {
	if len(tr.Season) == 0 {
		return 0
	}
	ph := math.Mod(t, tr.SeasonSeconds)
	if ph < 0 {
		ph += tr.SeasonSeconds
	}
	b := int(ph / tr.SeasonSeconds * float64(len(tr.Season)))
	return min(b, len(tr.Season)-1)
}

func (tr *Trend) seasonAt(t float64) float64 {
	if len(tr.Season) == 0 {
		return 0
	}
	return tr.Season[tr.bin(t)]
}

func (tr *Trend) mean(t float64) float64 {
	return tr.Intercept + tr.Slope*(t-tr.TMean) + tr.seasonAt(t)
}

func (tr *Trend) halfWidth(t float64) float64 {
	d := t - tr.TMean
	return tr.Z * tr.ResidualStd * math.Sqrt(1+1/float64(tr.N)+d*d/tr.Stt)
}

// At returns the forecast at time t (Unix seconds) with its band.
func (tr *Trend) At(t float64) (mean, lower, upper float64) {
	m, h := tr.mean(t), tr.halfWidth(t)
	return m, m - h, m + h
}

// Forecast returns the mean and band at each time.
func (tr *Trend) Forecast(times []float64) (mean, lower, upper []float64) {
	mean = make([]float64, len(times))
	lower = make([]float64, len(times))
	upper = make([]float64, len(times))
	for i, t := range times {
		mean[i], lower[i], upper[i] = tr.At(t)
	}
	return mean, lower, upper
}

// ETA is the time until demand reaches a limit.
type ETA struct {
	MeanSeconds  float64 // until the mean forecast reaches the limit; +Inf: never
	UpperSeconds float64 // until the upper band does (early warning); +Inf: never
}

type etaJSON struct {
	MeanSeconds  *float64 `json:"meanSeconds"`
	UpperSeconds *float64 `json:"upperSeconds"`
}

func infToNil(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

func nilToInf(p *float64) float64 {
	if p == nil {
		return math.Inf(1)
	}
	return *p
}

// UnmarshalJSON decodes a trend saved by encoding/json and refuses one Fit
// cannot have made (a damaged file, another version's): every figure
// finite, at least 3 points, a non-negative spread and band, the first
// point not after the last, and a period > 0 wherever there is a profile
// (the phase of a time is taken modulo it: at 0 or below, the search for
// the next daily peak would never end).
func (tr *Trend) UnmarshalJSON(b []byte) error {
	type plain Trend
	var t plain
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	for name, v := range map[string]float64{"tMean": t.TMean, "intercept": t.Intercept, "slope": t.Slope, "residualStd": t.ResidualStd,
		"stt": t.Stt, "firstT": t.FirstT, "lastT": t.LastT, "z": t.Z, "bandLevel": t.BandLevel, "seasonSeconds": t.SeasonSeconds} {
		if !finite(v) {
			return inputError("trend", "%s is %v, want a finite number", name, v)
		}
	}
	for i, v := range t.Season {
		if !finite(v) {
			return inputError("trend", "season[%d] is %v, want a finite number", i, v)
		}
	}
	switch {
	case t.N < 3:
		return inputError("trend", "n is %d, a trend is fitted to at least 3 points", t.N)
	case t.ResidualStd < 0 || t.Stt < 0 || t.Z < 0:
		return inputError("trend", "residualStd %v, stt %v and z %v must be >= 0", t.ResidualStd, t.Stt, t.Z)
	case t.FirstT > t.LastT:
		return inputError("trend", "firstT %v is after lastT %v", t.FirstT, t.LastT)
	case len(t.Season) > 0 && !(t.SeasonSeconds > 0):
		return inputError("trend", "a season of %d bins with seasonSeconds %v, want > 0", len(t.Season), t.SeasonSeconds)
	}
	*tr = Trend(t)
	return nil
}

// MarshalJSON encodes +Inf ("never") as null.
func (e ETA) MarshalJSON() ([]byte, error) {
	return json.Marshal(etaJSON{infToNil(e.MeanSeconds), infToNil(e.UpperSeconds)})
}

// UnmarshalJSON decodes null as +Inf.
func (e *ETA) UnmarshalJSON(b []byte) error {
	var j etaJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	e.MeanSeconds, e.UpperSeconds = nilToInf(j.MeanSeconds), nilToInf(j.UpperSeconds)
	return nil
}

// ETA returns the seconds from now until the mean and the upper band reach
// limit (see the package doc). It is +Inf for both when the inputs are not
// finite.
func (tr *Trend) ETA(limit, now float64) ETA {
	inf := ETA{math.Inf(1), math.Inf(1)}
	if !finite(limit) || !finite(now) {
		return inf
	}
	if !(tr.Slope > 0) {
		return tr.etaNotGrowing(limit, now)
	}
	nb := max(len(tr.Season), 1)
	meanAt, upperAt := math.Inf(1), math.Inf(1)
	start := math.Max(now, tr.TMean) // the band is monotone after t̄
	for b := 0; b < nb; b++ {
		s := 0.0
		if len(tr.Season) > 0 {
			s = tr.Season[b]
		}
		// The trend plus this bin's offset crosses the limit at tm.
		tm := tr.TMean + (limit-tr.Intercept-s)/tr.Slope
		meanAt = math.Min(meanAt, tr.firstInBin(math.Max(tm, now), b))
		// Upper band: g(t) = line + s + halfWidth(t) is increasing on
		// [start, ∞) and reaches the limit no later than tm.
		g := func(t float64) float64 { return tr.Intercept + tr.Slope*(t-tr.TMean) + s + tr.halfWidth(t) }
		var tu float64
		switch {
		case now < start && tr.Intercept+tr.Slope*(now-tr.TMean)+s+tr.halfWidth(now) >= limit:
			tu = now
		case g(start) >= limit:
			tu = start
		default:
			lo, hi := start, math.Max(tm, start)
			for g(hi) < limit { // halfWidth > 0 makes g(tm) >= limit; guard rounding
				hi += math.Max(hi-lo, 1)
			}
			for k := 0; k < 200 && hi-lo > 1e-3; k++ { // to the millisecond
				mid := (lo + hi) / 2
				if g(mid) >= limit {
					hi = mid
				} else {
					lo = mid
				}
			}
			tu = hi
		}
		upperAt = math.Min(upperAt, tr.firstInBin(tu, b))
	}
	upperAt = math.Min(upperAt, meanAt)
	return ETA{MeanSeconds: math.Max(meanAt-now, 0), UpperSeconds: math.Max(upperAt-now, 0)}
}

// etaNotGrowing is ETA for a flat or falling trend: the limit is reached
// only where the trend already is at it, now or at a daily peak within the
// coming period; later the line only falls. The band is taken at the same
// times: its widening far from the data is not growth.
func (tr *Trend) etaNotGrowing(limit, now float64) ETA {
	meanAt, upperAt := math.Inf(1), math.Inf(1)
	for b := 0; b < max(len(tr.Season), 1); b++ {
		t := tr.firstInBin(now, b)
		mean, _, upper := tr.At(t)
		if mean >= limit {
			meanAt = math.Min(meanAt, t)
		}
		if upper >= limit {
			upperAt = math.Min(upperAt, t)
		}
	}
	return ETA{MeanSeconds: meanAt - now, UpperSeconds: upperAt - now}
}

// firstInBin returns the first time >= t whose phase lies in season bin b.
func (tr *Trend) firstInBin(t float64, b int) float64 {
	if len(tr.Season) == 0 || math.IsInf(t, 0) {
		return t
	}
	if tr.bin(t) == b {
		return t
	}
	P := tr.SeasonSeconds
	ph := math.Mod(t, P)
	if ph < 0 {
		ph += P
	}
	next := t - ph + float64(b)*P/float64(len(tr.Season))
	// A bin's start rounds to its own bin or the one before within a few
	// ulps; the bound only keeps a trend built by hand with a period of 0
	// or less (Fit and UnmarshalJSON refuse one) from looping forever.
	for i := 0; (next < t || tr.bin(next) != b) && i < 1000; i++ {
		if next < t {
			next += P
		} else {
			next = math.Nextafter(next, math.Inf(1))
		}
	}
	return next
}
