package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/storcast/storcast/exporter/api"
	"github.com/storcast/storcast/exporter/apiv1"
)

// serverLimits bound what one client can hold of the HTTP server: a client
// that sends its headers or body slowly, never reads the answer, or idles on
// a kept-alive connection is cut off, no request is larger than the byte
// limits, and what all clients hold at once is bounded by InFlight.
type serverLimits struct {
	ReadHeader  time.Duration // to read the request headers
	Read        time.Duration // to read the whole request, body included
	Write       time.Duration // from the end of the headers to the end of the answer
	Idle        time.Duration // between requests on a kept-alive connection
	HeaderBytes int           // request line and headers
	BodyBytes   int64         // request body
	// InFlight is how many requests are answered at once (/metrics and the
	// liveness and readiness probes excepted); beyond it a request gets 503
	// at once, as node_exporter's --web.max-requests does for its /metrics.
	// Each answer holds up to an 11000-point forecast (~1.5 MB with its
	// JSON) until the client has read it, so without a bound slow readers
	// would hold memory in proportion to their number. 0: no bound.
	InFlight int
}

// defaultServerLimits: every storcast answer is computed from a snapshot in
// memory (the largest, an 11000-point forecast of ~1.2 MB, takes
// milliseconds), and no request body is larger than a what-if's few hundred
// bytes. The limits leave two orders of magnitude to slow networks.
var defaultServerLimits = serverLimits{
	ReadHeader:  10 * time.Second,
	Read:        30 * time.Second,
	Write:       60 * time.Second,
	Idle:        2 * time.Minute,
	HeaderBytes: 64 << 10,
	BodyBytes:   1 << 20,
	// A Grafana backend sends at most 4 queries at once per panel refresh
	// (the plugin's fan-out); 64 serves 16 such at once, ~100 MB at most.
	InFlight: 64,
}

// newHTTPServer returns the server of h with the limits l.
func newHTTPServer(h http.Handler, l serverLimits) *http.Server {
	return &http.Server{
		Handler:           http.MaxBytesHandler(limitInFlight(h, l.InFlight), l.BodyBytes),
		ReadHeaderTimeout: l.ReadHeader,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
		MaxHeaderBytes:    l.HeaderBytes,
	}
}

// limitInFlight answers 503 (with Retry-After; under /api/ in the API's
// envelope, errorType unavailable) to a request that would make more than n
// in progress; /metrics, /-/healthy and /-/ready pass always: a
// refused scrape would read as the exporter down (and leave gaps in every
// forecast series), a refused probe would get a busy instance restarted,
// and neither holds a large answer (/metrics is served from a cached body).
func limitInFlight(h http.Handler, n int) http.Handler {
	if n <= 0 {
		return h
	}
	slots := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" || r.URL.Path == "/-/healthy" || r.URL.Path == "/-/ready" {
			h.ServeHTTP(w, r)
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			h.ServeHTTP(w, r)
		default:
			msg := fmt.Sprintf("too many requests in progress (%d): retry", n)
			w.Header().Set("Retry-After", "1")
			if !strings.HasPrefix(r.URL.Path, "/api/") {
				http.Error(w, msg, http.StatusServiceUnavailable)
				return
			}
			// The API answers in its envelope, refusals included: a client
			// (the Grafana plugin) then reports "unavailable", not an
			// answer that is not storcast's.
			api.WriteError(w, &api.Error{Type: apiv1.ErrUnavailable, Msg: msg})
		}
	})
}
