package plugin

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/data"

	"github.com/storcast/storcast/exporter/apiv1"
)

// grafanaUnit maps storcast's units to Grafana's unit ids.
func grafanaUnit(u string) string {
	switch u {
	case "ratio":
		return "percentunit"
	case "iops":
		return "iops"
	case "seconds":
		return "s"
	}
	return u
}

// Custom field config of the band: no line for either bound, upper filled
// down to lower, bounds kept out of the legend.
func bandLowerConfig(name, unit string) *data.FieldConfig {
	return &data.FieldConfig{DisplayNameFromDS: name, Unit: unit, Custom: map[string]any{
		"lineWidth": 0, "fillOpacity": 0, "hideFrom": map[string]bool{"legend": true, "tooltip": false, "viz": false},
	}}
}

func bandUpperConfig(name, lowerName, unit string) *data.FieldConfig {
	return &data.FieldConfig{DisplayNameFromDS: name, Unit: unit, Custom: map[string]any{
		"lineWidth": 0, "fillOpacity": 20, "fillBelowTo": lowerName,
		"hideFrom": map[string]bool{"legend": true, "tooltip": false, "viz": false},
	}}
}

func staleNotice(f *data.Frame, stale bool) {
	if stale {
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityWarning,
			Text: "storcast serves its last good fit: the model is stale (its source or fit is failing)"})
	}
}

// number formats v as a person writes it: 1048576, 0.25, never 1.048576e+06.
func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func unixTime(s float64) time.Time {
	return time.UnixMilli(int64(math.Round(s * 1000))).UTC()
}

// forecastFrames returns the forecast with its band, and what was observed.
// Fields carry labels (cluster, series, line) so that Grafana-managed alert
// rules see four distinct series.
func forecastFrames(fc apiv1.Forecast, executed string) data.Frames {
	n := len(fc.Points)
	ts, val, lo, hi := make([]time.Time, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, p := range fc.Points {
		ts[i], val[i], lo[i], hi[i] = unixTime(p.T), p.Value, p.Lower, p.Upper
	}
	unit := grafanaUnit(fc.Unit)
	labels := func(line string) data.Labels {
		return data.Labels{"cluster": fc.Cluster, "series": fc.Series, "line": line}
	}
	// The cluster in every display name: fillBelowTo finds the band's lower
	// field by display name, which must be unique across a panel's queries.
	name := fc.Cluster + " " + fc.Series
	f := data.NewFrame(name,
		data.NewField("time", nil, ts),
		data.NewField("value", labels("forecast"), val).SetConfig(&data.FieldConfig{DisplayNameFromDS: name, Unit: unit}),
		data.NewField("lower", labels("lower"), lo).SetConfig(bandLowerConfig(name+" lower", unit)),
		data.NewField("upper", labels("upper"), hi).SetConfig(bandUpperConfig(name+" upper", name+" lower", unit)),
	)
	f.Meta = &data.FrameMeta{
		Type:                   data.FrameTypeTimeSeriesWide,
		TypeVersion:            data.FrameTypeVersion{0, 1},
		PreferredVisualization: data.VisTypeGraph,
		ExecutedQueryString:    executed,
	}
	staleNotice(f, fc.Stale)

	m := len(fc.Observed)
	ots, oval := make([]time.Time, m), make([]float64, m)
	for i, p := range fc.Observed {
		ots[i], oval[i] = unixTime(p.T), p.Value
	}
	obs := data.NewFrame(name+" observed",
		data.NewField("time", nil, ots),
		data.NewField("value", labels("observed"), oval).SetConfig(&data.FieldConfig{DisplayNameFromDS: name + " observed", Unit: unit}),
	)
	obs.Meta = &data.FrameMeta{Type: data.FrameTypeTimeSeriesWide, TypeVersion: data.FrameTypeVersion{0, 1}}
	return data.Frames{f, obs}
}

// latencyFrames returns the predicted curve with its band, the observed
// windows and the SLO as a two-point line over the curve's IOPS range.
func latencyFrames(lc apiv1.LatencyCurve) data.Frames {
	n := len(lc.Points)
	x, mean, lo, hi := make([]float64, n), make([]float64, n), make([]float64, n), make([]*float64, n)
	maySaturate := math.NaN() // the lowest IOPS without an upper bound
	for i, p := range lc.Points {
		x[i], mean[i], lo[i], hi[i] = p.IOPS, p.Mean, p.Lower, p.Upper
		if p.Upper == nil && math.IsNaN(maySaturate) {
			maySaturate = p.IOPS
		}
	}
	curve := data.NewFrame("latency",
		data.NewField("iops", nil, x).SetConfig(&data.FieldConfig{DisplayNameFromDS: "IOPS", Unit: "iops"}),
		data.NewField("mean", nil, mean).SetConfig(&data.FieldConfig{DisplayNameFromDS: "latency", Unit: "s"}),
		data.NewField("lower", nil, lo).SetConfig(bandLowerConfig("latency lower", "s")),
		data.NewField("upper", nil, hi).SetConfig(bandUpperConfig("latency upper", "latency lower", "s")),
	)
	custom := map[string]any{"cluster": lc.Cluster, "latency": lc.Latency, "sloSeconds": lc.SLOSeconds, "kneeIops": lc.KneeIOPS}
	curve.Meta = &data.FrameMeta{Custom: custom, ExecutedQueryString: "GET /api/v1/latency_curve?cluster=" + lc.Cluster}
	if lc.KneeIOPS.Mean != nil {
		curve.AppendNotices(data.Notice{Severity: data.NoticeSeverityInfo, Text: kneeText(lc)})
	}
	if !math.IsNaN(maySaturate) {
		curve.AppendNotices(data.Notice{Severity: data.NoticeSeverityWarning, Text: fmt.Sprintf(
			"from %.0f IOPS the load is at or past the lower bound of capacity: the cluster may be saturated, so the latency band has no upper bound there", maySaturate)})
	}
	staleNotice(curve, lc.Stale)

	m := len(lc.Observed)
	ox, oy := make([]float64, m), make([]float64, m)
	for i, p := range lc.Observed {
		ox[i], oy[i] = p.IOPS, p.LatencySeconds
	}
	observed := data.NewFrame("observed",
		data.NewField("iops", nil, ox).SetConfig(&data.FieldConfig{DisplayNameFromDS: "observed IOPS", Unit: "iops"}),
		data.NewField("latency", nil, oy).SetConfig(&data.FieldConfig{DisplayNameFromDS: "observed latency", Unit: "s"}),
	)

	top := 0.0
	for _, v := range x {
		top = math.Max(top, v)
	}
	slo := data.NewFrame("slo",
		data.NewField("iops", nil, []float64{0, top}).SetConfig(&data.FieldConfig{Unit: "iops"}),
		data.NewField("slo", nil, []float64{lc.SLOSeconds, lc.SLOSeconds}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "SLO", Unit: "s"}),
	)
	return data.Frames{curve, observed, slo}
}

func kneeText(lc apiv1.LatencyCurve) string {
	s := fmt.Sprintf("%s latency crosses its %s ms SLO at %.0f IOPS", lc.Latency, number(lc.SLOSeconds*1000), *lc.KneeIOPS.Mean)
	if lc.KneeIOPS.Lower != nil && lc.KneeIOPS.Upper != nil {
		// The upper latency bound crosses the SLO first: its knee is the
		// lowest IOPS of the band.
		lo, hi := math.Min(*lc.KneeIOPS.Lower, *lc.KneeIOPS.Upper), math.Max(*lc.KneeIOPS.Lower, *lc.KneeIOPS.Upper)
		s += fmt.Sprintf(" (95%% band %.0f to %.0f)", lo, hi)
	}
	return s
}

// capacityFrames returns max IOPS against the read ratio, and today's mix as
// a one-point frame to mark on the curve.
func capacityFrames(cc apiv1.CapacityCurve) data.Frames {
	n := len(cc.Points)
	rr, maxI, maxR, maxW := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, p := range cc.Points {
		rr[i], maxI[i], maxR[i], maxW[i] = p.ReadRatio, p.MaxIOPS, p.MaxReadIOPS, p.MaxWriteIOPS
	}
	curve := data.NewFrame("capacity",
		data.NewField("readRatio", nil, rr).SetConfig(&data.FieldConfig{DisplayNameFromDS: "read ratio", Unit: "percentunit", Min: ptr(0), Max: ptr(1)}),
		data.NewField("maxIops", nil, maxI).SetConfig(&data.FieldConfig{DisplayNameFromDS: "max IOPS", Unit: "iops"}),
		data.NewField("maxReadIops", nil, maxR).SetConfig(&data.FieldConfig{DisplayNameFromDS: "max read IOPS", Unit: "iops"}),
		data.NewField("maxWriteIops", nil, maxW).SetConfig(&data.FieldConfig{DisplayNameFromDS: "max write IOPS", Unit: "iops"}),
	)
	curve.Meta = &data.FrameMeta{
		Custom:              map[string]any{"cluster": cc.Cluster, "ioSizeBytes": cc.IOSizeBytes},
		ExecutedQueryString: "GET /api/v1/capacity_curve?" + url.Values{"cluster": {cc.Cluster}, "io_size_bytes": {number(cc.IOSizeBytes)}}.Encode(),
	}
	if cc.Extrapolated {
		curve.AppendNotices(data.Notice{Severity: data.NoticeSeverityWarning,
			Text: "IO size " + number(cc.IOSizeBytes) + " bytes is outside the range the model was calibrated on: the curve is extrapolated"})
	}
	staleNotice(curve, cc.Stale)
	if !(cc.Current.IOSizeBytes > 0) {
		// No observed mix yet (the curve was asked at a given IO size):
		// no point to mark, rather than one at 0% reads and 0 IOPS.
		return data.Frames{curve}
	}
	var maxAtMix *float64 // null: no capacity at today's mix
	if m := cc.Current.MaxIOPS; m > 0 {
		maxAtMix = &m
	}
	current := data.NewFrame("current",
		data.NewField("readRatio", nil, []float64{cc.Current.ReadRatio}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "current read ratio", Unit: "percentunit"}),
		data.NewField("iops", nil, []float64{cc.Current.IOPS}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "current IOPS", Unit: "iops"}),
		data.NewField("maxIops", nil, []*float64{maxAtMix}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "max IOPS at current mix", Unit: "iops"}),
		data.NewField("ioSizeBytes", nil, []float64{cc.Current.IOSizeBytes}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "current IO size", Unit: "bytes"}),
	)
	return data.Frames{curve, current}
}

// whatIfFrames returns the answer as one row. Latency bounds are null where
// the model has none (the cluster would be saturated).
func whatIfFrames(req apiv1.WhatIfRequest, res apiv1.WhatIfResult) data.Frames {
	f := data.NewFrame("whatif",
		data.NewField("iops", nil, []float64{res.IOPS}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "IOPS", Unit: "iops"}),
		data.NewField("maxIops", nil, []float64{res.MaxIOPS}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "max IOPS", Unit: "iops"}),
		data.NewField("utilization", nil, []float64{res.UtilizationRatio}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "utilization", Unit: "percentunit"}),
		data.NewField("headroom", nil, []float64{res.HeadroomRatio}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "headroom", Unit: "percentunit"}),
		data.NewField("latencyLower", nil, []*float64{res.LatencySeconds.Lower}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "latency lower", Unit: "s"}),
		data.NewField("latencyMean", nil, []*float64{res.LatencySeconds.Mean}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "latency", Unit: "s"}),
		data.NewField("latencyUpper", nil, []*float64{res.LatencySeconds.Upper}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "latency upper", Unit: "s"}),
		data.NewField("latencyModel", nil, []string{res.LatencyModel}).SetConfig(&data.FieldConfig{DisplayNameFromDS: "latency model"}),
		data.NewField("extrapolated", nil, []bool{res.Extrapolated}),
		data.NewField("stale", nil, []bool{res.Stale}),
	)
	body, _ := json.Marshal(req)
	f.Meta = &data.FrameMeta{ExecutedQueryString: "POST /api/v1/whatif " + string(body)}
	switch {
	case res.LatencySeconds.Mean == nil && res.IOPS == 0:
		// An idle cluster asked about as it is: nothing to predict.
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityInfo, Text: "the cluster is idle: no load, no latency"})
	case res.LatencySeconds.Mean == nil && res.UtilizationRatio >= 1:
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityWarning,
			Text: "at this load the cluster is saturated: latency has no finite prediction"})
	case res.LatencySeconds.Mean == nil:
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityWarning,
			Text: "no latency model could answer for this workload: " + res.LatencyNote})
	case res.LatencySeconds.Upper == nil:
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityWarning,
			Text: "latency from " + res.LatencyModel + ", no upper bound: " + res.LatencyNote})
	case res.LatencyNote != "":
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityInfo,
			Text: "latency from " + res.LatencyModel + ": the what-if regression did not answer (" + res.LatencyNote + ")"})
	}
	if res.Extrapolated {
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityWarning,
			Text: "the workload is outside the range the model was calibrated on: the answer is extrapolated"})
	}
	staleNotice(f, res.Stale)
	return data.Frames{f}
}

// ruleSetFrames returns one row per rule set of the catalog: its predicted
// boost for today's workload, the cross-validated error, and whether it is
// the recommendation.
func ruleSetFrames(rs apiv1.RuleSets) data.Frames {
	n := len(rs.Predictions)
	names, descs := make([]string, n), make([]string, n)
	boost, cv, noise := make([]float64, n), make([]float64, n), make([]float64, n)
	rec, extra := make([]bool, n), make([]bool, n)
	for i, p := range rs.Predictions {
		names[i], descs[i], boost[i], cv[i], noise[i], rec[i], extra[i] = p.RuleSet, p.Description, p.BoostRatio, p.CVErrorRatio, p.RunNoiseRatio, p.Recommended, p.Extrapolated
	}
	f := data.NewFrame("rulesets",
		data.NewField("ruleSet", nil, names).SetConfig(&data.FieldConfig{DisplayNameFromDS: "rule set"}),
		data.NewField("boost", nil, boost).SetConfig(&data.FieldConfig{DisplayNameFromDS: "predicted boost", Unit: "percentunit"}),
		data.NewField("cvError", nil, cv).SetConfig(&data.FieldConfig{DisplayNameFromDS: "cross-validated error", Unit: "percentunit"}),
		data.NewField("runNoise", nil, noise).SetConfig(&data.FieldConfig{DisplayNameFromDS: "run-to-run noise", Unit: "percentunit"}),
		data.NewField("recommended", nil, rec),
		data.NewField("extrapolated", nil, extra),
		data.NewField("description", nil, descs),
	)
	f.Meta = &data.FrameMeta{ExecutedQueryString: "GET /api/v1/rulesets?cluster=" + rs.Cluster}
	switch {
	case rs.Recommended == "" && rs.Reason != "":
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityInfo, Text: "no rule set recommended: " + rs.Reason})
	case rs.Recommended == "":
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityInfo, Text: "no rule set is predicted to help today's workload"})
	case rs.Reason != "":
		f.AppendNotices(data.Notice{Severity: data.NoticeSeverityInfo, Text: rs.Reason})
	}
	staleNotice(f, rs.Stale)
	return data.Frames{f}
}

func ptr(v float64) *data.ConfFloat64 { c := data.ConfFloat64(v); return &c }
