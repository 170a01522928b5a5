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
}

// CurvePoints is the number of read ratios sampled for the capacity plot.
const CurvePoints = 21

// requestTimeout bounds the time spent asking the Provider for one page.
const requestTimeout = 10 * time.Second

//go:embed templates/*.html
var templateFS embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"iops":    formatIOPS,
	"ratio":   formatPercent,
	"bytes":   formatBytes,
	"seconds": formatSeconds,
	"optIOPS": formatOptIOPS,
}).ParseFS(templateFS, "templates/page.html"))

type handler struct {
	p   Provider
	log *slog.Logger
}

// NewHandler returns the handler of the landing page. It answers GET and HEAD
// on "/" only; any other path is 404 so that it can be mounted at "/" of a
// mux without hiding typos of other endpoints.
func NewHandler(p Provider) http.Handler {
	return &handler{p: p, log: slog.Default()}
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
	page := buildPage(ctx, h.p)
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

	CapacityErr string
	HasCapacity bool
	IOPS        float64
	MaxIOPS     float64
	Headroom    float64
	ReadRatio   float64
	IOSizeBytes float64

	LatencyErr  string
	HasLatency  bool
	SLOSeconds  float64
	LatencyKind string
	Knee        apiv1.Band

	Models []modelView

	LatencySVG  template.HTML
	CapacitySVG template.HTML
}

type modelView struct {
	Name     string
	Fitted   bool
	Stale    bool
	Accuracy float64
	Measured bool // false: no backtest exists for this model (shown as "n/a")
	Error    string
	Waiting  string
}

func buildPage(ctx context.Context, p Provider) page {
	clusters := p.Clusters(ctx)
	sort.SliceStable(clusters, func(i, j int) bool { return clusters[i].Name < clusters[j].Name })
	out := page{Clusters: make([]clusterView, 0, len(clusters))}
	for _, c := range clusters {
		out.Clusters = append(out.Clusters, buildCluster(ctx, p, c))
	}
	return out
}

func buildCluster(ctx context.Context, p Provider, c apiv1.Cluster) clusterView {
	v := clusterView{Name: c.Name, Kind: c.Kind}
	names := make([]string, 0, len(c.Models))
	for n := range c.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := c.Models[n]
		v.Models = append(v.Models, modelView{Name: n, Fitted: m.Fitted, Stale: m.Stale, Accuracy: m.AccuracyRatio, Measured: m.AccuracyMeasured, Error: m.Error, Waiting: m.Waiting})
		if m.Stale {
			v.Stale = true
		}
	}

	var cc *apiv1.CapacityCurve
	if curve, err := p.CapacityCurve(ctx, c.Name, 0, CurvePoints); err != nil {
		v.CapacityErr = err.Error()
	} else {
		cc = &curve
		v.HasCapacity = true
		v.IOPS = curve.Current.IOPS
		v.MaxIOPS = curve.Current.MaxIOPS
		v.Headroom = headroomRatio(curve.Current.IOPS, curve.Current.MaxIOPS)
		v.ReadRatio = curve.Current.ReadRatio
		v.IOSizeBytes = curve.Current.IOSizeBytes
		v.Stale = v.Stale || curve.Stale
		v.CapacitySVG = capacitySVG(curve)
	}
	if curve, err := p.LatencyCurve(ctx, c.Name); err != nil {
		v.LatencyErr = err.Error()
	} else {
		v.HasLatency = true
		v.SLOSeconds = curve.SLOSeconds
		v.LatencyKind = curve.Latency
		v.Knee = curve.KneeIOPS
		v.Stale = v.Stale || curve.Stale
		current := math.NaN()
		if cc != nil {
			current = cc.Current.IOPS
		}
		v.LatencySVG = latencySVG(curve, current)
	}
	return v
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

func si(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trim(v/1e9) + "G"
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e3:
		return trim(v/1e3) + "k"
	default:
		return trim(v)
	}
}

// trim formats with 3 significant digits and no trailing zeros.
func trim(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
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
	switch {
	case v >= 1<<30:
		return trim(v/(1<<30)) + " GiB"
	case v >= 1<<20:
		return trim(v/(1<<20)) + " MiB"
	case v >= 1<<10:
		return trim(v/(1<<10)) + " KiB"
	default:
		return trim(v) + " B"
	}
}

func formatSeconds(v float64) string {
	if !isFinite(v) {
		return "n/a"
	}
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0 s"
	case a < 1e-3:
		return trim(v*1e6) + " µs"
	case a < 1:
		return trim(v*1e3) + " ms"
	default:
		return trim(v) + " s"
	}
}
