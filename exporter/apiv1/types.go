package apiv1

// Envelope is the wrapper of every response.
type Envelope struct {
	Status    string `json:"status"` // "success" or "error"
	Data      any    `json:"data,omitempty"`
	ErrorType string `json:"errorType,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Error types, with the HTTP status they are sent with.
const (
	ErrBadData     = "bad_data"    // 400
	ErrNotFound    = "not_found"   // 404
	ErrUnavailable = "unavailable" // 503
	ErrInternal    = "internal"    // 500
)

// BuildInfo is returned by GET /api/v1/status/buildinfo.
type BuildInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	GoVersion string `json:"goVersion"`
}

// Cluster is one element of GET /api/v1/clusters.
type Cluster struct {
	Name   string                 `json:"name"`
	Kind   string                 `json:"kind"` // ceph, swift, generic
	Models map[string]ModelStatus `json:"models"`

	// The fields below are omitted while unknown (0 or empty).

	// DataAsOfUnix is the time of the observation the current figures
	// (IOPS now, the mix, the ETAs) are computed from.
	DataAsOfUnix float64 `json:"dataAsOf,omitempty"`
	// LastRefreshUnix is when the observed inputs were last fetched.
	LastRefreshUnix float64 `json:"lastRefresh,omitempty"`
	// LastFitUnix is the newest successful fit of any of the models.
	LastFitUnix float64 `json:"lastFit,omitempty"`
	// NextFitUnix is when the next scheduled fit is due: LastFitUnix plus
	// fit.interval. An accuracy trigger may refit earlier; nothing refits
	// while the query backend fails.
	NextFitUnix float64 `json:"nextFit,omitempty"`
	// SaturationETAs says when the demand trend's daily peaks reach each
	// limit, ordered by limit name.
	SaturationETAs []SaturationETA `json:"saturationEtas,omitempty"`
	// WarmingUp: the current figures come from a rate window that was not
	// full (the counters began, or resumed after a scrape gap, within it).
	WarmingUp bool `json:"warmingUp,omitempty"`
}

// SaturationETA is when the demand trend reaches one limit.
type SaturationETA struct {
	// Limit is max_iops (the capacity at the forecast mix) or latency_slo
	// (the IOPS where the latency's upper 95% bound crosses the SLO).
	Limit string `json:"limit"`
	// Seconds from DataAsOfUnix until the trend's daily peaks reach the
	// limit; 0 when it is already there (or latency is over its SLO: see
	// Reason), null when it does not within the horizon (a year).
	Seconds *float64 `json:"seconds"`
	// Band is the 95% band of Seconds; absent without the saturation
	// trend (the demand trend's line in IOPS has no band of its peaks).
	Band *ETABand `json:"band,omitempty"`
	// Reason says why Seconds is 0 when the observation is past the limit
	// already: ETAReasonSaturated (utilization at or past capacity; for
	// max_iops it goes first, a saturated cluster being usually over its
	// SLO too) or ETAReasonLatencyOverSLO (the observed latency is over its
	// SLO, which makes max_iops 0 too with headroom left). Absent otherwise,
	// a trend that reaches the limit now included.
	Reason string `json:"reason,omitempty"`
}

// Values of SaturationETA.Reason.
const (
	ETAReasonLatencyOverSLO = "latency_over_slo"
	ETAReasonSaturated      = "saturated"
)

// ETABand bounds a saturation ETA (95%): Early when the upper end of the
// demand trend's band of its daily peaks reaches the lower end of the
// limit's band (the capacity's over the forecast mix's; the latency knee's
// pessimistic end), Late when its lower end reaches the upper end of the
// limit's; in seconds from DataAsOfUnix, null when that end is not reached
// within the horizon. Early and Late are, in that order, the series
// storcast_saturation_eta_seconds_bound's bound="lower" and bound="upper"
// (named here for what they are in time).
type ETABand struct {
	Early *float64 `json:"early"`
	Late  *float64 `json:"late"`
}

// ModelStatus describes the state of one fitted model of a cluster.
// Model names: conservation, insideout, mlisp, queueing, trend, saturation,
// advisor.
type ModelStatus struct {
	Fitted        bool    `json:"fitted"`
	Stale         bool    `json:"stale"`
	LastFitUnix   float64 `json:"lastFit"`  // 0 when never fitted
	AccuracyRatio float64 `json:"accuracy"` // backtest accuracy, max(1-MAPE,0); 0 when not measured
	// AccuracyMeasured is false when the model has no backtest: conservation
	// from a calibration file (a benchmark, nothing to score it against) or a
	// fit whose backtest had too few points. AccuracyRatio is then 0.
	AccuracyMeasured bool   `json:"accuracyMeasured"`
	TrainingSamples  int    `json:"trainingSamples"` // samples in the last fit
	Error            string `json:"error,omitempty"` // last fit error, if any
	// Waiting, when set, says in words what a model that has too little
	// history yet waits for ("waiting for 19 more windows (about 19m)");
	// Error then holds the detail.
	Waiting string `json:"waiting,omitempty"`
	// Note says what a fitted model could not identify (a bound instead of
	// an estimate, say).
	Note string `json:"note,omitempty"`
}

// ForecastPoint is one point of a forecast series.
type ForecastPoint struct {
	T     float64 `json:"t"` // Unix seconds
	Value float64 `json:"value"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// Forecast is returned by
//
//	GET /api/v1/forecast?cluster=C&series=S&start=T0&end=T1&step=D
//
// series is one of: iops (the demand trend of observed total IOPS),
// max_iops, headroom_ratio, utilization_ratio. start/end are Unix seconds or
// RFC 3339, step is a duration ("5m") or seconds; see limits.go for their
// bounds. Points in the past carry the fitted trend; Observed holds what was
// actually seen in [start, now]. A time where the model has no finite value
// has no point.
type Forecast struct {
	Cluster  string          `json:"cluster"`
	Series   string          `json:"series"`
	Unit     string          `json:"unit"` // "iops", "ratio"
	Points   []ForecastPoint `json:"points"`
	Observed []ForecastPoint `json:"observed"` // Lower == Upper == Value
	Stale    bool            `json:"stale"`
}

// LatencyPoint is one point of the predicted latency-vs-IOPS curve.
type LatencyPoint struct {
	IOPS  float64 `json:"iops"`
	Lower float64 `json:"lower"` // seconds
	Mean  float64 `json:"mean"`
	// Upper is null where the load is at or past the lower bound of the
	// capacity band at the curve's mix: the cluster may be saturated there,
	// and no finite latency bounds it.
	Upper *float64 `json:"upper"`
}

// ObservedLatency is one observed (IOPS, latency) window.
type ObservedLatency struct {
	IOPS           float64 `json:"iops"`
	LatencySeconds float64 `json:"latencySeconds"`
}

// Band holds a value with its 95% band; a bound that does not exist (the
// upper band never crosses the SLO, say) is null in JSON (nil here).
type Band struct {
	Lower *float64 `json:"lower"`
	Mean  *float64 `json:"mean"`
	Upper *float64 `json:"upper"`
}

// LatencyCurve is returned by GET /api/v1/latency_curve?cluster=C.
type LatencyCurve struct {
	Cluster    string            `json:"cluster"`
	SLOSeconds float64           `json:"sloSeconds"`
	Latency    string            `json:"latency"`  // which latency: read, write, op
	KneeIOPS   Band              `json:"kneeIops"` // IOPS where each bound crosses the SLO
	Points     []LatencyPoint    `json:"points"`
	Observed   []ObservedLatency `json:"observed"`
	Stale      bool              `json:"stale"`
}

// CapacityPoint is max IOPS at one read ratio.
type CapacityPoint struct {
	ReadRatio    float64 `json:"readRatio"` // 0..1
	MaxIOPS      float64 `json:"maxIops"`
	MaxReadIOPS  float64 `json:"maxReadIops"`
	MaxWriteIOPS float64 `json:"maxWriteIops"`
}

// CurrentMix is where the cluster is now.
type CurrentMix struct {
	ReadRatio   float64 `json:"readRatio"`
	IOSizeBytes float64 `json:"ioSizeBytes"` // op-weighted mean IO size
	// ReadSizeBytes and WriteSizeBytes are the mean size of a read and of a
	// write; 0 when there are none (or the server predates them).
	ReadSizeBytes  float64 `json:"readSizeBytes,omitempty"`
	WriteSizeBytes float64 `json:"writeSizeBytes,omitempty"`
	IOPS           float64 `json:"iops"`
	MaxIOPS        float64 `json:"maxIops"`
}

// CapacityCurve is returned by
//
//	GET /api/v1/capacity_curve?cluster=C&io_size_bytes=4096&points=21
type CapacityCurve struct {
	Cluster      string          `json:"cluster"`
	IOSizeBytes  float64         `json:"ioSizeBytes"`
	Points       []CapacityPoint `json:"points"`
	Current      CurrentMix      `json:"current"`
	Extrapolated bool            `json:"extrapolated"` // IO size outside the calibrated range
	Stale        bool            `json:"stale"`
}

// IOSizeShare is one IO size of a workload and its share of operations.
type IOSizeShare struct {
	Bytes float64 `json:"bytes"`
	Share float64 `json:"share"` // share of operations, 0..1; shares sum to 1
}

// WhatIfRequest is the body of POST /api/v1/whatif. Zero values mean
// "as now": ReadRatio nil keeps today's read ratio, empty IOSizes keeps
// today's size mix.
type WhatIfRequest struct {
	Cluster    string        `json:"cluster"`
	ReadRatio  *float64      `json:"readRatio,omitempty"`
	IOSizes    []IOSizeShare `json:"ioSizes,omitempty"`
	ExtraIOPS  float64       `json:"extraIops,omitempty"`
	HostsAdded int           `json:"hostsAdded,omitempty"`
}

// WhatIfResult is the answer to a what-if request.
type WhatIfResult struct {
	Cluster string  `json:"cluster"`
	IOPS    float64 `json:"iops"` // today's IOPS plus ExtraIOPS
	MaxIOPS float64 `json:"maxIops"`
	// UtilizationRatio is the capacity frontier's U at the workload (the
	// axis the latency is read on; 1 at capacity); with read/write
	// interference it is below IOPS/MaxIOPS short of capacity.
	UtilizationRatio float64 `json:"utilizationRatio"`
	HeadroomRatio    float64 `json:"headroomRatio"` // 1 − IOPS/MaxIOPS
	LatencySeconds   Band    `json:"latencySeconds"`
	// LatencyModel names what gave the latency: "whatif:<learner>" (the
	// cross-validated regression of the history), "queueing" or "mlisp";
	// empty when none could.
	LatencyModel string `json:"latencyModel,omitempty"`
	// LatencyNote says why the what-if regression did not answer (past
	// the history's utilization, read ratio or sizes, past capacity, an
	// idle cluster asked about as it is), when it did not; why no latency
	// model answered at all (none fitted yet, or no value at the workload's
	// utilization), when none did; and why the band has no upper bound
	// (null) when it has none, whichever model answered: the load is at or
	// past the lower bound of capacity, so the cluster may be saturated.
	LatencyNote  string `json:"latencyNote,omitempty"`
	Extrapolated bool   `json:"extrapolated"`
	Stale        bool   `json:"stale"`
}

// MaySaturateNote is in LatencyNote when the band has no upper bound: the
// load is at or past the lower bound of capacity.
const MaySaturateNote = "at or past the lower bound of capacity: the cluster may be saturated, no upper latency bound"

// RuleSets is the answer of GET /api/v1/rulesets: the advisor's predicted
// throughput boost of each traffic-control rule set of the cluster's
// catalog for the current workload.
type RuleSets struct {
	Cluster string `json:"cluster"`
	// Recommended is the rule set with the highest predicted boost above
	// its own uncertainty (the larger of its CV error and its run noise),
	// an in-range prediction preferred to an extrapolated one not ahead by
	// that margin; empty when none clears it.
	Recommended string `json:"recommended,omitempty"`
	// Reason says why none is recommended, or why a higher extrapolated
	// prediction was passed over.
	Reason      string              `json:"reason,omitempty"`
	Predictions []RuleSetPrediction `json:"predictions"`
	Stale       bool                `json:"stale"`
}

// RuleSetPrediction is one rule set's predicted boost.
type RuleSetPrediction struct {
	RuleSet     string `json:"ruleSet"`
	Description string `json:"description,omitempty"`
	// BoostRatio is the predicted throughput with the rule set over the
	// throughput without, minus 1 (0.1 = +10%).
	BoostRatio float64 `json:"boostRatio"`
	// CVErrorRatio is the cross-validated mean absolute error of the boost
	// (0.03 = 3 points).
	CVErrorRatio float64 `json:"cvErrorRatio"`
	// RunNoiseRatio is the standard error run-to-run noise puts on a
	// measured boost of the rule set's catalog: no prediction is closer.
	RunNoiseRatio float64 `json:"runNoiseRatio"`
	// Extrapolated: the workload lies outside the rule set's experiments.
	Extrapolated bool `json:"extrapolated"`
	Recommended  bool `json:"recommended"`
}
