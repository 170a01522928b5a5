// Package storcasttest serves storcast's /api/v1 from known ground truth, for
// tests of the plugin that must not depend on a fitted model.
//
// The truth, per cluster, with t in seconds since the server's Now:
//
//	demand      iops(t)     = BaseIOPS + SlopeIOPSPerHour * t/3600
//	band        half-width  = 0.05*iops(t) + BandGrowthPerHour * max(t,0)/3600
//	max IOPS    maxIops(r)  = 1 / (r/ReadCapacity + (1-r)/WriteCapacity) at 4 KiB,
//	                          scaled by 4096/ioSize (a bandwidth-bound model)
//	latency     mean(x)     = 1ms / (1 - x/maxIops(current mix)), band ±10%
//
// It validates its parameters the way the API contract says (400 bad_data
// naming the parameter, 404 not_found for an unknown cluster, 503
// unavailable for a cluster whose models are not fitted), and can be made
// slow or to demand a bearer token.
package storcasttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
)

// Cluster is the ground truth of one simulated cluster.
type Cluster struct {
	Name              string
	Kind              string
	Fitted            bool // false: model endpoints answer 503 unavailable
	Stale             bool
	BaseIOPS          float64
	SlopeIOPSPerHour  float64
	BandGrowthPerHour float64
	ReadCapacity      float64 // max IOPS of a pure-read 4 KiB workload
	WriteCapacity     float64 // max IOPS of a pure-write 4 KiB workload
	ReadRatio         float64 // today's mix
	IOSizeBytes       float64
	SLOSeconds        float64
	// RuleSets is the advisor's answer; nil: the cluster has no catalog
	// (503 unavailable).
	RuleSets []apiv1.RuleSetPrediction
}

// DefaultClusters are two clusters with round numbers.
func DefaultClusters() []Cluster {
	return []Cluster{
		{Name: "ceph-a", Kind: "ceph", Fitted: true, BaseIOPS: 1000, SlopeIOPSPerHour: 10, BandGrowthPerHour: 2,
			ReadCapacity: 20000, WriteCapacity: 5000, ReadRatio: 0.75, IOSizeBytes: 4096, SLOSeconds: 0.010},
		{Name: "swift-b", Kind: "swift", Fitted: true, BaseIOPS: 400, SlopeIOPSPerHour: -1, BandGrowthPerHour: 1,
			ReadCapacity: 8000, WriteCapacity: 2000, ReadRatio: 0.9, IOSizeBytes: 65536, SLOSeconds: 0.050},
	}
}

// Options configure a Server.
type Options struct {
	Clusters []Cluster     // DefaultClusters() when nil
	Now      time.Time     // the server's "now"; time.Now() truncated to the second when zero
	Delay    time.Duration // wait this long (or until the client gives up) before each answer
	Token    string        // when set, requests must carry "Authorization: Bearer <Token>"
	Version  string        // build info version; "0.1.0-test" when empty
	// BasicAuthUser and BasicAuthPassword, when set, make requests carry
	// that basic auth, refused as exporter-toolkit's web config refuses
	// them (a plain-text 401 with WWW-Authenticate: Basic).
	BasicAuthUser, BasicAuthPassword string
	// TLS serves HTTPS with httptest's certificate (Server.Certificate).
	TLS bool
}

// Server is a running fake storcast.
type Server struct {
	*httptest.Server
	opts Options

	mu       sync.Mutex
	requests []*http.Request
}

// New starts a Server on 127.0.0.1; Close it when done.
func New(opts Options) *Server {
	if opts.Clusters == nil {
		opts.Clusters = DefaultClusters()
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now().Truncate(time.Second)
	}
	if opts.Version == "" {
		opts.Version = "0.1.0-test"
	}
	s := &Server{opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/status/buildinfo", s.buildInfo)
	mux.HandleFunc("GET /api/v1/clusters", s.clusters)
	mux.HandleFunc("GET /api/v1/forecast", s.forecast)
	mux.HandleFunc("GET /api/v1/latency_curve", s.latencyCurve)
	mux.HandleFunc("GET /api/v1/capacity_curve", s.capacityCurve)
	mux.HandleFunc("POST /api/v1/whatif", s.whatIf)
	mux.HandleFunc("GET /api/v1/rulesets", s.ruleSets)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, apiv1.ErrNotFound, "no endpoint "+r.Method+" "+r.URL.Path)
	})
	if opts.TLS {
		s.Server = httptest.NewTLSServer(s.wrap(mux))
	} else {
		s.Server = httptest.NewServer(s.wrap(mux))
	}
	return s
}

// Now is the server's notion of the present.
func (s *Server) Now() time.Time { return s.opts.Now }

// Cluster returns the truth of the named cluster.
func (s *Server) Cluster(name string) (Cluster, bool) {
	for _, c := range s.opts.Clusters {
		if c.Name == name {
			return c, true
		}
	}
	return Cluster{}, false
}

// Requests returns copies of the requests served so far.
func (s *Server) Requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests...)
}

func (s *Server) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(r.Context()))
		s.mu.Unlock()
		if s.opts.Delay > 0 {
			// Reading the body first lets net/http notice a client that
			// gives up (it watches the connection only once the body is read).
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			select {
			case <-time.After(s.opts.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if s.opts.BasicAuthUser != "" {
			if u, p, ok := r.BasicAuth(); !ok || u != s.opts.BasicAuthUser || p != s.opts.BasicAuthPassword {
				w.Header().Set("WWW-Authenticate", "Basic")
				http.Error(w, http.StatusText(http.StatusUnauthorized), http.StatusUnauthorized)
				return
			}
		}
		if s.opts.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.Token {
			fail(w, http.StatusUnauthorized, apiv1.ErrBadData, "missing or wrong bearer token")
			return
		}
		h.ServeHTTP(w, r)
	})
}

func ok(w http.ResponseWriter, data any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(apiv1.Envelope{Status: "success", Data: data})
}

func fail(w http.ResponseWriter, status int, errorType, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(apiv1.Envelope{Status: "error", ErrorType: errorType, Error: msg})
}

// cluster resolves the cluster parameter, answering the error itself.
func (s *Server) cluster(w http.ResponseWriter, name string) (Cluster, bool) {
	if name == "" {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, "cluster: missing")
		return Cluster{}, false
	}
	c, found := s.Cluster(name)
	if !found {
		fail(w, http.StatusNotFound, apiv1.ErrNotFound, fmt.Sprintf("cluster: unknown cluster %q", name))
		return Cluster{}, false
	}
	if !c.Fitted {
		fail(w, http.StatusServiceUnavailable, apiv1.ErrUnavailable, fmt.Sprintf("cluster %q: no model fitted yet", name))
		return Cluster{}, false
	}
	return c, true
}

func (s *Server) buildInfo(w http.ResponseWriter, _ *http.Request) {
	ok(w, apiv1.BuildInfo{Version: s.opts.Version, Revision: "test", GoVersion: "go"})
}

func (s *Server) clusters(w http.ResponseWriter, _ *http.Request) {
	out := make([]apiv1.Cluster, 0, len(s.opts.Clusters))
	for _, c := range s.opts.Clusters {
		models := map[string]apiv1.ModelStatus{}
		for _, m := range []string{"conservation", "insideout", "mlisp", "trend"} {
			st := apiv1.ModelStatus{Fitted: c.Fitted, Stale: c.Stale}
			if c.Fitted {
				st.LastFitUnix = float64(s.opts.Now.Unix())
				st.AccuracyRatio = 0.9
				st.TrainingSamples = 100
			}
			models[m] = st
		}
		out = append(out, apiv1.Cluster{Name: c.Name, Kind: c.Kind, Models: models})
	}
	ok(w, out)
}

// IOPS is the demand trend of c at t.
func (s *Server) IOPS(c Cluster, t time.Time) float64 {
	h := t.Sub(s.opts.Now).Hours()
	return c.BaseIOPS + c.SlopeIOPSPerHour*h
}

// HalfWidth is the half-width of the demand band of c at t.
func (s *Server) HalfWidth(c Cluster, t time.Time) float64 {
	h := math.Max(t.Sub(s.opts.Now).Hours(), 0)
	return 0.05*s.IOPS(c, t) + c.BandGrowthPerHour*h
}

// MaxIOPS is the capacity of c at read ratio r and IO size ioSize.
func MaxIOPS(c Cluster, r, ioSize float64) float64 {
	return 1 / (r/c.ReadCapacity + (1-r)/c.WriteCapacity) * 4096 / ioSize
}

func parseTime(name, v string) (time.Time, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return time.UnixMilli(int64(math.Round(f * 1000))), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%s: cannot parse %q as Unix seconds or RFC 3339", name, v)
}

func parseStep(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("step: %q is not a positive number of seconds", v)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("step: cannot parse %q as a positive duration", v)
	}
	return d, nil
}

func (s *Server) forecast(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c, found := s.cluster(w, q.Get("cluster"))
	if !found {
		return
	}
	series := q.Get("series")
	unit := map[string]string{"iops": "iops", "max_iops": "iops", "headroom_ratio": "ratio", "utilization_ratio": "ratio"}[series]
	if unit == "" {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, fmt.Sprintf("series: unknown series %q (want iops, max_iops, headroom_ratio or utilization_ratio)", series))
		return
	}
	start, err := parseTime("start", q.Get("start"))
	if err != nil {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, err.Error())
		return
	}
	end, err := parseTime("end", q.Get("end"))
	if err != nil {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, err.Error())
		return
	}
	step, err := parseStep(q.Get("step"))
	if err != nil {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, err.Error())
		return
	}
	if end.Before(start) {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, "end: before start")
		return
	}
	// floor(span/step) + 1 points, as storcast counts them.
	if n := end.Sub(start)/step + 1; n > apiv1.MaxForecastPoints {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, fmt.Sprintf("step: %d points exceed the limit of %d", n, apiv1.MaxForecastPoints))
		return
	}
	maxIOPS := MaxIOPS(c, c.ReadRatio, c.IOSizeBytes)
	value := func(t time.Time) (v, hw float64) {
		d, hwd := s.IOPS(c, t), s.HalfWidth(c, t)
		switch series {
		case "max_iops":
			return maxIOPS, 0.02 * maxIOPS
		case "utilization_ratio":
			return d / maxIOPS, hwd / maxIOPS
		case "headroom_ratio":
			return 1 - d/maxIOPS, hwd / maxIOPS
		}
		return d, hwd
	}
	out := apiv1.Forecast{Cluster: c.Name, Series: series, Unit: unit, Stale: c.Stale,
		Points: []apiv1.ForecastPoint{}, Observed: []apiv1.ForecastPoint{}}
	for t := start; !t.After(end); t = t.Add(step) {
		v, hw := value(t)
		ts := float64(t.UnixMilli()) / 1000
		out.Points = append(out.Points, apiv1.ForecastPoint{T: ts, Value: v, Lower: v - hw, Upper: v + hw})
		if !t.After(s.opts.Now) {
			out.Observed = append(out.Observed, apiv1.ForecastPoint{T: ts, Value: v, Lower: v, Upper: v})
		}
	}
	ok(w, out)
}

// CapacityLowerShare is the lower bound of the fake's capacity band, as a
// share of its max IOPS: from there the latency band has no upper bound.
const CapacityLowerShare = 0.9

func (s *Server) latencyCurve(w http.ResponseWriter, r *http.Request) {
	c, found := s.cluster(w, r.URL.Query().Get("cluster"))
	if !found {
		return
	}
	maxIOPS := MaxIOPS(c, c.ReadRatio, c.IOSizeBytes)
	out := apiv1.LatencyCurve{Cluster: c.Name, SLOSeconds: c.SLOSeconds, Latency: "op", Stale: c.Stale}
	for i := 0; i < 20; i++ {
		x := maxIOPS * float64(i) / 20
		m := 0.001 / (1 - x/maxIOPS)
		p := apiv1.LatencyPoint{IOPS: x, Lower: 0.9 * m, Mean: m}
		if x < CapacityLowerShare*maxIOPS { // past the capacity band's lower bound: no upper bound
			up := 1.1 * m
			p.Upper = &up
		}
		out.Points = append(out.Points, p)
	}
	for i := 1; i <= 5; i++ {
		x := c.BaseIOPS * float64(i) / 5
		out.Observed = append(out.Observed, apiv1.ObservedLatency{IOPS: x, LatencySeconds: 0.001 / (1 - x/maxIOPS)})
	}
	// Each bound crosses the SLO where bound(x) = SLO: x = max*(1 - k*1ms/SLO),
	// k 0.9 for the lower latency bound (the highest IOPS), 1.1 for the
	// upper (the lowest), as storcast's knee band is. The upper bound,
	// unbounded from the capacity band's lower bound, crosses there at the
	// latest.
	knee := func(k float64) *float64 { v := maxIOPS * (1 - k*0.001/c.SLOSeconds); return &v }
	upper := math.Min(*knee(1.1), CapacityLowerShare*maxIOPS)
	out.KneeIOPS = apiv1.Band{Lower: knee(0.9), Mean: knee(1), Upper: &upper}
	ok(w, out)
}

func (s *Server) ruleSets(w http.ResponseWriter, r *http.Request) {
	c, found := s.cluster(w, r.URL.Query().Get("cluster"))
	if !found {
		return
	}
	if c.RuleSets == nil {
		fail(w, http.StatusServiceUnavailable, apiv1.ErrUnavailable, fmt.Sprintf("cluster %q: no rule-set advisor (set advisor.catalog_file)", c.Name))
		return
	}
	out := apiv1.RuleSets{Cluster: c.Name, Stale: c.Stale, Predictions: c.RuleSets}
	for _, p := range c.RuleSets {
		if p.Recommended {
			out.Recommended = p.RuleSet
		}
	}
	ok(w, out)
}

func (s *Server) capacityCurve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c, found := s.cluster(w, q.Get("cluster"))
	if !found {
		return
	}
	size := c.IOSizeBytes
	if v := q.Get("io_size_bytes"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			fail(w, http.StatusBadRequest, apiv1.ErrBadData, fmt.Sprintf("io_size_bytes: %q is not a positive number", v))
			return
		}
		size = f
	}
	n := 21
	if v := q.Get("points"); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil || i < 2 || i > 1001 {
			fail(w, http.StatusBadRequest, apiv1.ErrBadData, fmt.Sprintf("points: %q is not an integer in 2..1001", v))
			return
		}
		n = i
	}
	out := apiv1.CapacityCurve{Cluster: c.Name, IOSizeBytes: size, Stale: c.Stale,
		Extrapolated: size < 512 || size > 4<<20}
	for i := 0; i < n; i++ {
		rr := float64(i) / float64(n-1)
		m := MaxIOPS(c, rr, size)
		out.Points = append(out.Points, apiv1.CapacityPoint{ReadRatio: rr, MaxIOPS: m, MaxReadIOPS: rr * m, MaxWriteIOPS: (1 - rr) * m})
	}
	out.Current = apiv1.CurrentMix{ReadRatio: c.ReadRatio, IOSizeBytes: c.IOSizeBytes, IOPS: c.BaseIOPS,
		MaxIOPS: MaxIOPS(c, c.ReadRatio, c.IOSizeBytes)}
	ok(w, out)
}

func (s *Server) whatIf(w http.ResponseWriter, r *http.Request) {
	var req apiv1.WhatIfRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, "body: "+err.Error())
		return
	}
	c, found := s.cluster(w, req.Cluster)
	if !found {
		return
	}
	rr := c.ReadRatio
	if req.ReadRatio != nil {
		if *req.ReadRatio < 0 || *req.ReadRatio > 1 {
			fail(w, http.StatusBadRequest, apiv1.ErrBadData, fmt.Sprintf("readRatio: %g is outside 0..1", *req.ReadRatio))
			return
		}
		rr = *req.ReadRatio
	}
	size := c.IOSizeBytes
	if len(req.IOSizes) > 0 {
		var sum, inv float64
		for i, sh := range req.IOSizes {
			if !(sh.Bytes > 0) || sh.Share < 0 {
				fail(w, http.StatusBadRequest, apiv1.ErrBadData, fmt.Sprintf("ioSizes[%d]: bytes must be > 0 and share >= 0", i))
				return
			}
			sum += sh.Share
			inv += sh.Share / sh.Bytes
		}
		if math.Abs(sum-1) > 1e-6 {
			fail(w, http.StatusBadRequest, apiv1.ErrBadData, fmt.Sprintf("ioSizes: shares sum to %g, not 1", sum))
			return
		}
		size = 1 / inv
	}
	// As storcast: extraIops within ±MaxExtraIOPS (negative takes load
	// away), a load left at or below zero refused, except an idle cluster
	// asked about as it is (its capacity, no latency).
	if req.HostsAdded < 0 || !(math.Abs(req.ExtraIOPS) <= apiv1.MaxExtraIOPS) {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, "hostsAdded must not be negative and extraIops must be within ±1e9")
		return
	}
	iops := c.BaseIOPS + req.ExtraIOPS
	idle := iops == 0 && req.ExtraIOPS == 0
	if iops <= 0 && !idle {
		fail(w, http.StatusBadRequest, apiv1.ErrBadData, fmt.Sprintf("extraIops: leaves %v IOPS; the workload must be positive", iops))
		return
	}
	// Hosts scale capacity linearly from a base of 10 hosts.
	maxIOPS := MaxIOPS(c, rr, size) * float64(10+req.HostsAdded) / 10
	u := iops / maxIOPS
	res := apiv1.WhatIfResult{Cluster: c.Name, IOPS: iops, MaxIOPS: maxIOPS, UtilizationRatio: u, HeadroomRatio: 1 - u,
		Extrapolated: size < 512 || size > 4<<20, Stale: c.Stale}
	if idle {
		res.LatencyNote = "no load: the cluster is idle"
		ok(w, res)
		return
	}
	if u < 1 {
		m := 0.001 / (1 - u)
		lo, hi := 0.9*m, 1.1*m
		res.LatencySeconds = apiv1.Band{Lower: &lo, Mean: &m, Upper: &hi}
		res.LatencyModel = "queueing"
		if u >= CapacityLowerShare {
			res.LatencySeconds.Upper = nil
			res.LatencyNote = apiv1.MaySaturateNote
		}
	}
	ok(w, res)
}

// Query returns r's URL query; a helper for assertions.
func Query(r *http.Request) url.Values { return r.URL.Query() }

// Path returns "METHOD /path" of r.
func Path(r *http.Request) string { return r.Method + " " + strings.TrimSuffix(r.URL.Path, "/") }
