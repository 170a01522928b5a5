package mlisp

import "math"

// constrainShape lifts the extrapolated mean of the regression variant to
// the floor that a non-decreasing convex latency curve cannot go below: the
// line through the first point (at X) with the slope of the data just below
// X, and every earlier point (monotone). The raw band moves with the mean.
// Options.NoConvexFloor and the paper's variant skip it.
func (m *Model) constrainShape(c *Curve) {
	if o := m.Options.withDefaults(); o.NoConvexFloor || o.Kriging == KrigingPaper || len(c.Points) == 0 {
		return
	}
	slope := m.topSlope()
	x0, y0 := c.Points[0].IOPS, c.Points[0].Mean
	prev := math.Inf(-1)
	for k := range c.Points {
		p := &c.Points[k]
		floor := math.Max(y0+math.Max(slope, 0)*(p.IOPS-x0), prev)
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

// topSlope is the least-squares slope of latency on IOPS over the working-set
// samples in the top quarter of the IOPS range. For a convex curve the slope
// of a chord below X is at most the tangent's at X, so the line is a floor.
func (m *Model) topSlope() float64 {
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
		return 0
	}
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for _, r := range m.Samples {
		if r[0] >= cut {
			sxx += (r[0] - mx) * (r[0] - mx)
			sxy += (r[0] - mx) * (r[1] - my)
		}
	}
	if !(sxx > 0) {
		return 0
	}
	return sxy / sxx
}
