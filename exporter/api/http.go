package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"

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
		// The default step gives 251 points (NaN when start or end is
		// out of range: checkForecastRange names those first).
		step, err := durationParam(r, "step", math.Max((end-start)/250, apiv1.MinStepSeconds))
		if err != nil {
			return nil, err
		}
		return s.Forecast(r.Context(), r.FormValue("cluster"), r.FormValue("series"), start, end, step)
	})
	h("GET /api/v1/rulesets", func(r *http.Request) (any, error) { return s.RuleSets(r.Context(), r.FormValue("cluster")) })
	h("POST /api/v1/whatif", func(r *http.Request) (any, error) {
		req, err := decodeWhatIf(r.Body)
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

// decodeWhatIf reads one JSON what-if request of at most
// apiv1.MaxRequestBodyBytes, with no unknown fields and nothing after it.
func decodeWhatIf(body io.Reader) (apiv1.WhatIfRequest, error) {
	var req apiv1.WhatIfRequest
	b, err := io.ReadAll(io.LimitReader(body, apiv1.MaxRequestBodyBytes+1))
	if err != nil {
		return req, badData("body", "reading: %v", err)
	}
	if len(b) > apiv1.MaxRequestBodyBytes {
		return req, badData("body", "larger than %d bytes", apiv1.MaxRequestBodyBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); errors.Is(err, io.EOF) {
		// No JSON value at all (an empty or blank body): the decoder's own
		// "EOF" says nothing of what was wanted.
		return req, badData("body", `empty; want a JSON what-if request like {"cluster":"..."}`)
	} else if err != nil {
		return req, badData("body", "%v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return req, badData("body", "data after the JSON object")
	}
	return req, nil
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
		if !errors.As(err, &e) {
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

func floatParam(r *http.Request, name string, def float64) (float64, error) {
	s := r.FormValue(name)
	if s == "" {
		return def, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, badData(name, "%q is not a finite number", textcut.Cut(s, 64))
	}
	return v, nil
}

func intParam(r *http.Request, name string, def int) (int, error) {
	s := r.FormValue(name)
	if s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) {
		return 0, badData(name, "%q is out of range", textcut.Cut(s, 64))
	} else if err != nil {
		return 0, badData(name, "%q is not an integer", textcut.Cut(s, 64))
	}
	return v, nil
}

// timeParam parses Unix seconds or RFC 3339. The range is checked by the
// service (checkForecastRange).
func timeParam(r *http.Request, name string, def float64) (float64, error) {
	s := r.FormValue(name)
	if s == "" {
		return def, nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, badData(name, "%q is not a finite time", textcut.Cut(s, 64))
		}
		return v, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, badData(name, "%q is neither Unix seconds nor RFC 3339", textcut.Cut(s, 64))
	}
	return float64(t.UnixMilli()) / 1e3, nil
}

// durationParam parses a Prometheus duration ("5m") or seconds. The range
// is checked by the service (checkForecastRange).
func durationParam(r *http.Request, name string, def float64) (float64, error) {
	s := r.FormValue(name)
	if s == "" {
		return def, nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, badData(name, "%q is not a positive finite duration", textcut.Cut(s, 64))
		}
		return v, nil
	}
	d, err := model.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, badData(name, "%q is not a positive duration like 5m or 300", textcut.Cut(s, 64))
	}
	return time.Duration(d).Seconds(), nil
}
