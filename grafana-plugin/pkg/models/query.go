package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/prometheus/common/model"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/grafana-plugin/pkg/storcast"
	"github.com/storcast/storcast/internal/textcut"
)

// Query types, as the frontend sets DataQuery.queryType.
const (
	QueryForecast      = "forecast"
	QueryLatencyCurve  = "latencyCurve"
	QueryCapacityCurve = "capacityCurve"
	QueryWhatIf        = "whatIf"
	QueryRuleSets      = "ruleSets"
)

// QueryTypes lists the query types in the order the editor shows them.
var QueryTypes = []string{QueryForecast, QueryLatencyCurve, QueryCapacityCurve, QueryWhatIf, QueryRuleSets}

// ForecastSeries are the series storcast forecasts.
var ForecastSeries = []string{"iops", "max_iops", "headroom_ratio", "utilization_ratio"}

// MaxForecastPoints bounds the points one forecast query asks for, as
// Prometheus bounds a range query; the step grows to stay under it.
const MaxForecastPoints = apiv1.MaxForecastPoints

// maxEcho bounds the bytes of a query's field echoed in an error: the value
// comes from outside, and a dashboard or an alert rule can make it huge.
const maxEcho = 64

// echo is s as an error quotes it, cut to maxEcho bytes.
func echo[S ~string](s S) string { return strconv.Quote(textcut.Cut(string(s), maxEcho)) }

// Query is the JSON of one query, as the editor writes it.
type Query struct {
	QueryType string `json:"queryType"`
	Cluster   string `json:"cluster"`

	// forecast
	Series  Text `json:"series"`  // one of ForecastSeries; "iops" when empty
	Horizon Text `json:"horizon"` // extends the end past the dashboard's, e.g. "7d"
	Step    Text `json:"step"`    // minimum step, "5m" or seconds; Grafana's interval otherwise

	// capacity curve and what-if
	IOSize Text `json:"ioSize"` // "4KiB", 4096; what-if also "4KiB:70%,1MiB:30%"
	// capacity curve
	Points Text `json:"points"` // number of read ratios from 0 to 1
	// what-if
	ReadRatio  Text `json:"readRatio"` // 0..1 or "70%"; today's when empty
	ExtraIOPS  Text `json:"extraIops"`
	HostsAdded Text `json:"hostsAdded"`
}

// Text is a query field that may arrive as a JSON number or string (after
// template variables were replaced); it keeps the text, trimmed.
type Text string

// UnmarshalJSON accepts a string, a number or null.
func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*t = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Text(strings.TrimSpace(s))
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			// An UnmarshalTypeError, the one error encoding/json adds the
			// field's name to (ParseQuery words it); the value cut, as it
			// comes from outside.
			return &json.UnmarshalTypeError{Value: textcut.Cut(string(b), maxEcho), Type: reflect.TypeFor[Text]()}
		}
		*t = Text(n.String())
	}
	return nil
}

// ParseQuery decodes q's JSON; the query type comes from q.QueryType when
// set there, and is "forecast" when set nowhere.
func ParseQuery(q backend.DataQuery) (Query, error) {
	var m Query
	if len(q.JSON) > 0 {
		if err := json.Unmarshal(q.JSON, &m); err != nil {
			// A field of the wrong type: named, with what it holds.
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				want := te.Type.String()
				if te.Type == reflect.TypeFor[Text]() {
					want = "a number or a string"
				}
				return Query{}, fmt.Errorf("%s: want %s, got %s", te.Field, want, te.Value)
			}
			return Query{}, fmt.Errorf("query JSON: %v", err)
		}
	}
	if q.QueryType != "" {
		m.QueryType = q.QueryType
	}
	if m.QueryType == "" {
		m.QueryType = QueryForecast
	}
	m.Cluster = strings.TrimSpace(m.Cluster)
	switch m.QueryType {
	case QueryForecast, QueryLatencyCurve, QueryCapacityCurve, QueryWhatIf, QueryRuleSets:
	default:
		return Query{}, fmt.Errorf("queryType: unknown query type %s (want %s)", echo(m.QueryType), strings.Join(QueryTypes, ", "))
	}
	if m.Cluster == "" {
		return Query{}, fmt.Errorf("cluster: missing; pick one of storcast's clusters")
	}
	// storcast refuses a longer name (a what-if body or a URL past its
	// limits would come back as an error about neither).
	if len(m.Cluster) > apiv1.MaxClusterNameBytes {
		return Query{}, fmt.Errorf("cluster: %s is %d bytes; storcast takes at most %d", echo(m.Cluster), len(m.Cluster), apiv1.MaxClusterNameBytes)
	}
	if strings.Contains(m.Cluster, "$") {
		return Query{}, fmt.Errorf("cluster: %s still holds a template variable: it was not replaced before the query reached the plugin (is the variable defined?)", echo(m.Cluster))
	}
	return m, nil
}

// Forecast is a resolved forecast query.
type Forecast struct {
	Cluster, Series string
	Start, End      time.Time
	Step            time.Duration
}

// ForecastRequest resolves a forecast query over Grafana's time range tr
// with Grafana's interval: the end moves past tr.To by the horizon, the step
// is the larger of the query's step, the interval, one second, and what
// keeps the points under MaxForecastPoints. Start and end must lie within
// storcast's range of now (apiv1.MaxTimeOffsetSeconds); now is the plugin's
// clock, standing for storcast's.
func (m Query) ForecastRequest(tr backend.TimeRange, interval time.Duration, now time.Time) (Forecast, error) {
	f := Forecast{Cluster: m.Cluster, Series: string(m.Series), Start: tr.From, End: tr.To}
	if f.Series == "" {
		f.Series = "iops"
	}
	known := false
	for _, s := range ForecastSeries {
		known = known || s == f.Series
	}
	if !known {
		return Forecast{}, fmt.Errorf("series: unknown series %s (want %s)", echo(f.Series), strings.Join(ForecastSeries, ", "))
	}
	if m.Horizon != "" {
		h, err := model.ParseDuration(string(m.Horizon))
		if err != nil {
			// Not err: it quotes the whole value.
			return Forecast{}, fmt.Errorf("horizon: %s is not a duration like 7d or 12h", echo(m.Horizon))
		}
		// Its length is not bounded here: the end it gives is, below.
		f.End = f.End.Add(time.Duration(h))
	}
	if !f.End.After(f.Start) {
		return Forecast{}, fmt.Errorf("time range: end %s is not after start %s", f.End.Format(time.RFC3339), f.Start.Format(time.RFC3339))
	}
	f.Step = max(interval, time.Second)
	if m.Step != "" {
		// storcast's own parser: seconds ("300") or a Prometheus duration.
		s, err := apiv1.ParseDurationParam("step", string(m.Step), 0)
		if err != nil {
			return Forecast{}, err
		}
		f.Step = max(f.Step, durationOf(s))
	}
	// storcast answers floor(span/step) + 1 points: at most
	// MaxForecastPoints needs step > span/MaxForecastPoints, strictly
	// (compared by dividing the span: a step of more than about ten days
	// times MaxForecastPoints overflows a Duration).
	if span := f.End.Sub(f.Start); f.Step <= span/MaxForecastPoints {
		f.Step = (span / MaxForecastPoints).Truncate(time.Second) + time.Second
	}
	// storcast's own check, so that its refusal, naming start or end (which
	// the user never set), does not come back instead.
	_, err := apiv1.CheckForecastRange(storcast.UnixSeconds(f.Start), storcast.UnixSeconds(f.End), f.Step.Seconds(), storcast.UnixSeconds(now))
	var pe *apiv1.ParamError
	if err == nil {
		return f, nil
	} else if !errors.As(err, &pe) || (pe.Param != "start" && pe.Param != "end") {
		return Forecast{}, fmt.Errorf("time range: %v", err) // not reached: end > start, and the step was fitted above
	}
	beyond := fmt.Sprintf("more than %.0f days from now (%s), further than storcast answers",
		apiv1.MaxTimeOffsetSeconds/86400, now.UTC().Format(time.RFC3339))
	switch {
	case pe.Param == "start":
		return Forecast{}, fmt.Errorf("time range: from %s is %s", f.Start.UTC().Format(time.RFC3339), beyond)
	case m.Horizon != "":
		return Forecast{}, fmt.Errorf("horizon: %s after the time range's end %s ends the forecast at %s, %s",
			echo(m.Horizon), tr.To.UTC().Format(time.RFC3339), f.End.UTC().Format(time.RFC3339), beyond)
	}
	return Forecast{}, fmt.Errorf("time range: to %s is %s", f.End.UTC().Format(time.RFC3339), beyond)
}

// durationOf is sec seconds; past time.Duration's range (about 292 years,
// which storcast accepts: one point) it is the longest Duration, which gives
// the same single point.
func durationOf(sec float64) time.Duration {
	if sec >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(sec * float64(time.Second))
}

// Capacity is a resolved capacity-curve query.
type Capacity struct {
	Cluster     string
	IOSizeBytes float64 // 0: today's mean IO size
	Points      int     // 0: storcast's default
}

// CapacityRequest resolves a capacity-curve query.
func (m Query) CapacityRequest() (Capacity, error) {
	c := Capacity{Cluster: m.Cluster}
	if m.IOSize != "" {
		b, err := ParseBytes(string(m.IOSize))
		if err != nil {
			return Capacity{}, fmt.Errorf("ioSize: %v", err)
		}
		c.IOSizeBytes = b
	}
	if m.Points != "" {
		n, err := strconv.Atoi(string(m.Points))
		if err != nil || n < apiv1.MinCurvePoints || n > apiv1.MaxCurvePoints {
			return Capacity{}, fmt.Errorf("points: %s is not a whole number in %d..%d", echo(m.Points), apiv1.MinCurvePoints, apiv1.MaxCurvePoints)
		}
		c.Points = n
	}
	return c, nil
}

// WhatIfRequest resolves a what-if query into storcast's request.
func (m Query) WhatIfRequest() (apiv1.WhatIfRequest, error) {
	r := apiv1.WhatIfRequest{Cluster: m.Cluster}
	if m.ReadRatio != "" {
		v, err := ParseRatio(string(m.ReadRatio))
		if err != nil {
			return r, fmt.Errorf("readRatio: %v", err)
		}
		r.ReadRatio = &v
	}
	if m.IOSize != "" {
		mix, err := ParseIOSizeMix(string(m.IOSize))
		if err != nil {
			return r, fmt.Errorf("ioSize: %v", err)
		}
		r.IOSizes = mix
	}
	if m.ExtraIOPS != "" {
		v, err := strconv.ParseFloat(string(m.ExtraIOPS), 64)
		// Negative takes that much from today's load, as storcast allows
		// (it refuses a load left at or below zero itself).
		if err != nil || !(math.Abs(v) <= apiv1.MaxExtraIOPS) {
			lim := strconv.FormatFloat(apiv1.MaxExtraIOPS, 'f', -1, 64)
			return r, fmt.Errorf("extraIops: %s is not a number in -%s..%s", echo(m.ExtraIOPS), lim, lim)
		}
		r.ExtraIOPS = v
	}
	if m.HostsAdded != "" {
		n, err := strconv.Atoi(string(m.HostsAdded))
		if err != nil || n < 0 || n > apiv1.MaxHostsAdded {
			return r, fmt.Errorf("hostsAdded: %s is not a whole number in 0..%d", echo(m.HostsAdded), apiv1.MaxHostsAdded)
		}
		r.HostsAdded = n
	}
	return r, nil
}

// ParseRatio reads a ratio in 0..1, written as "0.7" or "70%".
func ParseRatio(s string) (float64, error) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s is not a ratio like 0.7 or 70%%", echo(s))
	}
	if pct {
		v /= 100
	}
	if v < 0 || v > 1 {
		if !pct && v <= 100 {
			return 0, fmt.Errorf("%s is outside 0..1 (write %g%% for a percentage)", echo(s), v)
		}
		return 0, fmt.Errorf("%s is outside 0..100%%", echo(s))
	}
	return v, nil
}

var byteUnits = []struct {
	suffix string
	factor float64
}{
	// Longest suffixes first. IO sizes are powers of two, so k and KB mean
	// KiB as in every storage tool's output.
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30},
	{"k", 1 << 10}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1},
}

// ParseBytes reads an IO size: "4096", "4k", "4KiB", "1MiB" (k, K, KB and
// KiB all mean 1024 bytes).
func ParseBytes(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, factor := s, 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, factor = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.factor
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s is not a size like 4096, 4KiB or 1MiB", echo(s))
	}
	v *= factor
	if v < apiv1.MinIOSizeBytes || v > apiv1.MaxIOSizeBytes {
		return 0, fmt.Errorf("%s is outside storcast's %d B..%d MiB", echo(s), apiv1.MinIOSizeBytes, apiv1.MaxIOSizeBytes>>20)
	}
	return v, nil
}

// ParseIOSizeMix reads one IO size ("64KiB") or a mix of sizes with their
// shares of operations ("4KiB:70%,1MiB:30%"), at most apiv1.MaxIOSizes of
// them; the shares must add up to 1.
func ParseIOSizeMix(s string) ([]apiv1.IOSizeShare, error) {
	parts := strings.Split(s, ",")
	if len(parts) > apiv1.MaxIOSizes {
		return nil, fmt.Errorf("%d sizes; storcast takes at most %d", len(parts), apiv1.MaxIOSizes)
	}
	if len(parts) == 1 && !strings.Contains(s, ":") {
		b, err := ParseBytes(s)
		if err != nil {
			return nil, err
		}
		return []apiv1.IOSizeShare{{Bytes: b, Share: 1}}, nil
	}
	var mix []apiv1.IOSizeShare
	sum := 0.0
	for _, p := range parts {
		size, share, found := strings.Cut(p, ":")
		if !found {
			return nil, fmt.Errorf("%s: each size of a mix needs its share, like 4KiB:70%%", echo(strings.TrimSpace(p)))
		}
		b, err := ParseBytes(size)
		if err != nil {
			return nil, err
		}
		r, err := ParseRatio(share)
		if err != nil {
			return nil, fmt.Errorf("share of %s: %v", textcut.Cut(strings.TrimSpace(size), maxEcho), err)
		}
		sum += r
		mix = append(mix, apiv1.IOSizeShare{Bytes: b, Share: r})
	}
	if math.Abs(sum-1) > 1e-6 {
		return nil, fmt.Errorf("%s: shares add up to %g, not 100%%", echo(s), math.Round(sum*1000)/10)
	}
	return mix, nil
}
