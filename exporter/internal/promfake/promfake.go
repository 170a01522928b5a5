// Package promfake is a fake Prometheus query API for tests: it answers
// /api/v1/query_range from a function of the query and the time, and can be
// switched into fault modes (down, slow, errors, NaN, empty, negative rates).
package promfake

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mode is a fault mode.
type Mode string

// Fault modes.
const (
	Healthy  Mode = "healthy"
	Down     Mode = "down"     // HTTP 503
	Refused  Mode = "refused"  // connection closed without an answer
	Slow     Mode = "slow"     // answers after Delay
	Error    Mode = "error"    // HTTP 422 execution error
	BadData  Mode = "bad_data" // HTTP 400 bad_data
	NaN      Mode = "nan"      // every value NaN
	Empty    Mode = "empty"    // no series
	Negative Mode = "negative" // negative rates (a broken counter query)
)

// Series is one series of an answer.
type Series struct {
	Labels map[string]string
	Value  func(t time.Time) float64 // NaN: no sample at t
}

// Server is the fake.
type Server struct {
	*httptest.Server
	// Answer returns the series of a query; nil: no series.
	Answer func(query string) []Series
	Delay  time.Duration
	// Memo keeps each healthy answer by query and range and sends it
	// again for the same request without computing it: what a benchmark
	// sets to measure the client's side alone.
	Memo bool

	mu      sync.Mutex
	mode    Mode
	queries []string
	bytes   int64
	memo    map[string][]byte
	compute time.Duration
}

// New starts a fake answering with answer.
func New(answer func(query string) []Series) *Server {
	s := &Server{Answer: answer, mode: Healthy, Delay: time.Second}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetMode switches the fault mode.
func (s *Server) SetMode(m Mode) { s.mu.Lock(); s.mode = m; s.mu.Unlock() }

// Queries returns the queries received so far and resets the list.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queries
	s.queries = nil
	return q
}

// Bytes returns the response bytes sent so far.
func (s *Server) Bytes() int64 { s.mu.Lock(); defer s.mu.Unlock(); return s.bytes }

// ComputeTime returns the time spent computing and encoding answers so
// far (summed over concurrent requests; memoized answers cost none).
func (s *Server) ComputeTime() time.Duration { s.mu.Lock(); defer s.mu.Unlock(); return s.compute }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/api/v1/query_range") {
		http.NotFound(w, r)
		return
	}
	q := r.FormValue("query")
	s.mu.Lock()
	mode := s.mode
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	switch mode {
	case Down:
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	case Refused:
		if hj, ok := w.(http.Hijacker); ok {
			c, _, err := hj.Hijack()
			if err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case Slow:
		select {
		case <-time.After(s.Delay):
		case <-r.Context().Done():
			return
		}
	case Error:
		writeJSON(w, 422, map[string]any{"status": "error", "errorType": "execution", "error": "query processing would load too many samples into memory"})
		return
	case BadData:
		writeJSON(w, 400, map[string]any{"status": "error", "errorType": "bad_data", "error": "parse error"})
		return
	}
	start, err1 := strconv.ParseFloat(r.FormValue("start"), 64)
	end, err2 := strconv.ParseFloat(r.FormValue("end"), 64)
	step, err3 := strconv.ParseFloat(r.FormValue("step"), 64)
	if err1 != nil || err2 != nil || err3 != nil || step <= 0 {
		writeJSON(w, 400, map[string]any{"status": "error", "errorType": "bad_data", "error": "bad start/end/step"})
		return
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%s", q, r.FormValue("start"), r.FormValue("end"), r.FormValue("step"))
	if mode == Healthy && s.Memo {
		s.mu.Lock()
		b, ok := s.memo[key]
		s.mu.Unlock()
		if ok {
			w.Header().Set("Content-Type", "application/json")
			n, _ := w.Write(b)
			s.mu.Lock()
			s.bytes += int64(n)
			s.mu.Unlock()
			return
		}
	}
	t0 := time.Now()
	type result struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	results := []result{}
	if mode != Empty {
		for _, se := range s.Answer(q) {
			res := result{Metric: se.Labels, Values: [][2]any{}}
			if res.Metric == nil {
				res.Metric = map[string]string{}
			}
			for t := start; t <= end+1e-9; t += step {
				v := se.Value(time.UnixMilli(int64(math.Round(t * 1000))))
				switch mode {
				case NaN:
					v = math.NaN()
				case Negative:
					v = -math.Abs(v) - 1
				}
				if math.IsNaN(v) && mode != NaN {
					continue
				}
				res.Values = append(res.Values, [2]any{t, strconv.FormatFloat(v, 'g', -1, 64)})
			}
			results = append(results, res)
		}
	}
	b := encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": results}})
	s.mu.Lock()
	s.compute += time.Since(t0)
	if mode == Healthy && s.Memo {
		if s.memo == nil {
			s.memo = map[string][]byte{}
		}
		s.memo[key] = b
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	n, _ := w.Write(b)
	s.mu.Lock()
	s.bytes += int64(n)
	s.mu.Unlock()
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("promfake: %v", err))
	}
	return b
}

func writeJSON(w http.ResponseWriter, code int, v any) int {
	b := encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	n, _ := w.Write(b)
	return n
}
