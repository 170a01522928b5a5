package mlisp

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/storcast/storcast/forecaster/kriging"
	"github.com/storcast/storcast/forecaster/regress"
	"gonum.org/v1/gonum/mat"
)

// Point is one point of a latency curve: the mean prediction and its 95%
// band at an IOPS value. On extrapolated points Lower and Upper are the
// calibrated band (see Calibration) and RawLower and RawUpper the paper's
// Kriging band, mean ± 2√var; on observed bins both pairs are the interval
// of the bin's mean.
type Point struct {
	IOPS     float64 `json:"iops"`
	Lower    float64 `json:"lower"`
	Mean     float64 `json:"mean"`
	Upper    float64 `json:"upper"`
	RawLower float64 `json:"raw_lower"`
	RawUpper float64 `json:"raw_upper"`
}

// Curve is the latency-versus-IOPS curve of a model.
type Curve struct {
	// Observed summarizes the working set below X in up to 10 IOPS bins:
	// the bin's mean IOPS, mean latency and the 95% interval of that mean
	// (±2 standard errors).
	Observed []Point `json:"observed"`
	// Points are the Steps+1 extrapolated points from X to the horizon, each
	// with the Kriging band (Lower is clamped at 0).
	Points []Point `json:"points"`
	// Synthetic holds the synthetic sample of each point: the values of the
	// signature counters, in Model.Signature order.
	Synthetic [][]float64 `json:"synthetic"`
	// Fallbacks counts Kriging steps that fell back to the mean of their
	// training values with no band, because Kriging refused them (constant
	// values, a single distinct point, a non-finite drift).
	Fallbacks int `json:"fallbacks"`
}

// Bound selects a curve of the band.
type Bound int

const (
	// Lower and Upper are the calibrated band (what Storcast reports).
	Lower Bound = iota
	Mean
	Upper
	// RawLower and RawUpper are the paper's uncalibrated Kriging band.
	RawLower
	RawUpper
)

func (b Bound) of(p Point) float64 {
	switch b {
	case Lower:
		return p.Lower
	case Upper:
		return p.Upper
	case RawLower:
		return p.RawLower
	case RawUpper:
		return p.RawUpper
	}
	return p.Mean
}

// all returns the observed bins followed by the extrapolated points.
func (c *Curve) all() []Point {
	out := make([]Point, 0, len(c.Observed)+len(c.Points))
	out = append(out, c.Observed...)
	return append(out, c.Points...)
}

// At returns the curve at iops by linear interpolation between neighbouring
// points (observed bins and extrapolated points); ok is false outside
// [first, last] IOPS of the curve.
func (c *Curve) At(iops float64) (Point, bool) {
	pts := c.all()
	if len(pts) == 0 || math.IsNaN(iops) || iops < pts[0].IOPS || iops > pts[len(pts)-1].IOPS {
		return Point{}, false
	}
	k := sort.Search(len(pts), func(i int) bool { return pts[i].IOPS >= iops })
	if pts[k].IOPS == iops || k == 0 {
		return pts[k], true
	}
	a, b := pts[k-1], pts[k]
	t := (iops - a.IOPS) / (b.IOPS - a.IOPS)
	lerp := func(x, y float64) float64 { return x + t*(y-x) }
	return Point{IOPS: iops, Lower: lerp(a.Lower, b.Lower), Mean: lerp(a.Mean, b.Mean), Upper: lerp(a.Upper, b.Upper),
		RawLower: lerp(a.RawLower, b.RawLower), RawUpper: lerp(a.RawUpper, b.RawUpper)}, true
}

// SLOCrossing returns the lowest IOPS at which bound b of the curve reaches
// slo, interpolating linearly between points; ok is false when it never
// does. If the curve starts at or above slo, the first IOPS is returned.
// Storcast reports the Upper crossing as the knee against an SLO: the paper
// observed that the measured latency almost always stays below the upper band.
func (c *Curve) SLOCrossing(slo float64, b Bound) (iops float64, ok bool) {
	pts := c.all()
	for k, p := range pts {
		v := b.of(p)
		if v < slo {
			continue
		}
		if k == 0 {
			return p.IOPS, true
		}
		q := pts[k-1]
		u := b.of(q)
		return q.IOPS + (slo-u)/(v-u)*(p.IOPS-q.IOPS), true
	}
	return 0, false
}

// Knee returns the geometric knee of the mean curve (observed bins and
// extrapolated points together), by the Kneedle rule (Satopää et al., 2011):
// with both axes normalized to [0, 1] between the first and last point, the
// knee is the point farthest above the line y = x in (x − y), i.e. farthest
// below the chord. ok is false for fewer than 3 points, a curve that does not
// rise, or one with no point below its chord (not convex anywhere).
func (c *Curve) Knee() (Point, bool) {
	pts := c.all()
	if len(pts) < 3 {
		return Point{}, false
	}
	x0, x1 := pts[0].IOPS, pts[len(pts)-1].IOPS
	y0, y1 := pts[0].Mean, pts[len(pts)-1].Mean
	if !(x1 > x0) || !(y1 > y0) {
		return Point{}, false
	}
	best, bestD := -1, 0.0
	for k, p := range pts {
		d := (p.IOPS-x0)/(x1-x0) - (p.Mean-y0)/(y1-y0)
		if d > bestD {
			best, bestD = k, d
		}
	}
	if best < 0 {
		return Point{}, false
	}
	return pts[best], true
}

// Extrapolate runs Algorithm 1 of the paper from X = MaxIOPS to toIOPS in
// Options.Steps equal steps (Steps+1 points, X included).
//
// The walk starts from a seed sample: the mean signature vector of the
// working-set samples in the top 5% of IOPS (at least 3). At each step z with
// load iops_z, for every signature counter i (in signature order, IOPS and
// latency excluded):
//
//	query  = (iops_z, the other counters of sample z−1)
//	leaf   = the leaf of counter i's CART that query falls in (Algorithm 2)
//	train  = that leaf's working-set samples + all synthetic samples so far
//	C_iz   = non-negative Kriging of counter i from train, at query
//
// then latency is Kriged the same way at (iops_z, C_·z), and the synthetic
// sample (iops_z, latency_z, C_·z) is stored. Kriging distances are taken on
// columns divided by Model.Scale.
//
// The band of each point is the Kriging band widened by Model.Calibration
// (when the model has one); the raw Kriging band is kept in RawLower and
// RawUpper.
func (m *Model) Extrapolate(toIOPS float64) (*Curve, error) {
	c, err := m.extrapolate(toIOPS)
	if err != nil {
		return nil, err
	}
	m.Calibration.apply(c, m.MaxIOPS)
	return c, nil
}

// extrapolate is Extrapolate with the raw Kriging band only.
func (m *Model) extrapolate(toIOPS float64) (*Curve, error) {
	if len(m.trees) != len(m.Signature) || len(m.Signature) < 2 {
		return nil, errors.New("mlisp: model is not fitted")
	}
	if math.IsNaN(toIOPS) || math.IsInf(toIOPS, 0) || toIOPS <= m.MaxIOPS {
		return nil, inputError("toIOPS", "%v must be finite and above the highest observed IOPS %v", toIOPS, m.MaxIOPS)
	}
	s := len(m.Signature)
	steps := m.Options.withDefaults().Steps
	delta := (toIOPS - m.MaxIOPS) / float64(steps)
	c := &Curve{Observed: m.observedBins()}

	prev := m.seed()
	var synth [][]float64
	for z := 0; z <= steps; z++ {
		iops := m.MaxIOPS + float64(z)*delta
		if z == steps {
			iops = toIOPS
		}
		query := append([]float64(nil), prev...)
		query[0] = iops
		next := append([]float64(nil), query...)
		for i := 2; i < s; i++ {
			p, fb, err := m.krige(i, query, synth)
			if err != nil {
				return nil, err
			}
			if fb {
				c.Fallbacks++
			}
			next[i] = p.Mean
		}
		p, fb, err := m.krige(1, next, synth)
		if err != nil {
			return nil, err
		}
		if fb {
			c.Fallbacks++
		}
		next[1] = p.Mean
		for _, v := range append([]float64{p.Lower, p.Upper}, next...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, inputError("Samples", "the extrapolation at %v IOPS is not finite; counter values too large to Krige", iops)
			}
		}
		synth = append(synth, next)
		c.Points = append(c.Points, Point{IOPS: iops, Lower: p.Lower, Mean: p.Mean, Upper: p.Upper, RawLower: p.Lower, RawUpper: p.Upper})
		c.Synthetic = append(c.Synthetic, next)
		prev = next
	}
	m.constrainShape(c)
	// A latency is not negative: the band is clamped at 0 only once the
	// shape has moved it, and every bound alike (max with 0 keeps the
	// order). Clamping the lower bound before the shape's lift, which moves
	// the whole band, put it above the lifted mean where the Kriging trend
	// had gone below 0.
	for k := range c.Points {
		p := &c.Points[k]
		p.Lower, p.RawLower = math.Max(p.Lower, 0), math.Max(p.RawLower, 0)
		p.Mean = math.Max(p.Mean, 0)
		p.Upper, p.RawUpper = math.Max(p.Upper, 0), math.Max(p.RawUpper, 0)
	}
	return c, nil
}

// krige predicts signature column i at the full signature vector query
// (only the columns inputs[i] are read) by non-negative Kriging on the
// CART-leaf samples plus the synthetic samples. fallback is true when the
// training values were constant and their mean was used with zero variance.
func (m *Model) krige(i int, query []float64, synth [][]float64) (kriging.Prediction, bool, error) {
	in := m.inputs[i]
	rows := m.trees[i].LeafRows(m.trees[i].LeafOf(query))
	scaled := func(dst, v []float64) {
		for k, j := range in {
			dst[k] = v[j] / m.Scale[j]
		}
	}
	q := make([]float64, len(in))
	scaled(q, query)
	if max := m.Options.withDefaults().MaxLeafSamples; len(rows) > max {
		rows = m.nearestRows(rows, q, in, max)
	}
	nTrain := len(rows) + len(synth)
	X := mat.NewDense(nTrain, len(in), nil)
	y := make([]float64, nTrain)
	for k, r := range rows {
		scaled(X.RawRowView(k), m.Samples[r])
		y[k] = m.Samples[r][i]
	}
	for k, v := range synth {
		scaled(X.RawRowView(len(rows)+k), v)
		y[len(rows)+k] = v[i]
	}
	kopt := m.Options.kriging()
	if kopt.Drift != kriging.NoDrift {
		kopt.DriftRows = len(rows)
	}
	km, err := kriging.Fit(X, y, kopt)
	if err != nil {
		if !errors.Is(err, regress.ErrInput) {
			return kriging.Prediction{}, false, fmt.Errorf("mlisp: Kriging %q: %w", m.Signature[i], err)
		}
		// Constant values or a single distinct point in the leaf: the leaf
		// mean is the prediction, with no spread.
		var mean float64
		for _, v := range y {
			mean += v / float64(len(y))
		}
		return kriging.Prediction{Mean: mean, Lower: mean, Upper: mean}, true, nil
	}
	p, err := km.Estimate(q)
	if err != nil {
		return kriging.Prediction{}, false, fmt.Errorf("mlisp: Kriging %q: %w", m.Signature[i], err)
	}
	if math.IsNaN(p.Mean) || math.IsInf(p.Mean, 0) || math.IsNaN(p.Upper) || math.IsInf(p.Upper, 0) {
		return kriging.Prediction{}, false, fmt.Errorf("mlisp: Kriging %q: non-finite prediction %+v", m.Signature[i], p)
	}
	return p, false, nil
}

// nearestRows keeps the max rows nearest to the scaled query q (Euclidean on
// the columns in).
func (m *Model) nearestRows(rows []int, q []float64, in []int, max int) []int {
	type rd struct {
		r int
		d float64
	}
	all := make([]rd, len(rows))
	for k, r := range rows {
		var d float64
		for c, j := range in {
			e := m.Samples[r][j]/m.Scale[j] - q[c]
			d += e * e
		}
		all[k] = rd{r, d}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].d < all[b].d })
	out := make([]int, max)
	for k := range out {
		out[k] = all[k].r
	}
	sort.Ints(out)
	return out
}

// seed is the mean signature vector of the top 5% (at least 3) working-set
// samples by IOPS.
func (m *Model) seed() []float64 {
	s := len(m.Signature)
	idx := make([]int, len(m.Samples))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return m.Samples[idx[a]][0] > m.Samples[idx[b]][0] })
	k := max(len(idx)/20, 3)
	k = min(k, len(idx))
	out := make([]float64, s)
	for _, r := range idx[:k] {
		for j, v := range m.Samples[r] {
			out[j] += v
		}
	}
	for j := range out {
		out[j] /= float64(k)
	}
	out[0] = m.MaxIOPS
	return out
}

// observedBins summarizes the working set in up to 10 equal-width IOPS bins.
func (m *Model) observedBins() []Point {
	const bins = 10
	lo := math.Inf(1)
	for _, r := range m.Samples {
		lo = math.Min(lo, r[0])
	}
	hi := m.MaxIOPS
	if !(hi > lo) {
		return nil
	}
	var n [bins]int
	var sx, sy, syy [bins]float64
	for _, r := range m.Samples {
		b := int(float64(bins) * (r[0] - lo) / (hi - lo))
		b = min(max(b, 0), bins-1)
		n[b]++
		sx[b] += r[0]
		sy[b] += r[1]
		syy[b] += r[1] * r[1]
	}
	var out []Point
	for b := 0; b < bins; b++ {
		if n[b] == 0 {
			continue
		}
		k := float64(n[b])
		mean := sy[b] / k
		se := 0.0
		if n[b] > 1 {
			v := math.Max((syy[b]-k*mean*mean)/(k-1), 0)
			se = math.Sqrt(v / k)
		}
		lo, hi := math.Max(mean-2*se, 0), mean+2*se
		out = append(out, Point{IOPS: sx[b] / k, Lower: lo, Mean: mean, Upper: hi, RawLower: lo, RawUpper: hi})
	}
	return out
}
