package api

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/prometheus/common/version"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/ui"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/internal/textcut"
)

// Engine is what the service reads.
type Engine interface {
	Snapshots() []*engine.Snapshot
	Snapshot(name string) *engine.Snapshot
}

// Service answers the API's questions from engine snapshots.
type Service struct{ eng Engine }

// NewService returns a service over eng.
func NewService(eng Engine) *Service { return &Service{eng: eng} }

var _ ui.Provider = (*Service)(nil)

// Error is an API error with its type (apiv1.Err*).
type Error struct {
	Type string
	Msg  string
	// status overrides the HTTP status of Type (405 for a known path
	// asked with another method).
	status int
}

func (e *Error) Error() string { return e.Msg }

func unavailable(format string, a ...any) error {
	return &Error{Type: apiv1.ErrUnavailable, Msg: fmt.Sprintf(format, a...)}
}

// snapshot returns the cluster's snapshot or a bad_data/not_found error.
func (s *Service) snapshot(cluster string) (*engine.Snapshot, error) {
	if cluster == "" {
		return nil, apiv1.BadParam("cluster", "required")
	}
	if len(cluster) > apiv1.MaxClusterNameBytes {
		return nil, apiv1.BadParam("cluster", "longer than %d bytes", apiv1.MaxClusterNameBytes)
	}
	sn := s.eng.Snapshot(cluster)
	if sn == nil {
		return nil, &Error{Type: apiv1.ErrNotFound, Msg: fmt.Sprintf("cluster: unknown cluster %q", cluster)}
	}
	return sn, nil
}

// BuildInfo returns the version of the running binary.
func (s *Service) BuildInfo() apiv1.BuildInfo {
	return apiv1.BuildInfo{Version: version.Version, Revision: version.Revision, GoVersion: runtime.Version()}
}

// Clusters implements ui.Provider.
func (s *Service) Clusters(ctx context.Context) []apiv1.Cluster {
	snaps := s.eng.Snapshots()
	out := make([]apiv1.Cluster, 0, len(snaps))
	for _, sn := range snaps {
		c := apiv1.Cluster{Name: sn.Cluster, Kind: sn.Kind, Models: map[string]apiv1.ModelStatus{}, WarmingUp: sn.WarmingUp}
		for k, v := range sn.Models {
			if !finite(v.LastFitUnix) {
				v.LastFitUnix = 0
			}
			if !finite(v.AccuracyRatio) {
				v.AccuracyRatio, v.AccuracyMeasured = 0, false
			}
			c.Models[k] = v
		}
		s.describeCluster(&c, sn)
		out = append(out, c)
	}
	return out
}

func stale(sn *engine.Snapshot, model string) bool {
	return !sn.SourceUp || sn.Models[model].Stale
}

// CapacityCurve implements ui.Provider.
func (s *Service) CapacityCurve(ctx context.Context, cluster string, ioSizeBytes float64, points int) (apiv1.CapacityCurve, error) {
	sn, err := s.snapshot(cluster)
	if err != nil {
		return apiv1.CapacityCurve{}, err
	}
	if err := apiv1.CheckCapacityCurve(ioSizeBytes, points); err != nil {
		return apiv1.CapacityCurve{}, err
	}
	if sn.Capacity() == nil {
		return apiv1.CapacityCurve{}, unavailable("cluster %q: no capacity model fitted yet", cluster)
	}
	if ioSizeBytes == 0 {
		if !observed(sn) || !(sn.Observed.IOSizeBytes > 0) {
			return apiv1.CapacityCurve{}, unavailable("cluster %q: no observed IO size yet; give io_size_bytes", cluster)
		}
		ioSizeBytes = sn.Observed.IOSizeBytes
	}
	pts, ext, err := sn.Capacity().Model().Curve(ioSizeBytes, conservation.ReadRatios(points))
	if err != nil {
		return apiv1.CapacityCurve{}, apiv1.BadParam("io_size_bytes", "%v", err)
	}
	out := apiv1.CapacityCurve{Cluster: cluster, IOSizeBytes: ioSizeBytes, Extrapolated: ext, Stale: stale(sn, models.Conservation)}
	for _, p := range pts {
		if finite(p.ReadRatio, p.MaxIOPS, p.MaxReadIOPS, p.MaxWriteIOPS) {
			out.Points = append(out.Points, apiv1.CapacityPoint{ReadRatio: p.ReadRatio, MaxIOPS: p.MaxIOPS, MaxReadIOPS: p.MaxReadIOPS, MaxWriteIOPS: p.MaxWriteIOPS})
		}
	}
	if len(out.Points) == 0 {
		return apiv1.CapacityCurve{}, unavailable("cluster %q: the capacity model has no finite value at %v bytes", cluster, ioSizeBytes)
	}
	if observed(sn) {
		out.Current = apiv1.CurrentMix{ReadRatio: sn.Observed.ReadRatio, IOSizeBytes: sn.Observed.IOSizeBytes, IOPS: sn.Observed.IOPS}
		if sn.HasCapacityAtMix && finite(sn.CapacityAtMix.MaxTotalIOPS) {
			out.Current.MaxIOPS = sn.CapacityAtMix.MaxTotalIOPS
		}
	}
	withClassSizes(&out.Current, sn)
	return out, nil
}

// finite reports whether every v is a number JSON can carry.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// observed reports whether the snapshot has an observed mix whose numbers
// are all finite (the source is outside storcast: a broken exporter can
// send anything).
func observed(sn *engine.Snapshot) bool {
	o := sn.Observed
	return sn.HasObserved && finite(o.ReadIOPS, o.WriteIOPS, o.IOPS, o.ReadRatio, o.ReadSizeBytes, o.WriteSizeBytes, o.IOSizeBytes)
}

// ptr returns &v, or nil (JSON null) where v is not finite.
func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// LatencyCurve implements ui.Provider.
func (s *Service) LatencyCurve(ctx context.Context, cluster string) (apiv1.LatencyCurve, error) {
	sn, err := s.snapshot(cluster)
	if err != nil {
		return apiv1.LatencyCurve{}, err
	}
	if sn.Latency() == nil || !sn.Outlook.HasLatency {
		return apiv1.LatencyCurve{}, unavailable("cluster %q: no latency model fitted yet", cluster)
	}
	if !finite(sn.SLOSeconds) {
		return apiv1.LatencyCurve{}, unavailable("cluster %q: no finite latency SLO", cluster)
	}
	k := sn.Outlook.LatencyKnee
	out := apiv1.LatencyCurve{
		Cluster: cluster, SLOSeconds: sn.SLOSeconds, Latency: sn.LatencyKind,
		KneeIOPS: apiv1.Band{Lower: ptr(k.Lower), Mean: ptr(k.Mean), Upper: ptr(k.Upper)},
		Stale:    stale(sn, sn.LatencyServed()),
	}
	out.Points, out.Observed = []apiv1.LatencyPoint{}, []apiv1.ObservedLatency{}
	for _, o := range sn.ObservedLatencies {
		if finite(o.IOPS, o.LatencySeconds) {
			out.Observed = append(out.Observed, o)
		}
	}
	for _, p := range sn.Latency().Curve() {
		// +Inf upper: the cluster may be saturated at that load (null).
		if finite(p.IOPS, p.Lower, p.Mean) && (finite(p.Upper) || math.IsInf(p.Upper, 1)) {
			out.Points = append(out.Points, apiv1.LatencyPoint{IOPS: p.IOPS, Lower: p.Lower, Mean: p.Mean, Upper: ptr(p.Upper)})
		}
	}
	return out, nil
}

// Forecast series.
var forecastUnits = map[string]string{"iops": "iops", "max_iops": "iops", "headroom_ratio": "ratio", "utilization_ratio": "ratio"}

// cancelled is the error of a request whose client has gone or whose
// deadline has passed.
func cancelled(ctx context.Context) error {
	return &Error{Type: apiv1.ErrUnavailable, Msg: "request cancelled: " + context.Cause(ctx).Error()}
}

// Forecast answers /api/v1/forecast over [start, end] (Unix seconds) at
// step seconds. The work is bounded by apiv1.MaxForecastPoints and stops
// when ctx is done. Times where the model has no finite value are left out.
func (s *Service) Forecast(ctx context.Context, cluster, series string, start, end, step float64) (apiv1.Forecast, error) {
	sn, err := s.snapshot(cluster)
	if err != nil {
		return apiv1.Forecast{}, err
	}
	unit, ok := forecastUnits[series]
	if !ok {
		return apiv1.Forecast{}, apiv1.BadParam("series", "unknown series %q (want iops, max_iops, headroom_ratio or utilization_ratio)", textcut.Cut(series, 64))
	}
	n, err := apiv1.CheckForecastRange(start, end, step, float64(time.Now().UnixMilli())/1e3)
	if err != nil {
		return apiv1.Forecast{}, err
	}
	if series != "max_iops" && sn.Trend() == nil {
		return apiv1.Forecast{}, unavailable("cluster %q: no demand trend fitted yet", cluster)
	}
	maxIOPS := sn.CapacityAtMix.MaxTotalIOPS
	if series != "iops" && (!sn.HasCapacityAtMix || !finite(maxIOPS) || !(maxIOPS > 0)) {
		return apiv1.Forecast{}, unavailable("cluster %q: no capacity at the current mix yet", cluster)
	}
	// Utilization is the frontier's U at today's mix, as on /metrics (with
	// read/write interference it is not demand/max IOPS).
	utilization, ok := sn.UtilizationAxis(sn.Observed, sn.HasObserved)
	if series == "utilization_ratio" && !ok {
		return apiv1.Forecast{}, unavailable("cluster %q: no capacity at the current mix yet", cluster)
	}
	conv := func(v float64) float64 {
		switch series {
		case "utilization_ratio":
			return utilization(math.Max(v, 0)) // U rises with load from 0 only
		case "headroom_ratio":
			return 1 - v/maxIOPS
		}
		return v
	}
	out := apiv1.Forecast{Cluster: cluster, Series: series, Unit: unit, Points: make([]apiv1.ForecastPoint, 0, n), Observed: []apiv1.ForecastPoint{}}
	// t from the index: t += step stops moving once step is below the
	// spacing of floats near t.
	for i := 0; i < n; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return apiv1.Forecast{}, cancelled(ctx)
		}
		t := start + float64(i)*step
		if series == "max_iops" {
			out.Points = append(out.Points, apiv1.ForecastPoint{T: t, Value: maxIOPS, Lower: maxIOPS, Upper: maxIOPS})
			continue
		}
		b := sn.Trend().At(t)
		v, lo, hi := conv(b.Mean), conv(b.Lower), conv(b.Upper)
		if lo > hi {
			lo, hi = hi, lo
		}
		if finite(v, lo, hi) {
			out.Points = append(out.Points, apiv1.ForecastPoint{T: t, Value: v, Lower: lo, Upper: hi})
		}
	}
	// Max IOPS has no history (it is today's capacity at today's mix).
	for i, p := range sn.History {
		if i%1024 == 0 && ctx.Err() != nil {
			return apiv1.Forecast{}, cancelled(ctx)
		}
		if series == "max_iops" || !(p.T >= start && p.T <= end) {
			continue
		}
		if v := conv(p.Value); finite(v) {
			out.Observed = append(out.Observed, apiv1.ForecastPoint{T: p.T, Value: v, Lower: v, Upper: v})
		}
	}
	// Each series is as fresh as the models it reads: demand the trend,
	// max IOPS the capacity model, the ratios both.
	switch series {
	case "iops":
		out.Stale = stale(sn, models.Trend)
	case "max_iops":
		out.Stale = stale(sn, models.Conservation)
	default:
		out.Stale = stale(sn, models.Trend) || stale(sn, models.Conservation)
	}
	return out, nil
}

// WhatIf answers POST /api/v1/whatif.
func (s *Service) WhatIf(req apiv1.WhatIfRequest) (apiv1.WhatIfResult, error) {
	sn, err := s.snapshot(req.Cluster)
	if err != nil {
		return apiv1.WhatIfResult{}, err
	}
	if err := apiv1.CheckWhatIf(req); err != nil {
		return apiv1.WhatIfResult{}, err
	}
	if sn.Capacity() == nil || !observed(sn) {
		return apiv1.WhatIfResult{}, unavailable("cluster %q: no capacity model or observed mix yet", req.Cluster)
	}
	o := sn.Observed
	if !(o.IOSizeBytes > 0) && (len(req.IOSizes) == 0 || req.ReadRatio == nil) {
		return apiv1.WhatIfResult{}, unavailable("cluster %q: idle with no observed mix yet; give readRatio and ioSizes", req.Cluster)
	}
	iops := o.IOPS + req.ExtraIOPS
	// An idle cluster asked about as it is (no extra load): the capacity at
	// the mix with nothing used, as /metrics serves it, not an error about
	// an extraIops the client did not send.
	idle := iops == 0 && req.ExtraIOPS == 0
	if iops <= 0 && !idle {
		return apiv1.WhatIfResult{}, apiv1.BadParam("extraIops", "leaves %v IOPS; the workload must be positive", iops)
	}
	mixIOPS := iops // the classes' rates: 1 op/s for the mix of an idle cluster
	if idle {
		mixIOPS = 1
	}
	rr := o.ReadRatio
	if req.ReadRatio != nil {
		rr = *req.ReadRatio
	}
	var classes []conservation.OpClass
	if len(req.IOSizes) == 0 {
		w := o
		w.ReadIOPS, w.WriteIOPS = mixIOPS*rr, mixIOPS*(1-rr)
		classes = features.OpClasses(w)
	} else {
		for _, sz := range req.IOSizes {
			classes = append(classes,
				conservation.OpClass{Op: conservation.Read, IOSizeBytes: sz.Bytes, Rate: mixIOPS * rr * sz.Share},
				conservation.OpClass{Op: conservation.Write, IOSizeBytes: sz.Bytes, Rate: mixIOPS * (1 - rr) * sz.Share})
		}
	}
	res, err := sn.Capacity().Model().AtMix(classes)
	if err != nil {
		if errors.Is(err, conservation.ErrNoLoad) {
			return apiv1.WhatIfResult{}, apiv1.BadParam("ioSizes", "the workload has no operations")
		}
		return apiv1.WhatIfResult{}, &Error{Type: apiv1.ErrInternal, Msg: err.Error()}
	}
	// Capacity scales with the hosts serving IO (the conservation model's
	// capability is per cluster; more identical hosts add proportionally).
	scale := 1.0
	if req.HostsAdded > 0 {
		if sn.Hosts <= 0 {
			return apiv1.WhatIfResult{}, apiv1.BadParam("hostsAdded", "the cluster's host count is unknown (configure hosts)")
		}
		scale = float64(sn.Hosts+req.HostsAdded) / float64(sn.Hosts)
	}
	maxIOPS := res.MaxTotalIOPS * scale
	if !finite(maxIOPS) || !(maxIOPS > 0) {
		return apiv1.WhatIfResult{}, unavailable("cluster %q: the capacity model has no finite max IOPS for this workload", req.Cluster)
	}
	out := apiv1.WhatIfResult{
		Cluster: req.Cluster, IOPS: iops, MaxIOPS: maxIOPS, HeadroomRatio: 1 - iops/maxIOPS,
		Extrapolated: res.Extrapolated, Stale: stale(sn, models.Conservation),
	}
	if idle {
		out.LatencyNote = "no load: the cluster is idle"
		return out, nil
	}
	// Latency: the what-if regression where the workload is within the
	// utilization, read ratio and sizes the history held; beyond (or without it) the latency
	// model anchored to capacity. Past capacity neither gives a latency.
	at := res
	if scale != 1 {
		// More hosts: the frontier of a cluster s times larger at a load is
		// this one's at the load divided by s (its interference term, in
		// the square of the load, falls by s²).
		perHost := make([]conservation.OpClass, len(classes))
		for i, c := range classes {
			c.Rate /= scale
			perHost[i] = c
		}
		if at, err = sn.Capacity().Model().AtMix(perHost); err != nil {
			return apiv1.WhatIfResult{}, &Error{Type: apiv1.ErrInternal, Msg: err.Error()}
		}
	}
	// The frontier's U, which the latency is read at (with interference
	// it is not iops/max IOPS: below capacity it is less).
	out.UtilizationRatio = at.Utilization
	if at.Utilization >= 1 {
		out.LatencyNote = "at or past capacity: no finite latency"
		return out, nil
	}
	// The first model that answers gives the band; each that does not says
	// why in the note (a null latency with no reason reads as a fault).
	var b models.Band
	if wi := sn.WhatIfModel(); wi != nil {
		l := wi.Latency(whatIfWorkload(classes, iops), at)
		if l.Served {
			b, out.LatencyModel = l.Band, models.WhatIf+":"+wi.Winner().Name
			out.Stale = out.Stale || stale(sn, models.WhatIf)
		} else {
			out.LatencyNote = l.Reason
		}
	}
	if out.LatencyModel == "" {
		l := sn.Latency()
		if l == nil {
			out.LatencyNote = joinNote(out.LatencyNote, "no latency model fitted yet")
			return out, nil
		}
		// The capacity-anchored model at the workload's utilization of the
		// frontier (its axis is U: any mix); a model in IOPS (M-LISP) at
		// today's mix, at the same share of today's max as the load is of
		// its own (below).
		var ok bool
		var where string
		if ul, isU := l.(models.UtilizationLatency); isU {
			b, ok = ul.AtUtilization(at.Utilization)
			where = fmt.Sprintf("utilization %.2f", at.Utilization)
		} else {
			// Its curve is in IOPS at today's mix: read at the same share
			// of today's max as the what-if's load is of its own (at the
			// raw IOPS a write-heavy mix read as light as today's).
			load := iops / scale
			if sn.HasCapacityAtMix && sn.CapacityAtMix.MaxTotalIOPS > 0 {
				load = at.LoadRatio * sn.CapacityAtMix.MaxTotalIOPS
			}
			b, ok = l.At(load)
			where = fmt.Sprintf("%.0f IOPS at today's mix", load)
		}
		if !ok {
			out.LatencyNote = joinNote(out.LatencyNote, fmt.Sprintf("the %s latency model has no value at %s", sn.LatencyServed(), where))
			return out, nil
		}
		out.LatencyModel = sn.LatencyServed()
		out.Stale = out.Stale || stale(sn, sn.LatencyServed())
	}
	// WhatIfResult's contract, whichever model answered: at or past the
	// lower bound of capacity at the workload's mix the cluster may be
	// saturated and no finite latency bounds it (the regression, fitted on
	// the history's latencies, knows nothing of the capacity band). A lower
	// bound that is not positive says nothing, as in the queueing model's
	// band.
	if lower := at.MaxTotalIOPSLower; math.IsInf(b.Upper, 1) || (lower > 0 && at.CurrentIOPS >= lower) {
		b.Upper = math.Inf(1)
		out.LatencyNote = joinNote(out.LatencyNote, apiv1.MaySaturateNote)
	}
	out.LatencySeconds = apiv1.Band{Lower: ptr(b.Lower), Mean: ptr(b.Mean), Upper: ptr(b.Upper)}
	return out, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// whatIfWorkload is the mix of classes as an observation: read ratio and
// mean read and write sizes, weighted by operations.
func whatIfWorkload(classes []conservation.OpClass, iops float64) features.Observed {
	var r, w, rb, wb float64
	for _, c := range classes {
		if c.Op == conservation.Read {
			r, rb = r+c.Rate, rb+c.Rate*c.IOSizeBytes
		} else {
			w, wb = w+c.Rate, wb+c.Rate*c.IOSizeBytes
		}
	}
	o := features.Observed{ReadIOPS: r, WriteIOPS: w, IOPS: iops, IOSizeBytes: (rb + wb) / (r + w)}
	if r+w > 0 {
		o.ReadRatio = r / (r + w)
	}
	if r > 0 {
		o.ReadSizeBytes = rb / r
	}
	if w > 0 {
		o.WriteSizeBytes = wb / w
	}
	return o
}

// RuleSets answers GET /api/v1/rulesets: the advisor's answer for the
// current workload, with each rule set's description from the catalog.
func (s *Service) RuleSets(_ context.Context, cluster string) (apiv1.RuleSets, error) {
	sn, err := s.snapshot(cluster)
	if err != nil {
		return apiv1.RuleSets{}, err
	}
	a, ok := sn.Set[models.Advisor].(*models.AdvisorFit)
	switch {
	case !ok:
		return apiv1.RuleSets{}, unavailable("cluster %q: no rule-set advisor (set advisor.catalog_file, or its fit failed: see /api/v1/clusters)", cluster)
	case sn.RuleSets == nil:
		return apiv1.RuleSets{}, unavailable("cluster %q: no current workload to advise on (idle, or no observation yet)", cluster)
	case sn.RuleSets.Err != "":
		return apiv1.RuleSets{}, unavailable("cluster %q: %s", cluster, sn.RuleSets.Err)
	}
	desc := map[string]string{}
	for _, rs := range a.A.RuleSets {
		desc[rs.Name] = rs.Description
	}
	out := apiv1.RuleSets{Cluster: cluster, Recommended: sn.RuleSets.Recommended, Reason: sn.RuleSets.Reason, Stale: stale(sn, models.Advisor)}
	for _, p := range sn.RuleSets.Predictions {
		out.Predictions = append(out.Predictions, apiv1.RuleSetPrediction{
			RuleSet: p.RuleSet, Description: desc[p.RuleSet], BoostRatio: p.Boost, CVErrorRatio: p.CVError,
			RunNoiseRatio: p.RunNoise, Extrapolated: p.Extrapolated, Recommended: p.RuleSet == sn.RuleSets.Recommended,
		})
	}
	return out, nil
}
