package apiv1

// This file is the API's parameter contract: how a request's parameters are
// parsed and checked against the bounds in limits.go, and the error naming
// the one refused. storcast (exporter/api) and the Grafana plugin's fake
// (storcasttest) both call these functions, so a rule or message cannot
// differ between them. They are pure: the caller reads the request and keeps
// the order of the checks (syntax first, then the cluster lookup, then
// ranges, then whether a model is fitted).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/storcast/storcast/internal/textcut"
)

// ParamError is a request parameter the API refuses. It is answered
// bad_data (HTTP 400) with Error() as the envelope's error.
type ParamError struct {
	Param string // as the client names it: "step", "ioSizes[2].bytes", "body"
	Msg   string
}

// Error is "Param: Msg", the message a client shows.
func (e *ParamError) Error() string { return e.Param + ": " + e.Msg }

// BadParam is the ParamError of param, its message formatted.
func BadParam(param, format string, a ...any) error {
	return &ParamError{Param: param, Msg: fmt.Sprintf(format, a...)}
}

// ParseFloatParam parses the value of parameter name as a finite number; an
// empty value gives def.
func ParseFloatParam(name, value string, def float64) (float64, error) {
	if value == "" {
		return def, nil
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, BadParam(name, "%q is not a finite number", textcut.Cut(value, 64))
	}
	return v, nil
}

// ParseIntParam parses the value of parameter name as an int; an empty
// value gives def.
func ParseIntParam(name, value string, def int) (int, error) {
	if value == "" {
		return def, nil
	}
	v, err := strconv.Atoi(value)
	if errors.Is(err, strconv.ErrRange) {
		return 0, BadParam(name, "%q is out of range", textcut.Cut(value, 64))
	} else if err != nil {
		return 0, BadParam(name, "%q is not an integer", textcut.Cut(value, 64))
	}
	return v, nil
}

// ParseTimeParam parses the value of parameter name as Unix seconds or RFC
// 3339; an empty value gives def. The range is checked by
// CheckForecastRange.
func ParseTimeParam(name, value string, def float64) (float64, error) {
	if value == "" {
		return def, nil
	}
	if v, err := strconv.ParseFloat(value, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, BadParam(name, "%q is not a finite time", textcut.Cut(value, 64))
		}
		return v, nil
	}
	t, err := time.Parse(time.RFC3339Nano, value)
	if err != nil {
		return 0, BadParam(name, "%q is neither Unix seconds nor RFC 3339", textcut.Cut(value, 64))
	}
	return float64(t.UnixMilli()) / 1e3, nil
}

// ParseDurationParam parses the value of parameter name as seconds or a
// Prometheus duration ("5m", "1d"; not Go's "1.5h"); an empty value gives
// def. The range is checked by CheckForecastRange.
func ParseDurationParam(name, value string, def float64) (float64, error) {
	if value == "" {
		return def, nil
	}
	if v, err := strconv.ParseFloat(value, 64); err == nil {
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, BadParam(name, "%q is not a positive finite duration", textcut.Cut(value, 64))
		}
		return v, nil
	}
	d, err := model.ParseDuration(strings.TrimSpace(value))
	if err != nil || d <= 0 {
		return 0, BadParam(name, "%q is not a positive duration like 5m or 300", textcut.Cut(value, 64))
	}
	return time.Duration(d).Seconds(), nil
}

// CheckForecastRange checks a forecast's times against now (Unix seconds)
// and the point budget: start and end within MaxTimeOffsetSeconds of now,
// start <= end, step >= MinStepSeconds and at most MaxForecastPoints points,
// floor((end-start)/step) + 1. It returns the number of points.
func CheckForecastRange(start, end, step, now float64) (int, error) {
	for _, p := range []struct {
		name string
		v    float64
	}{{"start", start}, {"end", end}} {
		if math.IsNaN(p.v) || math.IsInf(p.v, 0) || math.Abs(p.v-now) > MaxTimeOffsetSeconds {
			// %.0f: %v prints a Unix time in exponent notation (1.7e+09).
			return 0, BadParam(p.name, "%.0f is not within %.0f days of now (%.0f)", p.v, MaxTimeOffsetSeconds/86400, now)
		}
	}
	if end < start {
		// Both are within range here: every digit, none in an exponent.
		return 0, BadParam("end", "%s is before start %s", strconv.FormatFloat(end, 'f', -1, 64), strconv.FormatFloat(start, 'f', -1, 64))
	}
	if math.IsNaN(step) || math.IsInf(step, 0) || step < MinStepSeconds {
		return 0, BadParam("step", "%v s is below the minimum of %d s", step, MinStepSeconds)
	}
	// Both operands are bounded: n is at most 2*MaxTimeOffsetSeconds+1.
	n := math.Floor((end-start)/step) + 1
	if n > MaxForecastPoints {
		return 0, BadParam("step", "%v s gives %.0f points; at most %d, use a step of at least %v s",
			step, n, MaxForecastPoints, math.Ceil((end-start)/(MaxForecastPoints-1)))
	}
	return int(n), nil
}

// CheckCapacityCurve checks a capacity curve's IO size (0: today's mean IO
// size) and number of points against their bounds.
func CheckCapacityCurve(ioSizeBytes float64, points int) error {
	if ioSizeBytes != 0 && !(ioSizeBytes >= MinIOSizeBytes && ioSizeBytes <= MaxIOSizeBytes) {
		return BadParam("io_size_bytes", "must be 0 (today's mean IO size) or in [%d, %d] bytes, got %s",
			MinIOSizeBytes, MaxIOSizeBytes, strconv.FormatFloat(ioSizeBytes, 'f', -1, 64))
	}
	if points < MinCurvePoints || points > MaxCurvePoints {
		return BadParam("points", "must be between %d and %d, got %d", MinCurvePoints, MaxCurvePoints, points)
	}
	return nil
}

// DecodeWhatIf reads one JSON what-if request of at most
// MaxRequestBodyBytes, with no unknown fields and nothing after it.
func DecodeWhatIf(body io.Reader) (WhatIfRequest, error) {
	var req WhatIfRequest
	b, err := io.ReadAll(io.LimitReader(body, MaxRequestBodyBytes+1))
	if err != nil {
		return req, BadParam("body", "reading: %v", err)
	}
	if len(b) > MaxRequestBodyBytes {
		return req, BadParam("body", "larger than %d bytes", MaxRequestBodyBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); errors.Is(err, io.EOF) {
		// No JSON value at all (an empty or blank body): the decoder's own
		// "EOF" says nothing of what was wanted.
		return req, BadParam("body", `empty; want a JSON what-if request like {"cluster":"..."}`)
	} else if err != nil {
		return req, BadParam("body", "%v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return req, BadParam("body", "data after the JSON object")
	}
	return req, nil
}

// CheckWhatIf checks a what-if request's fields against their bounds (the
// cluster is the caller's to look up, before).
func CheckWhatIf(req WhatIfRequest) error {
	if req.ReadRatio != nil && !(*req.ReadRatio >= 0 && *req.ReadRatio <= 1) {
		return BadParam("readRatio", "must be in [0, 1], got %v", *req.ReadRatio)
	}
	if !(math.Abs(req.ExtraIOPS) <= MaxExtraIOPS) {
		return BadParam("extraIops", "must be finite and within ±%g, got %v", MaxExtraIOPS, req.ExtraIOPS)
	}
	if req.HostsAdded < 0 || req.HostsAdded > MaxHostsAdded {
		return BadParam("hostsAdded", "must be in [0, %d], got %d", MaxHostsAdded, req.HostsAdded)
	}
	if len(req.IOSizes) > MaxIOSizes {
		return BadParam("ioSizes", "%d sizes; at most %d", len(req.IOSizes), MaxIOSizes)
	}
	var shareSum float64
	for i, sz := range req.IOSizes {
		if !(sz.Bytes >= MinIOSizeBytes && sz.Bytes <= MaxIOSizeBytes) {
			return BadParam(fmt.Sprintf("ioSizes[%d].bytes", i), "must be in [%d, %d], got %s", MinIOSizeBytes, MaxIOSizeBytes, strconv.FormatFloat(sz.Bytes, 'f', -1, 64))
		}
		if !(sz.Share >= 0 && sz.Share <= 1) {
			return BadParam(fmt.Sprintf("ioSizes[%d].share", i), "must be in [0, 1], got %v", sz.Share)
		}
		shareSum += sz.Share
	}
	if len(req.IOSizes) > 0 && math.Abs(shareSum-1) > 1e-6 {
		return BadParam("ioSizes", "shares sum to %v, want 1", shareSum)
	}
	return nil
}
