package mlisp

import (
	"math"
	"slices"

	"github.com/storcast/storcast/forecaster/regress"
)

// checkLoadLatency validates the (IOPS, latency) pairs the baselines fit.
func checkLoadLatency(iops, latency []float64, minN int) error {
	if err := regress.CheckVector("iops", iops); err != nil {
		return err
	}
	if err := regress.CheckVector("latency", latency); err != nil {
		return err
	}
	if len(iops) != len(latency) {
		return inputError("latency", "length %d does not match %d IOPS values", len(latency), len(iops))
	}
	if len(iops) < minN {
		return inputError("iops", "%d samples, need at least %d", len(iops), minN)
	}
	lo, hi := latency[0], latency[0]
	for i := range iops {
		if iops[i] < 0 {
			return inputError("iops", "element %d is negative (%v)", i, iops[i])
		}
		if latency[i] <= 0 {
			return inputError("latency", "element %d is %v; latency must be positive", i, latency[i])
		}
		lo, hi = math.Min(lo, latency[i]), math.Max(hi, latency[i])
	}
	if lo == hi {
		return inputError("latency", "constant (%v); there is no trend to extrapolate", lo)
	}
	return nil
}

// LinearOIO is the BASIL-style baseline (Gulati et al., FAST 2010): latency
// is linear in the number of outstanding IOs,
//
//	L = A·OIO + B,   OIO = IOPS·L (Little's law),
//
// fitted by ordinary least squares on the observed windows. To extrapolate to
// an IOPS λ where OIO is not observed, the two equations are solved together:
// L = A·λ·L + B gives
//
//	L(λ) = B / (1 − A·λ),
//
// which is +Inf at and beyond the implied saturation λ = 1/A (A > 0). The
// paper instead fed BASIL the OIO measured in the extrapolated region, which
// is not an extrapolation; this self-consistent form is.
type LinearOIO struct {
	A float64 `json:"a"` // latency per outstanding IO, 1/IOPS
	B float64 `json:"b"` // latency at zero OIO
}

// FitLinearOIO fits the BASIL-style line to observed (IOPS, latency) pairs.
// It needs at least 3 pairs, IOPS ≥ 0, latency > 0 and not constant, OIO
// that is not constant, and a line whose latency at no OIO is positive.
func FitLinearOIO(iops, latency []float64) (*LinearOIO, error) {
	if err := checkLoadLatency(iops, latency, 3); err != nil {
		return nil, err
	}
	n := float64(len(iops))
	var mo, ml float64
	for i := range iops {
		mo += iops[i] * latency[i]
		ml += latency[i]
	}
	mo /= n
	ml /= n
	var sxx, sxy float64
	for i := range iops {
		d := iops[i]*latency[i] - mo
		sxx += d * d
		sxy += d * (latency[i] - ml)
	}
	if sxx <= 1e-300 || math.IsNaN(sxx) {
		return nil, inputError("iops", "outstanding IO (IOPS·latency) is constant; cannot fit latency against it")
	}
	a := sxy / sxx
	m := &LinearOIO{A: a, B: ml - a*mo}
	if math.IsNaN(m.A) || math.IsInf(m.A, 0) || math.IsNaN(m.B) || math.IsInf(m.B, 0) {
		return nil, inputError("latency", "the line fit is not finite (IOPS·latency overflows)")
	}
	// B is the latency at no load: at or below 0, B/(1 − Aλ) would predict
	// a negative latency below 1/A and +Inf at loads observed.
	if !(m.B > 0) {
		return nil, inputError("latency", "the line's latency at no outstanding IO is %v s, not positive: the pairs do not follow the line", m.B)
	}
	return m, nil
}

// Latency returns L(λ) = B / (1 − A·λ), or +Inf when A·λ ≥ 1.
func (m *LinearOIO) Latency(iops float64) float64 {
	den := 1 - m.A*iops
	if den <= 0 {
		return math.Inf(1)
	}
	return m.B / den
}

// Queueing is the single-queue baseline
//
//	L(λ) = L0 / (1 − λ/Mu),
//
// the M/M/1 response time with service time L0 and service rate Mu.
type Queueing struct {
	L0 float64 `json:"l0"`
	Mu float64 `json:"mu"` // IOPS at which latency diverges; > max observed IOPS
}

// FitQueueing fits L0 and Mu by least squares on latency,
// min Σ (L_i − L0/(1 − λ_i/Mu))². For a fixed u = 1/Mu the model is linear
// in L0 (L0 = Σ L g / Σ g², g_i = 1/(1 − u λ_i)), so the fit is a 1-D search
// over ρ = u·λmax ∈ [0, 1): a grid of 200 values refined by golden-section
// search around the best one. Mu therefore always exceeds the largest observed
// IOPS (ρ ≤ 1 − 1e-6); data with no rise give ρ → 0 (Mu very large). Needs at
// least 3 pairs, IOPS ≥ 0 with a positive maximum, latency > 0 and not
// constant.
func FitQueueing(iops, latency []float64) (*Queueing, error) {
	if err := checkLoadLatency(iops, latency, 3); err != nil {
		return nil, err
	}
	var lmax float64
	for _, v := range iops {
		lmax = math.Max(lmax, v)
	}
	if lmax <= 0 {
		return nil, inputError("iops", "all zero; the service rate cannot be estimated")
	}
	// sse(ρ) with L0 profiled out; loads are taken relative to lmax and
	// latencies to their maximum so that no intermediate overflows whatever
	// the units (latencies of 1e160 made every sum Inf − Inf: every ρ NaN,
	// and the search kept the first), L0 scaled back.
	var ymax float64
	for _, v := range latency {
		ymax = math.Max(ymax, v)
	}
	sse := func(rho float64) (float64, float64) {
		var sgy, sgg, syy float64
		for i, lam := range iops {
			g := 1 / (1 - rho*(lam/lmax))
			y := latency[i] / ymax
			sgy += g * y
			sgg += g * g
			syy += y * y
		}
		l0 := sgy / sgg
		return syy - sgy*l0, l0 * ymax
	}
	const rhoMax = 1 - 1e-6
	grid := make([]float64, 0, 210)
	for k := 0; k < 200; k++ {
		grid = append(grid, rhoMax*float64(k)/200)
	}
	for e := 2.0; e <= 6; e++ { // resolve the region close to saturation
		grid = append(grid, 1-math.Pow(10, -e))
	}
	// In order: the golden-section bracket is the best point's neighbours.
	slices.Sort(grid)
	best, bestSSE := 0, math.Inf(1)
	for k, r := range grid {
		if s, _ := sse(r); s < bestSSE {
			best, bestSSE = k, s
		}
	}
	if math.IsInf(bestSSE, 1) { // every ρ gave NaN or +Inf: nothing to pick
		return nil, inputError("latency", "the queueing fit is not finite at any load (IOPS or latency values too close to 0 or too large)")
	}
	lo := grid[max(best-1, 0)]
	hi := grid[min(best+1, len(grid)-1)]
	// Golden-section search on [lo, hi].
	const phi = 0.6180339887498949
	a, b := lo, hi
	c, d := b-phi*(b-a), a+phi*(b-a)
	fc, _ := sse(c)
	fd, _ := sse(d)
	for k := 0; k < 100 && b-a > 1e-12; k++ {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - phi*(b-a)
			fc, _ = sse(c)
		} else {
			a, c, fc = c, d, fd
			d = a + phi*(b-a)
			fd, _ = sse(d)
		}
	}
	rho := (a + b) / 2
	if s, _ := sse(rho); s > bestSSE {
		rho = grid[best]
	}
	rho = math.Max(rho, 1e-12)
	_, l0 := sse(rho)
	q := &Queueing{L0: l0, Mu: lmax / rho}
	if math.IsNaN(l0) || math.IsInf(l0, 0) || math.IsInf(q.Mu, 0) || !(q.Mu > lmax) {
		return nil, inputError("latency", "the queueing fit is not finite (IOPS or latency values too close to 0 or too large)")
	}
	return q, nil
}

// Latency returns L0/(1 − λ/Mu), or +Inf when λ ≥ Mu.
func (q *Queueing) Latency(iops float64) float64 {
	den := 1 - iops/q.Mu
	if den <= 0 {
		return math.Inf(1)
	}
	return q.L0 / den
}
