package conservation

import (
	"fmt"
	"math"
	"sort"

	"github.com/storcast/storcast/forecaster/internal/check"
	"gonum.org/v1/gonum/mat"
)

// fitBandInterference refits a band's saturated windows with interference:
// a·r + b·w + c·r·w = u by least squares (linear in a, b, c), γ = c/(4ab).
// Columns are scaled by the band's largest rates so the problem is O(1);
// γ is scale-free. On failure the γ = 0 fit stands and GammaError says why.
//
// γ bends the line between the pure capacities, so it needs windows at
// three read ratios at least minGap apart: at two, the windows' scatter in
// rate along each mix keeps the columns independent in arithmetic, and the
// fit trades γ against the two capacities at will (real Ceph, saturated at
// 30% and 50% reads: γ −0.25 ± 0.002, pure reads at 1,900 IOPS for ~20,000).
func fitBandInterference(bf BandFit, p Point, sat []satWindow, minGap float64) (BandFit, Point, MixedPoint) {
	n := len(sat)
	if n < 4 {
		bf.GammaError = fmt.Sprintf("%d saturated windows; fitting γ with the two capacities needs at least 4", n)
		return bf, p, MixedPoint{}
	}
	if k := distinctReadRatios(sat, minGap); k < 3 {
		bf.GammaError = fmt.Sprintf("saturated windows at too few distinct read ratios (%.2f..%.2f: %d at least %.2f apart) to separate interference from the two capacities; need three or more", bf.ReadRatioMin, bf.ReadRatioMax, k, minGap)
		return bf, p, MixedPoint{}
	}
	var rs, ws float64
	for _, s := range sat {
		rs, ws = math.Max(rs, s.r), math.Max(ws, s.w)
	}
	if rs == 0 || ws == 0 {
		bf.GammaError = "saturated windows are all pure reads or all pure writes"
		return bf, p, MixedPoint{}
	}
	x := mat.NewDense(n, 3, nil)
	y := mat.NewVecDense(n, nil)
	for i, s := range sat {
		r, w := s.r/rs, s.w/ws
		x.SetRow(i, []float64{r, w, r * w})
		y.SetVec(i, s.u)
	}
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDNone) {
		bf.GammaError = "singular value decomposition failed"
		return bf, p, MixedPoint{}
	}
	// Three ratios apart leave rank loss to arithmetic (a degenerate
	// scaling), so this names the design, not the ratios.
	if sv := svd.Values(nil); sv[2] <= 1e-6*sv[0] {
		bf.GammaError = fmt.Sprintf("the saturated windows' design is numerically rank-deficient (smallest singular value %.1e of the largest) to separate interference from the two capacities", sv[2]/sv[0])
		return bf, p, MixedPoint{}
	}
	var coef mat.VecDense
	if err := coef.SolveVec(x, y); err != nil {
		bf.GammaError = fmt.Sprintf("least squares: %v", err)
		return bf, p, MixedPoint{}
	}
	a, b, c := coef.AtVec(0), coef.AtVec(1), coef.AtVec(2)
	if !(a > 0 && b > 0) {
		bf.GammaError = fmt.Sprintf("fit with interference is not physical (scaled 1/T_read100=%g, 1/T_write100=%g)", a, b)
		return bf, p, MixedPoint{}
	}
	g := c / (4 * a * b)
	if !check.Finite(g) || g < MinGamma {
		bf.GammaError = fmt.Sprintf("fitted γ = %.4g is below %v: the saturated windows do not follow the interference form", g, MinGamma)
		return bf, p, MixedPoint{}
	}
	var ss float64
	for _, s := range sat {
		r, w := s.r/rs, s.w/ws
		d := a*r + b*w + c*r*w - s.u
		ss += d * d
	}
	// Covariance σ²(XᵀX)⁻¹; delta method on γ = c/(4ab).
	var xtx, inv mat.Dense
	xtx.Mul(x.T(), x)
	var se float64
	if err := inv.Inverse(&xtx); err == nil && n > 3 {
		sigma2 := ss / float64(n-3)
		grad := mat.NewVecDense(3, []float64{-g / a, -g / b, 1 / (4 * a * b)})
		var t mat.VecDense
		t.MulVec(&inv, grad)
		se = math.Sqrt(math.Max(0, sigma2*mat.Dot(grad, &t)))
	}
	tr, tw := rs/a, ws/b
	bf.ReadIOPS, bf.WriteIOPS = tr, tw
	bf.RMSResidual = math.Sqrt(ss / float64(n))
	bf.GammaFitted, bf.Gamma, bf.GammaStdErr = true, g, se
	p.ReadIOPS, p.WriteIOPS = tr, tw
	p.Source = fmt.Sprintf("history with interference: %d saturated of %d windows, read ratio %.2f..%.2f, γ %.3f ± %.3f, rms utilization residual %.3f",
		bf.Saturated, bf.Windows, bf.ReadRatioMin, bf.ReadRatioMax, g, se, bf.RMSResidual)
	m50, _ := MaxAtReadRatio(tr, tw, g, 0.5)
	return bf, p, MixedPoint{IOSizeBytes: p.IOSizeBytes, ReadRatio: 0.5, IOPS: m50,
		Source: fmt.Sprintf("history: the 50%% read point of the fitted frontier (γ %.3f ± %.3f)", g, se)}
}

// distinctReadRatios counts the most read ratios among the windows that
// lie pairwise at least gap apart (greedy from the lowest, which is
// optimal on a line).
func distinctReadRatios(sat []satWindow, gap float64) int {
	rho := make([]float64, len(sat))
	for i, s := range sat {
		rho[i] = s.r / (s.r + s.w)
	}
	sort.Float64s(rho)
	k, last := 0, math.Inf(-1)
	for _, x := range rho {
		if x >= last+gap {
			k, last = k+1, x
		}
	}
	return k
}

// Bound is a lower bound on the max total IOPS at one mix, from history
// alone.
type Bound struct {
	IOSizeBytes float64 `json:"ioSizeBytes"`
	ReadRatio   float64 `json:"readRatio"`
	// IOPS: the max total IOPS at the mix is at least this (0: no bound).
	IOPS float64 `json:"iops"`
	// Window is the index of the window that gives the bound (-1: none);
	// Windows is how many windows of the size band were considered.
	Window  int `json:"window"`
	Windows int `json:"windows"`
}

// LowerBoundFromHistory bounds the max total IOPS at read ratio ρ and IO
// size ioSizeBytes from below, for a history that never saturated (where
// EstimateFromHistory has nothing to fit). A cluster that served r reads
// and w writes per second can serve any load that needs no more of either,
// so each window k of the same octave size band proves the mix can reach
//
//	t_k = min(r_k/ρ, w_k/(1−ρ))
//
// (r_k alone at ρ = 1, w_k at ρ = 0), and the bound is the largest t_k. It
// assumes nothing about the frontier's shape, so it holds with interference
// of either sign; it is tight only when history contains a window near the
// frontier at this mix. The reason says where the bound comes from, or why
// there is none (IOPS 0). Bad arguments are an error.
func LowerBoundFromHistory(windows []Window, ioSizeBytes, readRatio float64) (Bound, string, error) {
	if err := checkPositive("ioSizeBytes", ioSizeBytes); err != nil {
		return Bound{}, "", err
	}
	if !check.Finite(readRatio) || readRatio < 0 || readRatio > 1 {
		return Bound{}, "", inputError("readRatio", "must be in 0..1, got %v", readRatio)
	}
	if len(windows) == 0 {
		return Bound{}, "", inputError("windows", "empty")
	}
	band := math.Round(math.Log2(ioSizeBytes))
	b := Bound{IOSizeBytes: ioSizeBytes, ReadRatio: readRatio, Window: -1}
	for i, w := range windows {
		name := fmt.Sprintf("windows[%d]", i)
		if err := checkPositive(name+".ioSizeBytes", w.IOSizeBytes); err != nil {
			return Bound{}, "", err
		}
		if err := checkNonNegative(name+".readIops", w.ReadIOPS); err != nil {
			return Bound{}, "", err
		}
		if err := checkNonNegative(name+".writeIops", w.WriteIOPS); err != nil {
			return Bound{}, "", err
		}
		if math.Round(math.Log2(w.IOSizeBytes)) != band {
			continue
		}
		b.Windows++
		var t float64
		switch readRatio {
		case 1:
			t = w.ReadIOPS
		case 0:
			t = w.WriteIOPS
		default:
			t = math.Min(w.ReadIOPS/readRatio, w.WriteIOPS/(1-readRatio))
		}
		if t > b.IOPS {
			b.IOPS, b.Window = t, i
		}
	}
	mix := fmt.Sprintf("%.0f%% reads at %.0f bytes", 100*readRatio, ioSizeBytes)
	if b.Windows == 0 {
		return b, fmt.Sprintf("no bound: no window in the size band of %.0f bytes (sizes %.0f..%.0f)", ioSizeBytes,
			math.Exp2(band-0.5), math.Exp2(band+0.5)), nil
	}
	if b.IOPS == 0 {
		return b, fmt.Sprintf("no bound: none of the %d windows in the size band served load at %s", b.Windows, mix), nil
	}
	w := windows[b.Window]
	return b, fmt.Sprintf("history never saturated at this mix: max IOPS at %s is at least %.0f, covered by window %d (%.0f reads/s + %.0f writes/s) of %d in the size band",
		mix, b.IOPS, b.Window, w.ReadIOPS, w.WriteIOPS, b.Windows), nil
}

// BoundWindows is the part of windows LowerBoundFromHistory needs at any
// read ratio and size: per octave size band, the windows no other window of
// the band outserves in both reads and writes (a dominated window's t_k is
// never the largest), in the order given. Kept with a bound, it recomputes
// the bound at the mix observed later without the whole history; invalid
// windows are left out (LowerBoundFromHistory refuses them).
func BoundWindows(windows []Window) []Window {
	type keyed struct {
		band float64
		i    int
	}
	var idx []keyed
	for i, w := range windows {
		if w.IOSizeBytes > 0 && check.Finite(w.IOSizeBytes) && w.ReadIOPS >= 0 && w.WriteIOPS >= 0 && check.Finite(w.ReadIOPS) && check.Finite(w.WriteIOPS) {
			idx = append(idx, keyed{math.Round(math.Log2(w.IOSizeBytes)), i})
		}
	}
	// By band, then reads descending, then writes descending: a window is
	// kept when it serves more writes than every one before it in its band.
	sort.SliceStable(idx, func(a, b int) bool {
		wa, wb := windows[idx[a].i], windows[idx[b].i]
		switch {
		case idx[a].band != idx[b].band:
			return idx[a].band < idx[b].band
		case wa.ReadIOPS != wb.ReadIOPS:
			return wa.ReadIOPS > wb.ReadIOPS
		}
		return wa.WriteIOPS > wb.WriteIOPS
	})
	keep := make([]bool, len(windows))
	for k := 0; k < len(idx); {
		band, best := idx[k].band, -1.0
		for ; k < len(idx) && idx[k].band == band; k++ {
			if w := windows[idx[k].i]; w.WriteIOPS > best {
				keep[idx[k].i], best = true, w.WriteIOPS
			}
		}
	}
	var out []Window
	for i, w := range windows {
		if keep[i] {
			out = append(out, w)
		}
	}
	return out
}

// InterferenceFromHistory fits the read/write interference γ per size band
// from saturated history windows, keeping the capacities of a benchmark
// calibration cal (the path when fio measured the pure points but no
// mixes). With T_read100 and T_write100 known at the band's size, each
// saturated window k gives a_k = r_k/T_read100, b_k = w_k/T_write100 and
// U_k = a_k + b_k + γ·4a_k b_k = u_k, linear in γ:
//
//	γ = Σ p_k (u_k − a_k − b_k) / Σ p_k²,   p_k = 4 a_k b_k,
//
// standard error √(Σ res²/(n−1) / Σ p²). Windows of one direction only
// (p_k = 0) carry no information on γ; a band needs MinSaturated mixed
// saturated windows at two or more read ratios at least MinReadRatioSpread
// apart (one mix would fit γ, but could not show that the form holds). It
// returns cal with one mixed point per fitted band (at 50% reads, on the
// fitted frontier, so that NewModel reproduces γ), and the per-band report.
// Bands at a size where cal already has mixed points are left to them.
func InterferenceFromHistory(cal Calibration, windows []Window, opts EstimateOptions) (Calibration, Quality, error) {
	if err := cal.Validate(); err != nil {
		return Calibration{}, Quality{}, err
	}
	pure, err := NewPaperModel(cal)
	if err != nil {
		return Calibration{}, Quality{}, err
	}
	o := opts.withDefaults()
	keys, bands, err := sizeBands(windows)
	if err != nil {
		return Calibration{}, Quality{}, err
	}
	out := cal
	out.Mixed = append([]MixedPoint(nil), cal.Mixed...)
	q := Quality{Windows: len(windows)}
	for _, k := range keys {
		bf, sat := selectSaturated(bands[k], o)
		q.Saturated += bf.Saturated
		sc, err := pure.At(bf.IOSizeBytes)
		if err != nil {
			bf.GammaError = err.Error()
			q.Bands = append(q.Bands, bf)
			continue
		}
		bf.ReadIOPS, bf.WriteIOPS = sc.ReadIOPS, sc.WriteIOPS
		for _, p := range cal.Mixed {
			if p.mixedSize() {
				continue // η's point (reads and writes of two sizes), not γ's
			}
			if math.Round(math.Log2(p.IOSizeBytes)) == float64(k) {
				bf.GammaError = fmt.Sprintf("the calibration has mixed points at %g bytes; they fix γ here", p.IOSizeBytes)
			}
		}
		if bf.GammaError != "" {
			q.Bands = append(q.Bands, bf)
			continue
		}
		var spp, spe float64
		var n int
		lo, hi := 1.0, 0.0
		for _, w := range sat {
			a, b := w.r/sc.ReadIOPS, w.w/sc.WriteIOPS
			p := 4 * a * b
			if p == 0 {
				continue
			}
			n++
			rho := w.r / (w.r + w.w)
			lo, hi = math.Min(lo, rho), math.Max(hi, rho)
			spp += p * p
			spe += p * (w.u - a - b)
		}
		switch {
		case n < o.MinSaturated:
			bf.GammaError = fmt.Sprintf("%d saturated windows with both reads and writes, need %d", n, o.MinSaturated)
		case hi-lo < o.MinReadRatioSpread:
			bf.GammaError = fmt.Sprintf("saturated mixed windows span read ratios %.2f..%.2f; need >= 2 mixes at least %.2f apart", lo, hi, o.MinReadRatioSpread)
		}
		if bf.GammaError != "" {
			q.Bands = append(q.Bands, bf)
			continue
		}
		g := spe / spp
		var ss float64
		for _, w := range sat {
			a, b := w.r/sc.ReadIOPS, w.w/sc.WriteIOPS
			if a*b == 0 {
				continue
			}
			d := a + b + 4*g*a*b - w.u
			ss += d * d
		}
		bf.RMSResidual = math.Sqrt(ss / float64(n))
		se := math.Sqrt(ss / float64(n-1) / spp)
		if !check.Finite(g) || g < MinGamma {
			bf.GammaError = fmt.Sprintf("fitted γ = %.4g is below %v: the saturated windows lie far outside the calibration's two-point line; check the calibration", g, MinGamma)
			q.Bands = append(q.Bands, bf)
			continue
		}
		m50, err := MaxAtReadRatio(sc.ReadIOPS, sc.WriteIOPS, g, 0.5)
		if err != nil {
			bf.GammaError = err.Error()
			q.Bands = append(q.Bands, bf)
			continue
		}
		bf.GammaFitted, bf.Gamma, bf.GammaStdErr = true, g, se
		q.Bands = append(q.Bands, bf)
		out.Mixed = append(out.Mixed, MixedPoint{IOSizeBytes: bf.IOSizeBytes, ReadRatio: 0.5, IOPS: m50,
			Source: fmt.Sprintf("history on the benchmark's capacities: %d saturated mixed windows, read ratio %.2f..%.2f, γ %.3f ± %.3f, rms utilization residual %.3f",
				n, lo, hi, g, se, bf.RMSResidual)})
	}
	if _, err := NewModel(out); err != nil {
		return Calibration{}, q, err
	}
	return out, q, nil
}
