package source

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus/testutil"
	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"

	"github.com/storcast/storcast/exporter/config"
)

// matrixQuerier answers every range query with one series of vals.
type matrixQuerier struct{ vals []model.SamplePair }

func (q matrixQuerier) QueryRange(context.Context, string, v1.Range, ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	return model.Matrix{{Metric: model.Metric{}, Values: q.vals}}, nil, nil, nil
}

// Timestamps anywhere in int64 are read or dropped, never indexed outside
// the grid: one sample at MinInt64 + start − step/2 (an upstream can compute
// it from the start it is sent) wrapped the offset into a negative index and
// crashed the process at every refresh.
func TestExtremeTimestampsDropped(t *testing.T) {
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute} // 11 steps
	start, step := r.Start.UnixMilli(), r.Step.Milliseconds()
	last := start + 10*step
	vals := []model.SamplePair{
		{Timestamp: model.Time(math.MinInt64 + start - step/2), Value: 1},
		{Timestamp: model.Time(math.MinInt64), Value: 2},
		{Timestamp: model.Time(math.MaxInt64), Value: 3},
		{Timestamp: model.Time(math.MaxInt64 - step/2), Value: 4},
		{Timestamp: model.Time(start - step/2 - 1), Value: 5}, // just before the first step's half
		{Timestamp: model.Time(last + step/2), Value: 6},      // just past the last step's half
		{Timestamp: model.Time(start - step/2), Value: 7},     // the first step
		{Timestamp: model.Time(last + step/2 - 1), Value: 8},  // the last step
	}
	v := nanSlice(r.N())
	align(v, vals, r)
	for i, x := range v {
		want := math.NaN()
		switch i {
		case 0:
			want = 7
		case len(v) - 1:
			want = 8
		}
		if !(x == want || math.IsNaN(x) && math.IsNaN(want)) {
			t.Errorf("step %d: %v, want %v (grid %v)", i, x, want, v)
		}
	}
	// Through a fetch: read, not a crash.
	p := NewPrometheusQuerier(matrixQuerier{vals: vals}, config.Default().Prometheus, nil, nil)
	cl := testCluster(t)
	cl.Hosts = config.Hosts{}
	f, err := p.Fetch(context.Background(), cl, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Signals[ReadOps]; got[0] != 7 || got[10] != 8 {
		t.Errorf("fetched %v, want 7 first and 8 last", got)
	}
}

// answerServer answers every range query with body and status code.
func answerServer(t *testing.T, code int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const oneSeries = `{"resultType":"matrix","result":[{"metric":{},"values":[[1795000000,"1"]]}]}`

// An answer with a warning that data may be missing (Thanos's partial
// response: a store out of reach) fails as "partial", after its retries,
// so the last models are served stale instead of learning half the load;
// PromQL's own annotations are read as the answer they come with.
func TestPartialAnswerFails(t *testing.T) {
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute}
	cl := testCluster(t)
	cl.Hosts = config.Hosts{}
	warn := `receive series from Addr: 10.0.0.7:10901 LabelSets: {replica="b"}: rpc error: code = Unavailable`
	srv := answerServer(t, 200, `{"status":"success","warnings":[`+fmt.Sprintf("%q", warn)+`,"another store"],"data":`+oneSeries+`}`)
	p, m := testSource(t, srv.URL, func(c *config.Prometheus) { c.Retries = 1 })
	_, err := p.Fetch(context.Background(), cl, r)
	if want := fmt.Sprintf("%q and 1 more", warn); !errors.Is(err, ErrPartialAnswer) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want ErrPartialAnswer naming %s", err, want)
	}
	if got := testutil.ToFloat64(m.Errors.WithLabelValues("a", "partial")); got != 16 {
		t.Errorf("%v partial answers counted, want 16 (8 queries, each retried once)", got)
	}

	srv = answerServer(t, 200, `{"status":"success","warnings":["PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: \"ceph_osd_op_r\""],"data":`+oneSeries+`}`)
	p, _ = testSource(t, srv.URL, nil)
	if _, err := p.Fetch(context.Background(), cl, r); err != nil {
		t.Errorf("an answer with a PromQL annotation: %v", err)
	}
}

// VictoriaMetrics cluster marks a partial answer in a top-level field
// instead of a warning: it fails as "partial" too, retried; "isPartial":
// false, and the key inside the data (a label name), are read as the
// answer they come with.
func TestPartialFlagFails(t *testing.T) {
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute}
	cl := testCluster(t)
	cl.Hosts = config.Hosts{}
	srv := answerServer(t, 200, `{"status":"success","isPartial":true,"data":`+oneSeries+`}`)
	p, m := testSource(t, srv.URL, func(c *config.Prometheus) { c.Retries = 1 })
	_, err := p.Fetch(context.Background(), cl, r)
	if !errors.Is(err, ErrPartialAnswer) || !strings.Contains(err.Error(), `"isPartial": true`) {
		t.Fatalf("err %v, want ErrPartialAnswer naming isPartial", err)
	}
	if got := testutil.ToFloat64(m.Errors.WithLabelValues("a", "partial")); got != 16 {
		t.Errorf("%v partial answers counted, want 16 (8 queries, each retried once)", got)
	}
	for _, body := range []string{
		`{"status":"success","isPartial":false,"data":` + oneSeries + `}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"isPartial":"true"},"values":[[1795000000,"1"]]}]}}`,
	} {
		p, _ := testSource(t, answerServer(t, 200, body).URL, nil)
		if _, err := p.Fetch(context.Background(), cl, r); err != nil {
			t.Errorf("answer %s: %v", body, err)
		}
	}
}

// The upstream's own text is cut before it reaches an error: a 1 MiB error
// message or warning was logged whole at every refresh and held in the
// snapshot.
func TestUpstreamTextBounded(t *testing.T) {
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute}
	cl := testCluster(t)
	cl.Hosts = config.Hosts{}
	huge := strings.Repeat("x", 1<<20)
	for _, c := range []struct {
		name, reason string
		code         int
		body         string
	}{
		{"error message", "other", 422, `{"status":"error","errorType":"execution","error":"` + huge + `"}`},
		{"warning", "partial", 200, `{"status":"success","warnings":["` + huge + `"],"data":` + oneSeries + `}`},
	} {
		p, m := testSource(t, answerServer(t, c.code, c.body).URL, func(c *config.Prometheus) { c.Retries = 0 })
		_, err := p.Fetch(context.Background(), cl, r)
		if err == nil || len(err.Error()) > 2*maxUpstreamText || !strings.Contains(err.Error(), strings.Repeat("x", 100)+"...") {
			t.Errorf("%s: err of %d bytes, want the upstream's text cut at %d: %.200v", c.name, len(fmt.Sprint(err)), maxUpstreamText, err)
		}
		if got := testutil.ToFloat64(m.Errors.WithLabelValues("a", c.reason)); got != 8 {
			t.Errorf("%s: %v counted as %s, want 8", c.name, got, c.reason)
		}
	}
}

// A 200 answer without data, or with a null series, fails the query with
// a message saying so, in a fetch and in the start-up probe alike:
// client_golang leaves the value nil for the first, and handling it
// panicked (recovered in a fetch, with a stack logged at every refresh;
// not in the probe, which runs at every start: the process died).
func TestAnswerWithoutDataFails(t *testing.T) {
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute}
	cl := testCluster(t)
	cl.Hosts = config.Hosts{}
	for _, c := range []struct{ body, want string }{
		{`{"status":"success"}`, "the answer has no data (want a matrix)"},
		{`{}`, "the answer has no data (want a matrix)"},
		{`{"status":"success","data":null}`, "the answer has no data (want a matrix)"},
		{`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1795000000,"1"]]},null]}}`, "the answer's series 1 is null"},
	} {
		p, _ := testSource(t, answerServer(t, 200, c.body).URL, func(c *config.Prometheus) { c.Retries = 0 })
		_, err := p.Fetch(context.Background(), cl, r)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "runtime error") {
			t.Errorf("fetch, answer %s: err %v, want %q", c.body, err, c.want)
		}
		probes := p.ProbeCluster(context.Background(), cl, r)
		if len(probes) == 0 {
			t.Fatalf("answer %s: no probes", c.body)
		}
		for _, pr := range probes {
			if pr.Err == nil || !strings.Contains(pr.Err.Error(), c.want) {
				t.Errorf("probe %s, answer %s: err %v, want %q", pr.Query, c.body, pr.Err, c.want)
			}
		}
	}
}

// prometheus.http_config.follow_redirects: false is honoured: a redirect
// is the answer (an error naming it), and the bearer token never reaches
// the host it names. It was ignored: the transport alone was built from
// the HTTP config, and Go's client followed the redirect with the
// credentials. With the default (true) the redirect is followed.
func TestFollowRedirectsHonoured(t *testing.T) {
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute}
	cl := testCluster(t)
	cl.Hosts = config.Hosts{}
	var reached atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":`+oneSeries+`}`)
	}))
	t.Cleanup(other.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, other.URL+req.URL.RequestURI(), http.StatusFound)
	}))
	t.Cleanup(redirecting.Close)
	for _, follow := range []bool{false, true} {
		reached.Store(0)
		p, _ := testSource(t, redirecting.URL, func(c *config.Prometheus) {
			c.Retries = 0
			c.HTTPConfig.FollowRedirects = follow
			c.HTTPConfig.Authorization = &commoncfg.Authorization{Type: "Bearer", Credentials: "s3cret"}
		})
		_, err := p.Fetch(context.Background(), cl, r)
		switch {
		case !follow && (err == nil || !strings.Contains(err.Error(), "302") || reached.Load() != 0):
			t.Errorf("follow_redirects false: err %v, the other host reached %d times; want an error naming 302 and no request there", err, reached.Load())
		case follow && (err != nil || reached.Load() == 0):
			t.Errorf("follow_redirects true: err %v, the other host reached %d times; want the redirect followed", err, reached.Load())
		}
	}
}
