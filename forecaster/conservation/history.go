package conservation

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// Window is one observation window of a cluster (e.g. 5 minutes of rates).
type Window struct {
	IOSizeBytes    float64 `json:"ioSizeBytes"`    // op-weighted mean IO size in the window
	ReadIOPS       float64 `json:"readIops"`       // observed read ops/s
	WriteIOPS      float64 `json:"writeIops"`      // observed write ops/s
	LatencySeconds float64 `json:"latencySeconds"` // mean op latency; 0 when unknown
	// Busy is an optional utilization signal in 0..1 (e.g. the busiest OSD
	// disk's io time ratio); 0 means unknown.
	Busy float64 `json:"busy,omitempty"`
}

// EstimateOptions tunes EstimateFromHistory. Zero values take the defaults.
type EstimateOptions struct {
	// LatencyFactor: a window is saturated when its latency is at least this
	// many times the band's low-load floor. Default 4 (an M/M/1 queue is
	// then at >= 75% utilization).
	LatencyFactor float64 `json:"latencyFactor"`
	// FloorQuantile: the latency floor of a band is this quantile of its
	// windows' latencies. Default 0.1.
	FloorQuantile float64 `json:"floorQuantile"`
	// BusyThreshold: a window with Busy >= this is saturated. Default 0.95.
	BusyThreshold float64 `json:"busyThreshold"`
	// MinSaturated saturated windows are needed per size band. Default 6.
	MinSaturated int `json:"minSaturated"`
	// MinReadRatioSpread: the saturated windows of a band must span read
	// ratios at least this far apart (max − min), or the capacity line is
	// not determined. Default 0.2.
	MinReadRatioSpread float64 `json:"minReadRatioSpread"`
	// QueueingCorrection takes a saturated window's utilization to be
	// 1 − floor/latency (the M/M/1 relation latency = floor/(1−U)) instead
	// of 1. It removes the low bias on open-loop traffic that queues like
	// M/M/1, and overestimates capacity where clients are closed-loop (fixed
	// queue depth: throughput sits at capacity while latency keeps growing).
	// Windows picked by Busy alone keep utilization 1.
	QueueingCorrection bool `json:"queueingCorrection"`
	// Interference also fits the read/write interference γ of each band:
	// the saturated windows then lie on a·r + b·w + c·r·w = 1, c = 4γab,
	// which is linear in (a, b, c) and fitted by least squares. It needs
	// saturated windows at three or more read ratios at least
	// MinReadRatioSpread/2 apart (two mixes and a pure one, or three
	// mixes); with fewer the band keeps the γ = 0 fit and says why in
	// BandFit.GammaError. A fitted band adds a
	// mixed point at 50% reads to the calibration, which reproduces γ.
	Interference bool `json:"interference"`
}

func (o EstimateOptions) withDefaults() EstimateOptions {
	if o.LatencyFactor <= 0 || !check.Finite(o.LatencyFactor) {
		o.LatencyFactor = 4
	}
	if o.FloorQuantile <= 0 || o.FloorQuantile >= 1 || !check.Finite(o.FloorQuantile) {
		o.FloorQuantile = 0.1
	}
	if o.BusyThreshold <= 0 || !check.Finite(o.BusyThreshold) {
		o.BusyThreshold = 0.95
	}
	if o.MinSaturated < 2 {
		o.MinSaturated = 6
	}
	if o.MinReadRatioSpread <= 0 || !check.Finite(o.MinReadRatioSpread) {
		o.MinReadRatioSpread = 0.2
	}
	return o
}

// BandFit reports how one size band was fitted, or why it was not.
type BandFit struct {
	IOSizeBytes  float64 `json:"ioSizeBytes"` // geometric mean size of the band's windows
	Windows      int     `json:"windows"`
	Saturated    int     `json:"saturated"`
	LatencyFloor float64 `json:"latencyFloorSeconds"`
	ReadRatioMin float64 `json:"readRatioMin"` // over saturated windows
	ReadRatioMax float64 `json:"readRatioMax"`
	RMSResidual  float64 `json:"rmsResidual"` // RMS of (U_i − 1) over saturated windows
	Fitted       bool    `json:"fitted"`
	Error        string  `json:"error,omitempty"`
	ReadIOPS     float64 `json:"readIops,omitempty"`
	WriteIOPS    float64 `json:"writeIops,omitempty"`
	// With EstimateOptions.Interference: the fitted γ and its standard
	// error (from the least-squares covariance, delta method), or why γ was
	// not fitted.
	GammaFitted bool    `json:"gammaFitted,omitempty"`
	Gamma       float64 `json:"gamma,omitempty"`
	GammaStdErr float64 `json:"gammaStdErr,omitempty"`
	GammaError  string  `json:"gammaError,omitempty"`
}

// Quality is the report of EstimateFromHistory.
type Quality struct {
	Windows   int       `json:"windows"`
	Saturated int       `json:"saturated"`
	Bands     []BandFit `json:"bands"`
}

// ErrNotIdentifiable is wrapped when no size band has saturated windows at
// two or more distinct read ratios.
var ErrNotIdentifiable = errors.New("capacity line not identifiable")

// EstimateFromHistory estimates calibration points from observed windows
// when no benchmark exists.
//
// Windows are grouped into size bands one octave wide (sizes within a factor
// √2 of a power of two). In each band, a window counts as saturated when its
// latency is at least LatencyFactor × the band's latency floor (the
// FloorQuantile of its latencies), or its Busy signal is at least
// BusyThreshold. Saturated windows lie on the capacity line
// T_read + f_rw T_write = C, i.e. with a = 1/T_read100, b = 1/T_write100,
//
//	a r_i + b w_i = 1   (r_i, w_i the window's read and write IOPS),
//
// which is fitted by least squares (the residual a r_i + b w_i − 1 is the
// window's utilization error, scale-free across bands). The line is only
// determined when the saturated windows span at least MinReadRatioSpread of
// read ratio; otherwise that band reports why it was skipped. The result
// needs at least one fitted band, else an error wrapping ErrNotIdentifiable.
//
// How far to trust it: windows picked by a latency rule are near, not at,
// capacity, so the estimate is biased low (by the mean headroom of the
// picked windows); see the README for the error against a synthetic truth.
// Prefer a benchmark calibration whenever one exists.
func EstimateFromHistory(windows []Window, opts EstimateOptions) (Calibration, Quality, error) {
	o := opts.withDefaults()
	keys, bands, err := sizeBands(windows)
	if err != nil {
		return Calibration{}, Quality{}, err
	}
	q := Quality{Windows: len(windows)}
	var cal Calibration
	for _, k := range keys {
		bf, p, sat := fitBand(bands[k], o)
		if bf.Fitted && o.Interference {
			var mp MixedPoint
			if bf, p, mp = fitBandInterference(bf, p, sat, o.MinReadRatioSpread/2); bf.GammaFitted {
				cal.Mixed = append(cal.Mixed, mp)
			}
		}
		q.Saturated += bf.Saturated
		q.Bands = append(q.Bands, bf)
		if bf.Fitted {
			cal.Points = append(cal.Points, p)
		}
	}
	if len(cal.Points) == 0 {
		msg := "no size band has enough saturated windows"
		for _, b := range q.Bands {
			msg += fmt.Sprintf("; %.0f bytes: %s", b.IOSizeBytes, b.Error)
		}
		return Calibration{}, q, fmt.Errorf("%w: %s", ErrNotIdentifiable, msg)
	}
	return cal, q, nil
}

// selectSaturated picks a band's saturated windows (latency at least
// LatencyFactor × the band's floor, or Busy at least BusyThreshold) with
// their target utilization, and fills the band's description.
func selectSaturated(ws []Window, o EstimateOptions) (BandFit, []satWindow) {
	var logSum float64
	lats := make([]float64, 0, len(ws))
	for _, w := range ws {
		logSum += math.Log(w.IOSizeBytes)
		if w.LatencySeconds > 0 {
			lats = append(lats, w.LatencySeconds)
		}
	}
	bf := BandFit{IOSizeBytes: math.Exp(logSum / float64(len(ws))), Windows: len(ws)}
	if len(lats) > 0 {
		sort.Float64s(lats)
		bf.LatencyFloor = lats[int(o.FloorQuantile*float64(len(lats)-1))]
	}
	bf.ReadRatioMin, bf.ReadRatioMax = 1, 0
	sat := make([]satWindow, 0, len(ws))
	for _, w := range ws {
		byLatency := bf.LatencyFloor > 0 && w.LatencySeconds >= o.LatencyFactor*bf.LatencyFloor
		if !byLatency && !(w.Busy > 0 && w.Busy >= o.BusyThreshold) {
			continue
		}
		u := 1.0
		if o.QueueingCorrection && byLatency {
			u = 1 - bf.LatencyFloor/w.LatencySeconds
		}
		sat = append(sat, satWindow{w.ReadIOPS, w.WriteIOPS, u})
		rho := w.ReadIOPS / (w.ReadIOPS + w.WriteIOPS)
		bf.ReadRatioMin = math.Min(bf.ReadRatioMin, rho)
		bf.ReadRatioMax = math.Max(bf.ReadRatioMax, rho)
	}
	bf.Saturated = len(sat)
	if len(sat) == 0 {
		bf.ReadRatioMin, bf.ReadRatioMax = 0, 0
	}
	return bf, sat
}

// sizeBands validates windows and groups those with load into octave size
// bands (sizes within a factor √2 of a power of two), keys ascending.
func sizeBands(windows []Window) ([]int, map[int][]Window, error) {
	if len(windows) == 0 {
		return nil, nil, inputError("windows", "empty")
	}
	for i, w := range windows {
		name := fmt.Sprintf("windows[%d]", i)
		if err := checkPositive(name+".ioSizeBytes", w.IOSizeBytes); err != nil {
			return nil, nil, err
		}
		for _, f := range []struct {
			n string
			v float64
		}{{".readIops", w.ReadIOPS}, {".writeIops", w.WriteIOPS}, {".latencySeconds", w.LatencySeconds}, {".busy", w.Busy}} {
			if !check.Finite(f.v) || f.v < 0 {
				return nil, nil, inputError(name+f.n, "must be a finite number >= 0, got %v", f.v)
			}
		}
	}
	bands := map[int][]Window{}
	for _, w := range windows {
		if w.ReadIOPS+w.WriteIOPS == 0 {
			continue
		}
		// A mean under a byte (ops that move no data, such as stats,
		// among a few that do) is the band of 1-byte IO: a calibration
		// point must be at least a byte (Validate).
		w.IOSizeBytes = math.Max(w.IOSizeBytes, 1)
		b := int(math.Round(math.Log2(w.IOSizeBytes)))
		bands[b] = append(bands[b], w)
	}
	keys := make([]int, 0, len(bands))
	for k := range bands {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys, bands, nil
}

func fitBand(ws []Window, o EstimateOptions) (BandFit, Point, []satWindow) {
	bf, sat := selectSaturated(ws, o)
	var srr, srw, sww, sr, sw float64
	for _, w := range sat {
		srr += w.r * w.r
		srw += w.r * w.w
		sww += w.w * w.w
		sr += w.r * w.u
		sw += w.w * w.u
	}
	switch {
	case len(sat) < o.MinSaturated:
		bf.Error = fmt.Sprintf("%d saturated windows, need %d", len(sat), o.MinSaturated)
		return bf, Point{}, nil
	case bf.ReadRatioMax-bf.ReadRatioMin < o.MinReadRatioSpread:
		bf.Error = fmt.Sprintf("saturated windows span read ratios %.2f..%.2f; need windows at >= 2 distinct read ratios at least %.2f apart to fit the capacity line",
			bf.ReadRatioMin, bf.ReadRatioMax, o.MinReadRatioSpread)
		return bf, Point{}, nil
	}
	// Normal equations of min Σ (a r + b w − u)², u the window's utilization
	// (1, or 1 − floor/latency with QueueingCorrection).
	det := srr*sww - srw*srw
	if det <= 1e-12*srr*sww {
		bf.Error = "saturated windows are collinear; need >= 2 distinct read ratios"
		return bf, Point{}, nil
	}
	a := (sr*sww - sw*srw) / det
	b := (sw*srr - sr*srw) / det
	if a <= 0 || b <= 0 || !check.Finite(1/a) || !check.Finite(1/b) {
		bf.Error = fmt.Sprintf("fitted capacity line is not physical (1/T_read100=%g, 1/T_write100=%g); the saturated windows do not follow conservation", a, b)
		return bf, Point{}, nil
	}
	var ss float64
	for _, w := range sat {
		d := a*w.r + b*w.w - w.u
		ss += d * d
	}
	bf.RMSResidual = math.Sqrt(ss / float64(len(sat)))
	bf.Fitted, bf.ReadIOPS, bf.WriteIOPS = true, 1/a, 1/b
	src := fmt.Sprintf("history: %d saturated of %d windows, read ratio %.2f..%.2f, rms utilization residual %.3f",
		bf.Saturated, bf.Windows, bf.ReadRatioMin, bf.ReadRatioMax, bf.RMSResidual)
	return bf, Point{IOSizeBytes: bf.IOSizeBytes, ReadIOPS: 1 / a, WriteIOPS: 1 / b, Source: src}, sat
}

// satWindow is a saturated window's read and write IOPS and its target
// utilization.
type satWindow struct{ r, w, u float64 }
