package main

import (
	"net/http"
	"time"
)

// serverLimits bound what one client can hold of the HTTP server: a client
// that sends its headers or body slowly, never reads the answer, or idles on
// a kept-alive connection is cut off, and no request is larger than the
// byte limits.
type serverLimits struct {
	ReadHeader  time.Duration // to read the request headers
	Read        time.Duration // to read the whole request, body included
	Write       time.Duration // from the end of the headers to the end of the answer
	Idle        time.Duration // between requests on a kept-alive connection
	HeaderBytes int           // request line and headers
	BodyBytes   int64         // request body
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
}

// newHTTPServer returns the server of h with the limits l.
func newHTTPServer(h http.Handler, l serverLimits) *http.Server {
	return &http.Server{
		Handler:           http.MaxBytesHandler(h, l.BodyBytes),
		ReadHeaderTimeout: l.ReadHeader,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
		MaxHeaderBytes:    l.HeaderBytes,
	}
}
