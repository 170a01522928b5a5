package ui

import (
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/storcast/storcast/exporter/apiv1"
)

// Plot geometry, in SVG user units (the viewBox); the browser scales it.
const (
	plotW   = 480.0
	plotH   = 260.0
	padL    = 58.0
	padR    = 14.0
	padT    = 14.0
	padB    = 40.0
	numTick = 5
)

// frame maps data coordinates onto the plot area.
type frame struct {
	x0, x1, y0, y1 float64 // data range
}

func (f frame) X(v float64) float64 { return padL + (v-f.x0)/(f.x1-f.x0)*(plotW-padL-padR) }
func (f frame) Y(v float64) float64 { return plotH - padB - (v-f.y0)/(f.y1-f.y0)*(plotH-padT-padB) }

// num formats a coordinate: finite by construction, two decimals at most.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// svgWriter builds an SVG document. Every text goes through html.EscapeString
// and every number through strconv; nothing else is written.
type svgWriter struct{ b strings.Builder }

func (s *svgWriter) open(label string) {
	s.b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + num(plotW) + " " + num(plotH) +
		`" width="` + num(plotW) + `" height="` + num(plotH) + `" role="img" aria-label="` + html.EscapeString(label) + `">`)
	s.b.WriteString(`<title>` + html.EscapeString(label) + `</title>`)
}

func (s *svgWriter) close() template.HTML {
	s.b.WriteString(`</svg>`)
	return template.HTML(s.b.String()) // #nosec: built from escaped text and formatted numbers only
}

func (s *svgWriter) text(x, y float64, anchor, class, t string) {
	s.b.WriteString(`<text x="` + num(x) + `" y="` + num(y) + `" text-anchor="` + anchor + `" class="` + class + `">` +
		html.EscapeString(t) + `</text>`)
}

func (s *svgWriter) line(x1, y1, x2, y2 float64, class string) {
	s.b.WriteString(`<line x1="` + num(x1) + `" y1="` + num(y1) + `" x2="` + num(x2) + `" y2="` + num(y2) + `" class="` + class + `"/>`)
}

func (s *svgWriter) path(pts [][2]float64, closed bool, class string) {
	if len(pts) == 0 {
		return
	}
	s.b.WriteString(`<path class="` + class + `" d="`)
	for i, p := range pts {
		if i == 0 {
			s.b.WriteString("M")
		} else {
			s.b.WriteString(" L")
		}
		s.b.WriteString(num(p[0]) + " " + num(p[1]))
	}
	if closed {
		s.b.WriteString(" Z")
	}
	s.b.WriteString(`"/>`)
}

func (s *svgWriter) circle(x, y, r float64, class string) {
	s.b.WriteString(`<circle cx="` + num(x) + `" cy="` + num(y) + `" r="` + num(r) + `" class="` + class + `"/>`)
}

// axes draws the frame, ticks, tick labels and axis titles.
func (s *svgWriter) axes(f frame, xs, ys []float64, xfmt, yfmt func(float64) string, xTitle, yTitle string) {
	s.b.WriteString(`<rect x="` + num(padL) + `" y="` + num(padT) + `" width="` + num(plotW-padL-padR) +
		`" height="` + num(plotH-padT-padB) + `" class="frame"/>`)
	for _, v := range xs {
		x := f.X(v)
		s.line(x, padT, x, plotH-padB, "grid")
		s.text(x, plotH-padB+14, "middle", "tick", xfmt(v))
	}
	for _, v := range ys {
		y := f.Y(v)
		s.line(padL, y, plotW-padR, y, "grid")
		s.text(padL-5, y+4, "end", "tick", yfmt(v))
	}
	s.text(padL+(plotW-padL-padR)/2, plotH-6, "middle", "axis", xTitle)
	s.b.WriteString(`<text x="12" y="` + num(padT+(plotH-padT-padB)/2) + `" text-anchor="middle" class="axis" transform="rotate(-90 12 ` +
		num(padT+(plotH-padT-padB)/2) + `)">` + html.EscapeString(yTitle) + `</text>`)
}

func (s *svgWriter) empty(msg string) {
	s.text(plotW/2, plotH/2, "middle", "empty", msg)
}

// niceTicks returns about n round tick values (1, 2 or 5 times a power of
// ten apart) covering [lo, hi], and the range widened to the outer ticks.
func niceTicks(lo, hi float64, n int) (ticks []float64, nlo, nhi float64) {
	if !(hi > lo) {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	nlo = math.Floor(lo/step) * step
	nhi = math.Ceil(hi/step) * step
	for v := nlo; v <= nhi+step/2; v += step {
		ticks = append(ticks, math.Round(v/step)*step)
	}
	return ticks, nlo, nhi
}

// latencySVG plots the predicted latency (mean and band) against IOPS, the
// observed windows, the SLO, the mean knee, today's IOPS (current) and the
// capacity at today's mix (capacity, the max IOPS the latency climbs
// towards); NaN leaves a marker out.
func latencySVG(c apiv1.LatencyCurve, current, capacity float64) template.HTML {
	var s svgWriter
	s.open("Latency forecast for cluster " + c.Cluster)
	var pts []apiv1.LatencyPoint
	for _, p := range c.Points {
		if isFinite(p.IOPS) && isFinite(p.Lower) && isFinite(p.Mean) && (p.Upper == nil || isFinite(*p.Upper)) && p.IOPS >= 0 {
			pts = append(pts, p)
		}
	}
	var obs []apiv1.ObservedLatency
	for _, o := range c.Observed {
		if isFinite(o.IOPS) && isFinite(o.LatencySeconds) && o.IOPS >= 0 && o.LatencySeconds >= 0 {
			obs = append(obs, o)
		}
	}
	if len(pts) < 2 && len(obs) == 0 {
		s.empty("no latency curve fitted yet")
		return s.close()
	}
	xmax, ymax := 0.0, 0.0
	for _, p := range pts {
		xmax = math.Max(xmax, p.IOPS)
		if p.Upper != nil {
			ymax = math.Max(ymax, *p.Upper)
		}
	}
	for _, o := range obs {
		xmax = math.Max(xmax, o.IOPS)
		ymax = math.Max(ymax, o.LatencySeconds)
	}
	slo := c.SLOSeconds
	if isFinite(slo) && slo > 0 {
		ymax = math.Max(ymax, slo*1.2)
	}
	if isFinite(current) && current > 0 {
		xmax = math.Max(xmax, current)
	}
	if isFinite(capacity) && capacity > 0 {
		xmax = math.Max(xmax, capacity)
	}
	// Latency in milliseconds on the axis: it reads better than seconds.
	xt, _, x1 := niceTicks(0, xmax, numTick)
	yt, _, y1 := niceTicks(0, ymax*1e3, numTick)
	f := frame{x0: 0, x1: x1, y0: 0, y1: y1 / 1e3}
	ytSeconds := make([]float64, len(yt))
	for i, v := range yt {
		ytSeconds[i] = v / 1e3
	}
	s.axes(f, xt, ytSeconds, si, func(v float64) string { return trim(math.Round(v*1e6) / 1e3) }, "IOPS", "latency (ms)")

	if len(pts) >= 2 {
		band := make([][2]float64, 0, 2*len(pts))
		for _, p := range pts {
			// No upper bound (the cluster may be saturated): the band
			// reaches the top of the chart.
			up := f.y1
			if p.Upper != nil {
				up = math.Min(*p.Upper, f.y1)
			}
			band = append(band, [2]float64{f.X(p.IOPS), f.Y(up)})
		}
		for i := len(pts) - 1; i >= 0; i-- {
			band = append(band, [2]float64{f.X(pts[i].IOPS), f.Y(math.Min(pts[i].Lower, f.y1))})
		}
		s.path(band, true, "band")
		mean := make([][2]float64, 0, len(pts))
		for _, p := range pts {
			mean = append(mean, [2]float64{f.X(p.IOPS), f.Y(math.Min(p.Mean, f.y1))})
		}
		s.path(mean, false, "mean")
	}
	for _, o := range obs {
		s.circle(f.X(o.IOPS), f.Y(math.Min(o.LatencySeconds, f.y1)), 2.5, "observed")
	}
	if isFinite(slo) && slo > 0 && slo <= f.y1 {
		y := f.Y(slo)
		s.line(padL, y, plotW-padR, y, "slo")
		s.text(plotW-padR-4, y-4, "end", "label slo-label", "SLO "+formatSeconds(slo))
	}
	if k := c.KneeIOPS.Mean; k != nil && isFinite(*k) && *k >= 0 && *k <= f.x1 {
		x := f.X(*k)
		s.line(x, padT, x, plotH-padB, "knee")
		s.text(x+4, padT+12, "start", "label knee-label", "knee "+si(*k))
	}
	if isFinite(current) && current >= 0 && current <= f.x1 {
		x := f.X(current)
		s.line(x, padT, x, plotH-padB, "now")
		s.text(x+4, padT+26, "start", "label now-label", "now "+si(current))
	}
	if isFinite(capacity) && capacity > 0 && capacity <= f.x1 {
		x := f.X(capacity)
		s.line(x, padT, x, plotH-padB, "capacity-marker")
		s.text(x-4, padT+40, "end", "label capacity-label", "capacity "+si(capacity))
	}
	return s.close()
}

// trendSVG plots the demand trend over time: the observed IOPS, the trend's
// mean and 95% band from a week back to past the capacity ETA, the capacity
// at today's mix and the latency SLO knee (upper bound) as limits, and where
// the trend reaches each (etas). Time is in days from anchor (the data's
// time); NaN limits are left out.
func trendSVG(fc apiv1.Forecast, anchor, capacity, knee float64, etas []etaView) template.HTML {
	var s svgWriter
	s.open("Demand trend over time for cluster " + fc.Cluster)
	var pts []apiv1.ForecastPoint
	for _, p := range fc.Points {
		if isFinite(p.T) && isFinite(p.Value) && isFinite(p.Lower) && isFinite(p.Upper) {
			pts = append(pts, p)
		}
	}
	var obs []apiv1.ForecastPoint
	for _, p := range fc.Observed {
		if isFinite(p.T) && isFinite(p.Value) && p.Value >= 0 {
			obs = append(obs, p)
		}
	}
	if len(pts) < 2 {
		s.empty("no demand trend fitted yet")
		return s.close()
	}
	day := func(t float64) float64 { return (t - anchor) / 86400 }
	x0, x1 := day(pts[0].T), day(pts[len(pts)-1].T)
	ymax := 0.0
	for _, p := range pts {
		ymax = math.Max(ymax, p.Value)
	}
	for _, p := range obs {
		ymax = math.Max(ymax, p.Value)
		x0 = math.Min(x0, day(p.T))
	}
	for _, l := range []float64{capacity, knee} {
		if isFinite(l) && l > 0 {
			ymax = math.Max(ymax, l*1.1)
		}
	}
	// The band is clipped to the frame: far ahead it widens past any limit
	// and would flatten the part that matters.
	yt, _, y1 := niceTicks(0, ymax, numTick)
	xt, _, _ := niceTicks(x0, x1, numTick)
	var xs []float64
	for _, v := range xt {
		if v >= x0 && v <= x1 {
			xs = append(xs, v)
		}
	}
	f := frame{x0: x0, x1: x1, y0: 0, y1: y1}
	s.axes(f, xs, yt, func(v float64) string {
		switch {
		case v == 0:
			return "now"
		case v > 0:
			return "+" + trim(v) + "d"
		default:
			return trim(v) + "d"
		}
	}, si, "days from the data's time", "IOPS")
	clip := func(v float64) float64 { return f.Y(math.Max(0, math.Min(v, f.y1))) }
	band := make([][2]float64, 0, 2*len(pts))
	for _, p := range pts {
		band = append(band, [2]float64{f.X(day(p.T)), clip(p.Upper)})
	}
	for i := len(pts) - 1; i >= 0; i-- {
		band = append(band, [2]float64{f.X(day(pts[i].T)), clip(pts[i].Lower)})
	}
	s.path(band, true, "band trend-band")
	mean := make([][2]float64, 0, len(pts))
	for _, p := range pts {
		mean = append(mean, [2]float64{f.X(day(p.T)), clip(p.Value)})
	}
	s.path(mean, false, "mean trend-mean")
	if len(obs) > 0 {
		line := make([][2]float64, 0, len(obs))
		for _, p := range obs {
			line = append(line, [2]float64{f.X(day(p.T)), clip(p.Value)})
		}
		s.path(line, false, "history")
	}
	if isFinite(capacity) && capacity > 0 && capacity <= f.y1 {
		y := f.Y(capacity)
		s.line(padL, y, plotW-padR, y, "capacity-limit")
		s.text(padL+4, y-4, "start", "label capacity-label", "max IOPS "+si(capacity))
	}
	if isFinite(knee) && knee > 0 && knee <= f.y1 {
		y := f.Y(knee)
		s.line(padL, y, plotW-padR, y, "slo")
		s.text(padL+4, y+12, "start", "label slo-label", "SLO knee "+si(knee))
	}
	if 0 >= f.x0 && 0 <= f.x1 {
		x := f.X(0)
		s.line(x, padT, x, plotH-padB, "now")
	}
	for i, e := range etas {
		if e.Seconds < 0 || day(anchor+e.Seconds) > f.x1 {
			continue
		}
		x := f.X(e.Seconds / 86400)
		s.line(x, padT, x, plotH-padB, "eta")
		// The label on the side with room: left of a marker in the right
		// half of the plot, right of one in the left half.
		lx, anchor := x-4, "end"
		if x < padL+(plotW-padL-padR)/2 {
			lx, anchor = x+4, "start"
		}
		s.text(lx, padT+12+14*float64(i), anchor, "label eta-label", e.Label+" "+e.Text)
	}
	return s.close()
}

// capacitySVG plots max IOPS against the read ratio with the current mix
// marked (its max IOPS on the curve and today's IOPS below it).
func capacitySVG(c apiv1.CapacityCurve) template.HTML {
	var s svgWriter
	s.open("Max IOPS against read ratio for cluster " + c.Cluster)
	var pts []apiv1.CapacityPoint
	for _, p := range c.Points {
		if isFinite(p.ReadRatio) && isFinite(p.MaxIOPS) && p.ReadRatio >= 0 && p.ReadRatio <= 1 && p.MaxIOPS >= 0 {
			pts = append(pts, p)
		}
	}
	if len(pts) < 2 {
		s.empty("no capacity model fitted yet")
		return s.close()
	}
	ymax := 0.0
	for _, p := range pts {
		ymax = math.Max(ymax, p.MaxIOPS)
	}
	cur := c.Current
	if isFinite(cur.MaxIOPS) {
		ymax = math.Max(ymax, cur.MaxIOPS)
	}
	if isFinite(cur.IOPS) {
		ymax = math.Max(ymax, cur.IOPS)
	}
	yt, _, y1 := niceTicks(0, ymax, numTick)
	f := frame{x0: 0, x1: 1, y0: 0, y1: y1}
	s.axes(f, []float64{0, 0.25, 0.5, 0.75, 1}, yt, func(v float64) string { return trim(v*100) + "%" }, si,
		"read ratio", "max IOPS")
	line := make([][2]float64, 0, len(pts))
	for _, p := range pts {
		line = append(line, [2]float64{f.X(p.ReadRatio), f.Y(p.MaxIOPS)})
	}
	s.path(line, false, "capacity")
	if isFinite(cur.ReadRatio) && cur.ReadRatio >= 0 && cur.ReadRatio <= 1 {
		x := f.X(cur.ReadRatio)
		s.line(x, padT, x, plotH-padB, "now")
		if isFinite(cur.MaxIOPS) && cur.MaxIOPS >= 0 {
			s.circle(x, f.Y(cur.MaxIOPS), 4, "current-max")
			s.text(x+6, f.Y(cur.MaxIOPS)-6, "start", "label", "max "+si(cur.MaxIOPS))
		}
		if isFinite(cur.IOPS) && cur.IOPS >= 0 {
			s.circle(x, f.Y(cur.IOPS), 4, "current")
			s.text(x+6, f.Y(cur.IOPS)+14, "start", "label", "now "+si(cur.IOPS))
		}
	}
	return s.close()
}
