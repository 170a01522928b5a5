package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/common/model"

	"github.com/storcast/storcast/exporter/apiv1"
)

// Handler returns the /api/v1 handler (mount it at "/api/v1/").
func (s *Service) Handler(log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	h := func(pattern string, f func(r *http.Request) (any, error)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			data, err := f(r)
			write(w, log, data, err)
		})
	}
	h("GET /api/v1/status/buildinfo", func(*http.Request) (any, error) { return s.BuildInfo(), nil })
	h("GET /api/v1/clusters", func(r *http.Request) (any, error) { return s.Clusters(r.Context()), nil })
	h("GET /api/v1/latency_curve", func(r *http.Request) (any, error) {
		return s.LatencyCurve(r.Context(), r.FormValue("cluster"))
	})
	h("GET /api/v1/capacity_curve", func(r *http.Request) (any, error) {
		size, err := floatParam(r, "io_size_bytes", 0)
		if err != nil {
			return nil, err
		}
		points, err := intParam(r, "points", 21)
		if err != nil {
			return nil, err
		}
		return s.CapacityCurve(r.Context(), r.FormValue("cluster"), size, points)
	})
	h("GET /api/v1/forecast", func(r *http.Request) (any, error) {
		now := float64(time.Now().UnixMilli()) / 1e3
		start, err := timeParam(r, "start", now-24*3600)
		if err != nil {
			return nil, err
		}
		end, err := timeParam(r, "end", now+7*24*3600)
		if err != nil {
			return nil, err
		}
		step, err := durationParam(r, "step", math.Max((end-start)/250, 1))
		if err != nil {
			return nil, err
		}
		return s.Forecast(r.Context(), r.FormValue("cluster"), r.FormValue("series"), start, end, step)
	})
	h("POST /api/v1/whatif", func(r *http.Request) (any, error) {
		var req apiv1.WhatIfRequest
		dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return nil, badData("body", "%v", err)
		}
		return s.WhatIf(req)
	})
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		write(w, log, nil, &Error{Type: apiv1.ErrNotFound, Msg: fmt.Sprintf("path: no endpoint %s %s", r.Method, r.URL.Path)})
	})
	return mux
}

func write(w http.ResponseWriter, log *slog.Logger, data any, err error) {
	w.Header().Set("Content-Type", "application/json")
	env := apiv1.Envelope{Status: "success", Data: data}
	code := http.StatusOK
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Type: apiv1.ErrInternal, Msg: err.Error()}
		}
		env = apiv1.Envelope{Status: "error", ErrorType: e.Type, Error: e.Msg}
		code = map[string]int{apiv1.ErrBadData: 400, apiv1.ErrNotFound: 404, apiv1.ErrUnavailable: 503}[e.Type]
		if code == 0 {
			code = 500
		}
	}
	b, merr := json.Marshal(env)
	if merr != nil {
		log.Error("encoding API response", "err", merr)
		code = 500
		b, _ = json.Marshal(apiv1.Envelope{Status: "error", ErrorType: apiv1.ErrInternal, Error: merr.Error()})
	}
	w.WriteHeader(code)
	w.Write(b)
}

func floatParam(r *http.Request, name string, def float64) (float64, error) {
	s := r.FormValue(name)
	if s == "" {
		return def, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, badData(name, "%q is not a finite number", s)
	}
	return v, nil
}

func intParam(r *http.Request, name string, def int) (int, error) {
	s := r.FormValue(name)
	if s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, badData(name, "%q is not an integer", s)
	}
	return v, nil
}

// timeParam parses Unix seconds or RFC 3339.
func timeParam(r *http.Request, name string, def float64) (float64, error) {
	s := r.FormValue(name)
	if s == "" {
		return def, nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, badData(name, "%q is neither Unix seconds nor RFC 3339", s)
	}
	return float64(t.UnixMilli()) / 1e3, nil
}

// durationParam parses a Prometheus duration ("5m") or seconds.
func durationParam(r *http.Request, name string, def float64) (float64, error) {
	s := r.FormValue(name)
	if s == "" {
		return def, nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 && !math.IsInf(v, 0) {
		return v, nil
	}
	d, err := model.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, badData(name, "%q is not a positive duration", s)
	}
	return time.Duration(d).Seconds(), nil
}
