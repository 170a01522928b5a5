package api

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/prometheus/common/version"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/ui"
	"github.com/storcast/storcast/forecaster/conservation"
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
}

func (e *Error) Error() string { return e.Msg }

func badData(param, format string, a ...any) error {
	return &Error{Type: apiv1.ErrBadData, Msg: param + ": " + fmt.Sprintf(format, a...)}
}

func unavailable(format string, a ...any) error {
	return &Error{Type: apiv1.ErrUnavailable, Msg: fmt.Sprintf(format, a...)}
}

// snapshot returns the cluster's snapshot or a bad_data/not_found error.
func (s *Service) snapshot(cluster string) (*engine.Snapshot, error) {
	if cluster == "" {
		return nil, badData("cluster", "required")
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
		c := apiv1.Cluster{Name: sn.Cluster, Kind: sn.Kind, Models: map[string]apiv1.ModelStatus{}}
		for k, v := range sn.Models {
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
	if math.IsNaN(ioSizeBytes) || math.IsInf(ioSizeBytes, 0) || ioSizeBytes < 0 {
		return apiv1.CapacityCurve{}, badData("io_size_bytes", "must be a finite number >= 0, got %v", ioSizeBytes)
	}
	if points < 2 || points > 1001 {
		return apiv1.CapacityCurve{}, badData("points", "must be between 2 and 1001, got %d", points)
	}
	if sn.Capacity() == nil {
		return apiv1.CapacityCurve{}, unavailable("cluster %q: no capacity model fitted yet", cluster)
	}
	if ioSizeBytes == 0 {
		if !sn.HasObserved {
			return apiv1.CapacityCurve{}, unavailable("cluster %q: no observed IO size yet; give io_size_bytes", cluster)
		}
		ioSizeBytes = sn.Observed.IOSizeBytes
	}
	pts, ext, err := sn.Capacity().Model().Curve(ioSizeBytes, conservation.ReadRatios(points))
	if err != nil {
		return apiv1.CapacityCurve{}, badData("io_size_bytes", "%v", err)
	}
	out := apiv1.CapacityCurve{Cluster: cluster, IOSizeBytes: ioSizeBytes, Extrapolated: ext, Stale: stale(sn, models.Conservation)}
	for _, p := range pts {
		out.Points = append(out.Points, apiv1.CapacityPoint{ReadRatio: p.ReadRatio, MaxIOPS: p.MaxIOPS, MaxReadIOPS: p.MaxReadIOPS, MaxWriteIOPS: p.MaxWriteIOPS})
	}
	if sn.HasObserved {
		out.Current = apiv1.CurrentMix{ReadRatio: sn.Observed.ReadRatio, IOSizeBytes: sn.Observed.IOSizeBytes, IOPS: sn.Observed.IOPS}
		if sn.HasCapacityAtMix {
			out.Current.MaxIOPS = sn.CapacityAtMix.MaxTotalIOPS
		}
	}
	withClassSizes(&out.Current, sn)
	return out, nil
}

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
	if sn.Latency() == nil {
		return apiv1.LatencyCurve{}, unavailable("cluster %q: no latency model fitted yet", cluster)
	}
	k := sn.Latency().Crossing(sn.SLOSeconds)
	out := apiv1.LatencyCurve{
		Cluster: cluster, SLOSeconds: sn.SLOSeconds, Latency: sn.LatencyKind,
		KneeIOPS: apiv1.Band{Lower: ptr(k.Lower), Mean: ptr(k.Mean), Upper: ptr(k.Upper)},
		Observed: sn.ObservedLatencies, Stale: stale(sn, models.MLISP),
	}
	if out.Observed == nil {
		out.Observed = []apiv1.ObservedLatency{}
	}
	for _, p := range sn.Latency().Curve() {
		out.Points = append(out.Points, apiv1.LatencyPoint{IOPS: p.IOPS, Lower: p.Lower, Mean: p.Mean, Upper: p.Upper})
	}
	return out, nil
}

// Forecast series.
var forecastUnits = map[string]string{"iops": "iops", "max_iops": "iops", "headroom_ratio": "ratio", "utilization_ratio": "ratio"}

// Forecast answers /api/v1/forecast over [start, end] (Unix seconds).
func (s *Service) Forecast(ctx context.Context, cluster, series string, start, end, step float64) (apiv1.Forecast, error) {
	sn, err := s.snapshot(cluster)
	if err != nil {
		return apiv1.Forecast{}, err
	}
	unit, ok := forecastUnits[series]
	if !ok {
		return apiv1.Forecast{}, badData("series", "unknown series %q (want iops, max_iops, headroom_ratio or utilization_ratio)", series)
	}
	if end < start {
		return apiv1.Forecast{}, badData("end", "before start")
	}
	if step <= 0 {
		return apiv1.Forecast{}, badData("step", "must be positive")
	}
	if n := (end-start)/step + 1; n > 11000 {
		return apiv1.Forecast{}, badData("step", "%.0f points; at most 11000, use a larger step", n)
	}
	if series != "max_iops" && sn.Trend() == nil {
		return apiv1.Forecast{}, unavailable("cluster %q: no demand trend fitted yet", cluster)
	}
	if series != "iops" && !sn.HasCapacityAtMix {
		return apiv1.Forecast{}, unavailable("cluster %q: no capacity at the current mix yet", cluster)
	}
	maxIOPS := sn.CapacityAtMix.MaxTotalIOPS
	conv := func(v float64) float64 {
		switch series {
		case "utilization_ratio":
			return v / maxIOPS
		case "headroom_ratio":
			return 1 - v/maxIOPS
		}
		return v
	}
	out := apiv1.Forecast{Cluster: cluster, Series: series, Unit: unit, Points: []apiv1.ForecastPoint{}, Observed: []apiv1.ForecastPoint{}}
	for t := start; t <= end; t += step {
		if series == "max_iops" {
			out.Points = append(out.Points, apiv1.ForecastPoint{T: t, Value: maxIOPS, Lower: maxIOPS, Upper: maxIOPS})
			continue
		}
		b := sn.Trend().At(t)
		lo, hi := conv(b.Lower), conv(b.Upper)
		if lo > hi {
			lo, hi = hi, lo
		}
		out.Points = append(out.Points, apiv1.ForecastPoint{T: t, Value: conv(b.Mean), Lower: lo, Upper: hi})
	}
	// Max IOPS has no history (it is today's capacity at today's mix).
	for _, p := range sn.History {
		if series == "max_iops" || p.T < start || p.T > end {
			continue
		}
		v := conv(p.Value)
		out.Observed = append(out.Observed, apiv1.ForecastPoint{T: p.T, Value: v, Lower: v, Upper: v})
	}
	model := models.Trend
	if series == "max_iops" {
		model = models.Conservation
	}
	out.Stale = stale(sn, model)
	return out, nil
}

// WhatIf answers POST /api/v1/whatif.
func (s *Service) WhatIf(req apiv1.WhatIfRequest) (apiv1.WhatIfResult, error) {
	sn, err := s.snapshot(req.Cluster)
	if err != nil {
		return apiv1.WhatIfResult{}, err
	}
	if req.ReadRatio != nil && (math.IsNaN(*req.ReadRatio) || *req.ReadRatio < 0 || *req.ReadRatio > 1) {
		return apiv1.WhatIfResult{}, badData("readRatio", "must be in [0, 1], got %v", *req.ReadRatio)
	}
	if math.IsNaN(req.ExtraIOPS) || math.IsInf(req.ExtraIOPS, 0) {
		return apiv1.WhatIfResult{}, badData("extraIops", "must be finite")
	}
	if req.HostsAdded < 0 {
		return apiv1.WhatIfResult{}, badData("hostsAdded", "must not be negative, got %d", req.HostsAdded)
	}
	var shareSum float64
	for i, sz := range req.IOSizes {
		if !(sz.Bytes > 0) || math.IsInf(sz.Bytes, 0) {
			return apiv1.WhatIfResult{}, badData(fmt.Sprintf("ioSizes[%d].bytes", i), "must be a finite number > 0, got %v", sz.Bytes)
		}
		if !(sz.Share >= 0 && sz.Share <= 1) {
			return apiv1.WhatIfResult{}, badData(fmt.Sprintf("ioSizes[%d].share", i), "must be in [0, 1], got %v", sz.Share)
		}
		shareSum += sz.Share
	}
	if len(req.IOSizes) > 0 && math.Abs(shareSum-1) > 1e-6 {
		return apiv1.WhatIfResult{}, badData("ioSizes", "shares sum to %v, want 1", shareSum)
	}
	if sn.Capacity() == nil || !sn.HasObserved {
		return apiv1.WhatIfResult{}, unavailable("cluster %q: no capacity model or observed mix yet", req.Cluster)
	}
	o := sn.Observed
	iops := o.IOPS + req.ExtraIOPS
	if iops <= 0 {
		return apiv1.WhatIfResult{}, badData("extraIops", "leaves %v IOPS; the workload must be positive", iops)
	}
	rr := o.ReadRatio
	if req.ReadRatio != nil {
		rr = *req.ReadRatio
	}
	var classes []conservation.OpClass
	if len(req.IOSizes) == 0 {
		w := o
		w.ReadIOPS, w.WriteIOPS = iops*rr, iops*(1-rr)
		classes = features.OpClasses(w)
	} else {
		for _, sz := range req.IOSizes {
			classes = append(classes,
				conservation.OpClass{Op: conservation.Read, IOSizeBytes: sz.Bytes, Rate: iops * rr * sz.Share},
				conservation.OpClass{Op: conservation.Write, IOSizeBytes: sz.Bytes, Rate: iops * (1 - rr) * sz.Share})
		}
	}
	res, err := sn.Capacity().Model().AtMix(classes)
	if err != nil {
		if errors.Is(err, conservation.ErrNoLoad) {
			return apiv1.WhatIfResult{}, badData("ioSizes", "the workload has no operations")
		}
		return apiv1.WhatIfResult{}, &Error{Type: apiv1.ErrInternal, Msg: err.Error()}
	}
	// Capacity scales with the hosts serving IO (the conservation model's
	// capability is per cluster; more identical hosts add proportionally).
	scale := 1.0
	if req.HostsAdded > 0 {
		if sn.Hosts <= 0 {
			return apiv1.WhatIfResult{}, badData("hostsAdded", "the cluster's host count is unknown (configure hosts)")
		}
		scale = float64(sn.Hosts+req.HostsAdded) / float64(sn.Hosts)
	}
	maxIOPS := res.MaxTotalIOPS * scale
	out := apiv1.WhatIfResult{
		Cluster: req.Cluster, IOPS: iops, MaxIOPS: maxIOPS,
		UtilizationRatio: iops / maxIOPS, HeadroomRatio: 1 - iops/maxIOPS,
		Extrapolated: res.Extrapolated, Stale: stale(sn, models.Conservation),
	}
	if sn.Latency() != nil {
		// Latency at the load per unit of capacity today.
		if b, ok := sn.Latency().At(iops / scale); ok {
			out.LatencySeconds = apiv1.Band{Lower: ptr(b.Lower), Mean: ptr(b.Mean), Upper: ptr(b.Upper)}
		}
		out.Stale = out.Stale || stale(sn, models.MLISP)
	}
	return out, nil
}
