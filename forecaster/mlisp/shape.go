package mlisp

import "math"

// constrainShape lifts the extrapolated mean of the regression variant to
// the floor that a non-decreasing convex latency curve cannot go below: the
// least-squares line of the data just below X, carried on past X, and every
// earlier point (monotone). The line starts at the first extrapolated point,
// or, when that lies below the line's own lower 95% bound there, at that
// bound: a walk that starts below the latency the history already showed at
// its top cannot take the curve down with it. The raw band moves with the
// mean. Options.NoConvexFloor and the paper's variant skip it.
func (m *Model) constrainShape(c *Curve) {
	if o := m.Options.withDefaults(); o.NoConvexFloor || o.Kriging == KrigingPaper || len(c.Points) == 0 {
		return
	}
	x0, y0 := c.Points[0].IOPS, c.Points[0].Mean
	top := m.topLine(x0)
	if top.ok {
		y0 = math.Max(y0, top.level-2*top.se)
	}
	prev := math.Inf(-1)
	for k := range c.Points {
		p := &c.Points[k]
		floor := math.Max(y0+top.slope*(p.IOPS-x0), prev)
		if p.Mean < floor {
			d := floor - p.Mean
			p.Mean = floor
			p.Upper += d
			p.RawUpper += d
			p.Lower += d
			p.RawLower += d
		}
		prev = p.Mean
	}
}

// line is the least-squares line of topLine: its slope clamped at 0, its
// value at a load x0 with that slope and the standard error of that value.
type line struct {
	slope, level, se float64
	ok               bool
}

// topLine fits latency on IOPS by least squares over the working-set samples
// in the top quarter of the IOPS range. For a convex curve the slope of a
// chord below X is at most the tangent's at X, so the line is a floor; a
// convex curve also lies above its least-squares line at the end of the
// fitted range, and a non-decreasing one above the mean of its values below,
// so the value at x0 >= X is a floor for the curve there, up to its standard
// error. ok is false with fewer than 3 samples in the quarter.
func (m *Model) topLine(x0 float64) line {
	lo := math.Inf(1)
	for _, r := range m.Samples {
		lo = math.Min(lo, r[0])
	}
	cut := m.MaxIOPS - 0.25*(m.MaxIOPS-lo)
	var n, sx, sy float64
	for _, r := range m.Samples {
		if r[0] >= cut {
			n++
			sx += r[0]
			sy += r[1]
		}
	}
	if n < 3 {
		return line{}
	}
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for _, r := range m.Samples {
		if r[0] >= cut {
			sxx += (r[0] - mx) * (r[0] - mx)
			sxy += (r[0] - mx) * (r[1] - my)
		}
	}
	l := line{ok: true}
	if sxx > 0 {
		l.slope = math.Max(sxy/sxx, 0)
	}
	l.level = my + l.slope*(x0-mx)
	// The residual variance about the line (n-2 degrees of freedom with a
	// fitted slope, n-1 with the slope held at 0) and the variance of the
	// line's value at x0.
	var rss float64
	for _, r := range m.Samples {
		if r[0] >= cut {
			e := r[1] - my - l.slope*(r[0]-mx)
			rss += e * e
		}
	}
	if l.slope > 0 {
		l.se = math.Sqrt(rss / (n - 2) * (1/n + (x0-mx)*(x0-mx)/sxx))
	} else {
		l.se = math.Sqrt(rss / (n - 1) / n)
	}
	return l
}
