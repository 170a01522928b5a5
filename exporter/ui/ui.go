package ui

import (
	"context"
	"embed"
	"html/template"
	"log/slog"
	"math"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
)

// Provider is what the landing page needs from the exporter.
type Provider interface {
	// Clusters lists the configured clusters.
	Clusters(ctx context.Context) []apiv1.Cluster
	// CapacityCurve returns max IOPS over the read ratio at ioSizeBytes
	// (0 = the current mix's IO size), sampled at points read ratios.
	CapacityCurve(ctx context.Context, cluster string, ioSizeBytes float64, points int) (apiv1.CapacityCurve, error)
	// LatencyCurve returns the predicted latency-vs-IOPS curve with its band.
	LatencyCurve(ctx context.Context, cluster string) (apiv1.LatencyCurve, error)
	// Forecast returns a forecast series over [start, end] (Unix seconds)
	// at step seconds; the page asks for "iops", the demand trend.
	Forecast(ctx context.Context, cluster, series string, start, end, step float64) (apiv1.Forecast, error)
	// RuleSets returns the advisor's predicted boost of each rule set of the
	// cluster's catalog for the current workload.
	RuleSets(ctx context.Context, cluster string) (apiv1.RuleSets, error)
}

// advisorModel is the rule-set advisor's name among a cluster's models: the
// page asks for rule sets only where it is configured.
const advisorModel = "advisor"

// CurvePoints is the number of read ratios sampled for the capacity plot.
const CurvePoints = 21

// requestTimeout bounds the time spent asking the Provider for one page.
const requestTimeout = 10 * time.Second

//go:embed templates/*.html
var templateFS embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"iops":  formatIOPS,
	"ratio": formatPercent,
	"signedRatio": func(v float64) string {
		if v > 0 {
			return "+" + formatPercent(v)
		}
		return formatPercent(v)
	},
	"bytes":   formatBytes,
	"seconds": formatSeconds,
	"optIOPS": formatOptIOPS,
	"when":    formatTime,
	"iopsUnit": func(v float64) string {
		if !isFinite(v) {
			return "n/a"
		}
		return formatIOPS(v) + " IOPS"
	},
}).ParseFS(templateFS, "templates/page.html"))

type handler struct {
	p   Provider
	log *slog.Logger
	now func() time.Time // the clock the page's "ago" and "in" are read against
}

// NewHandler returns the handler of the landing page. It answers GET and HEAD
// on "/" only; any other path is 404 so that it can be mounted at "/" of a
// mux without hiding typos of other endpoints.
func NewHandler(p Provider) http.Handler {
	return &handler{p: p, log: slog.Default(), now: time.Now}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	page := buildPage(ctx, h.p, h.now())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if err := pageTemplate.Execute(w, page); err != nil {
		h.log.Error("rendering the landing page", "err", err)
	}
}

// page is the data of templates/page.html.
type page struct {
	Clusters []clusterView
}

// clusterView is one cluster's section.
type clusterView struct {
	Name  string
	Kind  string
	Stale bool
	// WarmingUp: the figures come from a rate window that was not full.
	WarmingUp bool

	CapacityErr string
	HasCapacity bool
	IOPS        float64
	MaxIOPS     float64
	Headroom    float64
	ReadRatio   float64
	IOSizeBytes float64
	// HeadroomIOPS is max IOPS - IOPS now (at least 0).
	HeadroomIOPS float64
	// ReadSizeBytes and WriteSizeBytes are the two classes of today's mix;
	// both 0 when the Provider does not give them (the mean is shown).
	ReadSizeBytes, WriteSizeBytes float64

	// Freshness: when the figures' data was observed, when the models
	// were fitted and when the next fit is due, in words.
	DataAsOf, LastFit, NextFit string

	// ETAs are the saturation ETAs; ETAWaiting says what the demand trend
	// waits for when it has not fitted.
	ETAs       []etaView
	ETAWaiting string

	TrendErr string
	HasTrend bool
	TrendSVG template.HTML

	LatencyErr  string
	HasLatency  bool
	SLOSeconds  float64
	LatencyKind string
	Knee        apiv1.Band

	Models []modelView

	// RuleSets is the advisor's answer (nil without a catalog);
	// RuleSetsErr says why there is none when a catalog is configured.
	RuleSets    *apiv1.RuleSets
	RuleSetsErr string

	LatencySVG  template.HTML
	CapacitySVG template.HTML
}

// etaView is one saturation ETA in words.
type etaView struct {
	Limit string // max_iops, latency_slo
	Label string // what is reached
	Text  string // "in 40 days", "now", "not reached"
	Date  string // the date it is reached, "" when never
	Band  string // "95%: 30 h to 2.5 days", "" without a band
	// Seconds from the anchor, -1 when never; used by the trend plot.
	Seconds float64
}

type modelView struct {
	Name     string
	Fitted   bool
	Stale    bool
	Accuracy float64
	Measured bool // false: no backtest exists for this model (shown as "n/a")
	Error    string
	Waiting  string
	Note     string // what the model says beside its figures (which learner serves, a bound)
}

func buildPage(ctx context.Context, p Provider, now time.Time) page {
	clusters := p.Clusters(ctx)
	sort.SliceStable(clusters, func(i, j int) bool { return clusters[i].Name < clusters[j].Name })
	out := page{Clusters: make([]clusterView, 0, len(clusters))}
	for _, c := range clusters {
		out.Clusters = append(out.Clusters, buildCluster(ctx, p, c, now))
	}
	return out
}

func buildCluster(ctx context.Context, p Provider, c apiv1.Cluster, now time.Time) clusterView {
	v := clusterView{Name: c.Name, Kind: c.Kind, WarmingUp: c.WarmingUp}
	names := make([]string, 0, len(c.Models))
	for n := range c.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := c.Models[n]
		v.Models = append(v.Models, modelView{Name: n, Fitted: m.Fitted, Stale: m.Stale, Accuracy: m.AccuracyRatio, Measured: m.AccuracyMeasured, Error: m.Error, Waiting: m.Waiting, Note: m.Note})
		if m.Stale {
			v.Stale = true
		}
	}

	if _, ok := c.Models[advisorModel]; ok {
		if rs, err := p.RuleSets(ctx, c.Name); err != nil {
			v.RuleSetsErr = err.Error()
		} else {
			v.RuleSets = &rs
		}
	}

	var cc *apiv1.CapacityCurve
	if curve, err := p.CapacityCurve(ctx, c.Name, 0, CurvePoints); err != nil {
		v.CapacityErr = err.Error()
	} else {
		if !(curve.Current.MaxIOPS > 0) {
			// 0: the API's "no capacity at today's mix" (a class size the
			// model cannot reach, say), shown and drawn as unknown.
			curve.Current.MaxIOPS = math.NaN()
		}
		cc = &curve
		v.HasCapacity = true
		v.IOPS = curve.Current.IOPS
		v.MaxIOPS = curve.Current.MaxIOPS
		v.Headroom = headroomRatio(curve.Current.IOPS, curve.Current.MaxIOPS)
		v.ReadRatio = curve.Current.ReadRatio
		v.IOSizeBytes = curve.Current.IOSizeBytes
		v.ReadSizeBytes, v.WriteSizeBytes = curve.Current.ReadSizeBytes, curve.Current.WriteSizeBytes
		if isFinite(curve.Current.MaxIOPS) && curve.Current.MaxIOPS > 0 && isFinite(curve.Current.IOPS) {
			v.HeadroomIOPS = math.Max(0, curve.Current.MaxIOPS-curve.Current.IOPS)
		} else {
			v.HeadroomIOPS = math.NaN()
		}
		v.Stale = v.Stale || curve.Stale
		v.CapacitySVG = capacitySVG(curve)
	}
	knee := math.NaN()
	if curve, err := p.LatencyCurve(ctx, c.Name); err != nil {
		v.LatencyErr = err.Error()
	} else {
		v.HasLatency = true
		v.SLOSeconds = curve.SLOSeconds
		v.LatencyKind = curve.Latency
		v.Knee = curve.KneeIOPS
		v.Stale = v.Stale || curve.Stale
		current, capacity := math.NaN(), math.NaN()
		if cc != nil {
			current, capacity = cc.Current.IOPS, cc.Current.MaxIOPS
		}
		if curve.KneeIOPS.Upper != nil {
			knee = *curve.KneeIOPS.Upper
		}
		v.LatencySVG = latencySVG(curve, current, capacity)
	}
	buildTimeline(ctx, p, c, now, &v, knee)
	return v
}

// Trend plot window: ahead, 1.25 times the capacity ETA within
// [trendMinAhead, trendMaxAhead] (trendDefaultAhead when the demand does not
// reach it); behind, as far as ahead within [trendMinBehind,
// trendMaxBehind], so that a near ETA is not squeezed into a corner.
const (
	trendMinBehind    = 86400.0
	trendMaxBehind    = 7 * 86400.0
	trendMinAhead     = 86400.0
	trendDefaultAhead = 30 * 86400.0
	trendMaxAhead     = 365 * 86400.0
	trendPoints       = 240
)

// buildTimeline fills the "when" part of a cluster: freshness, saturation
// ETAs and the demand trend plot. knee is the IOPS where the latency's upper
// bound crosses the SLO (NaN when unknown).
func buildTimeline(ctx context.Context, p Provider, c apiv1.Cluster, now time.Time, v *clusterView, knee float64) {
	nowUnix := float64(now.UnixMilli()) / 1e3
	anchor := nowUnix
	if c.DataAsOfUnix > 0 {
		anchor = c.DataAsOfUnix
		v.DataAsOf = formatTime(c.DataAsOfUnix) + " (" + ago(nowUnix-c.DataAsOfUnix) + ")"
	}
	if c.LastFitUnix > 0 {
		v.LastFit = formatTime(c.LastFitUnix) + " (" + ago(nowUnix-c.LastFitUnix) + ")"
	}
	if c.NextFitUnix > 0 {
		if d := c.NextFitUnix - nowUnix; d > 0 {
			v.NextFit = "by " + formatTime(c.NextFitUnix) + " (in " + formatDuration(d) + ")"
		} else {
			v.NextFit = "due at the next refresh"
		}
	}
	ahead := trendDefaultAhead
	for _, e := range c.SaturationETAs {
		ev := etaView{Limit: e.Limit, Label: e.Limit, Seconds: -1}
		switch e.Limit {
		case "max_iops":
			ev.Label = "max IOPS reached"
		case "latency_slo":
			ev.Label = "latency SLO reached"
		}
		switch {
		case e.Seconds == nil || !isFinite(*e.Seconds):
			ev.Text = "not reached"
			ev.Date = "not within a year" // +Inf: beyond the trend's horizon, or no growth
		case *e.Seconds <= 0:
			ev.Text, ev.Seconds = "now", 0
			switch {
			case e.Reason == apiv1.ETAReasonLatencyOverSLO && e.Limit == "max_iops":
				// Headroom may be left: the ETA is 0 because the SLO
				// breach is the outage, not because max IOPS is reached.
				ev.Label = "latency over its SLO"
				ev.Date = "below max IOPS; its ETA is 0 while the SLO is breached"
			case e.Reason == apiv1.ETAReasonLatencyOverSLO:
				ev.Date = "the observed latency is over it"
			case e.Reason == apiv1.ETAReasonSaturated:
				ev.Date = "utilization is at capacity"
			default:
				ev.Date = "the trend is at the limit"
			}
		default:
			ev.Seconds = *e.Seconds
			ev.Text = "in " + formatDuration(*e.Seconds)
			ev.Date = formatTime(anchor + *e.Seconds)
			ev.Band = etaBand(e.Band)
			if e.Limit == "max_iops" {
				ahead = math.Max(trendMinAhead, math.Min(trendMaxAhead, 1.25**e.Seconds))
			}
		}
		v.ETAs = append(v.ETAs, ev)
	}
	if len(v.ETAs) == 0 {
		if m, ok := c.Models["trend"]; ok && m.Waiting != "" {
			v.ETAWaiting = m.Waiting
		}
	}
	start, end := anchor-math.Max(trendMinBehind, math.Min(trendMaxBehind, ahead)), anchor+ahead
	f, err := p.Forecast(ctx, c.Name, "iops", start, end, math.Ceil((end-start)/trendPoints))
	if err != nil {
		v.TrendErr = err.Error()
		return
	}
	v.HasTrend = true
	v.Stale = v.Stale || f.Stale
	capacity := math.NaN()
	if v.HasCapacity {
		capacity = v.MaxIOPS
	}
	v.TrendSVG = trendSVG(f, anchor, capacity, knee, v.ETAs)
}

// ago writes a past interval: "2 min ago".
func ago(sec float64) string {
	if sec < 0 {
		return "in " + formatDuration(-sec)
	}
	return formatDuration(sec) + " ago"
}

// formatTime writes a Unix time in UTC to the minute.
func formatTime(unix float64) string {
	if !isFinite(unix) || unix <= 0 {
		return "n/a"
	}
	return time.UnixMilli(int64(unix * 1e3)).UTC().Format("2006-01-02 15:04 UTC")
}

// formatDuration writes a span in the unit a person plans with: seconds,
// minutes, hours, days, years.
func formatDuration(sec float64) string {
	switch a := math.Abs(sec); {
	case !isFinite(sec):
		return "n/a"
	case a < 90:
		return strconv.FormatFloat(math.Round(sec), 'f', 0, 64) + " s"
	case a < 2*3600:
		return strconv.FormatFloat(math.Round(sec/60), 'f', 0, 64) + " min"
	case a < 48*3600:
		return strconv.FormatFloat(sec/3600, 'f', 0, 64) + " h"
	case a < 10*86400:
		return strconv.FormatFloat(sec/86400, 'f', 1, 64) + " days"
	case a < 730*86400:
		return strconv.FormatFloat(sec/86400, 'f', 0, 64) + " days"
	default:
		return strconv.FormatFloat(sec/(365.25*86400), 'f', 1, 64) + " years"
	}
}

// etaBand says an ETA's 95% band in words: "" without one.
func etaBand(b *apiv1.ETABand) string {
	if b == nil || b.Early == nil || !isFinite(*b.Early) {
		return ""
	}
	early := "now" // the band's upper end is at the limit already
	if *b.Early > 0 {
		early = formatDuration(*b.Early)
	}
	if b.Late == nil || !isFinite(*b.Late) {
		return "95%: from " + early + ", maybe not within a year"
	}
	return "95%: " + early + " to " + formatDuration(*b.Late)
}

// headroomRatio is 1 - iops/max clamped to [0,1]; NaN when max is not positive.
func headroomRatio(iops, max float64) float64 {
	if !(max > 0) || math.IsInf(max, 0) || !isFinite(iops) {
		return math.NaN()
	}
	return math.Max(0, math.Min(1, 1-iops/max))
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// formatIOPS writes an operation rate with an SI suffix: 950, 12.3k, 1.25M.
func formatIOPS(v float64) string {
	if !isFinite(v) {
		return "n/a"
	}
	return si(v)
}

func si(v float64) string { return scaled(v, 1000, "", "k", "M", "G") }

// scaled writes v with 3 significant digits in the first of units (each
// base times the one before) where it rounds below 1000, the last unit
// otherwise: 999,700 is "1M", not "1e+03k".
func scaled(v, base float64, units ...string) string {
	i := 0
	for i < len(units)-1 && math.Abs(round3(v)) >= 1000 {
		v /= base
		i++
	}
	return trim(v) + units[i]
}

// round3 rounds v to 3 significant digits.
func round3(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return r
}

// trim formats with 3 significant digits, no trailing zeros and no
// exponent (a tick of 1000 ms is "1000", not "1e+03").
func trim(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(round3(v), 'f', -1, 64)
}

// formatOptIOPS writes a knee bound; nil (the bound does not cross the SLO
// within the curve) is "beyond".
func formatOptIOPS(v *float64) string {
	if v == nil {
		return "beyond"
	}
	return formatIOPS(*v)
}

func formatPercent(v float64) string {
	if !isFinite(v) {
		return "n/a"
	}
	return strconv.FormatFloat(v*100, 'f', 1, 64) + "%"
}

func formatBytes(v float64) string {
	if !isFinite(v) || v < 0 {
		return "n/a"
	}
	return scaled(v, 1024, " B", " KiB", " MiB", " GiB")
}

func formatSeconds(v float64) string {
	if !isFinite(v) {
		return "n/a"
	}
	if v == 0 {
		return "0 s"
	}
	return scaled(v*1e6, 1000, " µs", " ms", " s")
}
