package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/internal/textcut"
)

// Handler returns the /api/v1 handler (mount it at "/api/v1/").
func (s *Service) Handler(log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	// allow holds each endpoint's methods, for the 405 of the catch-all
	// below (which ServeMux would answer 404 once a pattern without a
	// method matches the path).
	allow := map[string]string{}
	h := func(pattern string, f func(r *http.Request) (any, error)) {
		method, path, _ := strings.Cut(pattern, " ")
		if method == http.MethodGet {
			method += ", " + http.MethodHead
		}
		allow[path] = method
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
		size, err := apiv1.ParseFloatParam("io_size_bytes", r.FormValue("io_size_bytes"), 0)
		if err != nil {
			return nil, err
		}
		points, err := apiv1.ParseIntParam("points", r.FormValue("points"), 21)
		if err != nil {
			return nil, err
		}
		return s.CapacityCurve(r.Context(), r.FormValue("cluster"), size, points)
	})
	h("GET /api/v1/forecast", func(r *http.Request) (any, error) {
		now := float64(time.Now().UnixMilli()) / 1e3
		start, err := apiv1.ParseTimeParam("start", r.FormValue("start"), now-24*3600)
		if err != nil {
			return nil, err
		}
		end, err := apiv1.ParseTimeParam("end", r.FormValue("end"), now+7*24*3600)
		if err != nil {
			return nil, err
		}
		// The default step gives 251 points (NaN when start or end is
		// out of range: apiv1.CheckForecastRange names those first).
		step, err := apiv1.ParseDurationParam("step", r.FormValue("step"), math.Max((end-start)/250, apiv1.MinStepSeconds))
		if err != nil {
			return nil, err
		}
		return s.Forecast(r.Context(), r.FormValue("cluster"), r.FormValue("series"), start, end, step)
	})
	h("GET /api/v1/rulesets", func(r *http.Request) (any, error) { return s.RuleSets(r.Context(), r.FormValue("cluster")) })
	h("POST /api/v1/whatif", func(r *http.Request) (any, error) {
		req, err := apiv1.DecodeWhatIf(r.Body)
		if err != nil {
			return nil, err
		}
		return s.WhatIf(req)
	})
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		if methods, ok := allow[r.URL.Path]; ok {
			w.Header().Set("Allow", methods)
			write(w, log, nil, &Error{Type: apiv1.ErrBadData, status: http.StatusMethodNotAllowed,
				Msg: fmt.Sprintf("method: %s %s takes %s", r.Method, r.URL.Path, methods)})
			return
		}
		write(w, log, nil, &Error{Type: apiv1.ErrNotFound, Msg: fmt.Sprintf("path: no endpoint %s %s", r.Method, textcut.Cut(r.URL.Path, 200))})
	})
	return mux
}

// WriteError answers err in the API's envelope with its status code, for
// the HTTP server's own refusals of /api/ requests (too many in progress):
// a client of the API then reads every answer the same way.
func WriteError(w http.ResponseWriter, err *Error) { write(w, slog.Default(), nil, err) }

func write(w http.ResponseWriter, log *slog.Logger, data any, err error) {
	w.Header().Set("Content-Type", "application/json")
	env := apiv1.Envelope{Status: "success", Data: data}
	code := http.StatusOK
	if err != nil {
		var e *Error
		var pe *apiv1.ParamError
		switch {
		case errors.As(err, &e):
		case errors.As(err, &pe):
			e = &Error{Type: apiv1.ErrBadData, Msg: pe.Error()}
		default:
			e = &Error{Type: apiv1.ErrInternal, Msg: err.Error()}
		}
		env = apiv1.Envelope{Status: "error", ErrorType: e.Type, Error: e.Msg}
		code = map[string]int{apiv1.ErrBadData: 400, apiv1.ErrNotFound: 404, apiv1.ErrUnavailable: 503}[e.Type]
		if e.status != 0 {
			code = e.status
		}
		if code == 0 {
			code = 500
		}
	}
	b, merr := json.Marshal(env)
	if merr != nil {
		// Every float the service returns is checked finite; reaching this
		// is a bug, logged as one.
		log.Error("encoding API response", "err", merr)
		code = 500
		b, _ = json.Marshal(apiv1.Envelope{Status: "error", ErrorType: apiv1.ErrInternal, Error: merr.Error()})
	}
	w.WriteHeader(code)
	w.Write(b)
}
