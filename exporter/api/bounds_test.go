package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/forecaster/conservation"
)

// lineTrend is 2000 IOPS falling 1e10 IOPS per second from now on: at
// t = 1e300 its mean is -Inf.
type lineTrend struct{ t0 float64 }

func (l lineTrend) At(t float64) models.Band {
	m := 2000 - 1e10*(t-l.t0)
	return models.Band{Lower: m - 100, Mean: m, Upper: m + 100}
}
func (lineTrend) ETA(now, limit float64) float64 { return math.Inf(1) }
func (lineTrend) Accuracy() float64              { return 1 }
func (lineTrend) Samples() int                   { return 10 }
func (lineTrend) Scores() map[string]float64     { return nil }
func (lineTrend) MarshalJSON() ([]byte, error)   { return []byte(`"line"`), nil }

// trendServer serves cluster "a" with a demand trend, a capacity model at
// the current mix (max 8000 IOPS) and 4 hosts.
func trendServer(t testing.TB, trend models.Demand) (*Service, *httptest.Server) {
	capacity, err := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 8000, WriteIOPS: 8000}}}, "file", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	obs := features.Observed{ReadIOPS: 2000, IOPS: 2000, ReadRatio: 1, ReadSizeBytes: 4096, IOSizeBytes: 4096}
	res, _ := capacity.Model().AtMix(features.OpClasses(obs))
	snap := &engine.Snapshot{Cluster: "a", SourceUp: true, Observed: obs, HasObserved: true, Hosts: 4,
		Set:    models.Set{models.Conservation: capacity, models.Trend: trend, models.MLISP: lineLatency{}},
		Live:   models.Live{CapacityAtMix: res, HasCapacityAtMix: true},
		Models: map[string]apiv1.ModelStatus{models.Trend: {Fitted: true}}}
	svc := NewService(published(snap))
	srv := httptest.NewServer(svc.Handler(nil))
	t.Cleanup(srv.Close)
	return svc, srv
}

// TestOverflowInputsAre400 replays the requests that took storcast down:
// start=end=1e16 (t += step no longer moved t: an endless loop growing
// memory by gigabytes), a step of 1e-9 s at today's times (the same), an
// end of 1e300 (a -Inf forecast: a 500 from the JSON encoder) and an
// int64-sized hostsAdded (an overflow answered with a negative max IOPS).
// Each is now a 400 naming the parameter.
func TestOverflowInputsAre400(t *testing.T) {
	now := float64(time.Now().Unix())
	_, srv := trendServer(t, lineTrend{t0: now})
	nowS := strconv.FormatFloat(now, 'f', -1, 64)
	for _, tc := range []struct{ method, path, body, param string }{
		{"GET", "/api/v1/forecast?cluster=a&series=iops&start=1e16&end=1e16", "", "start"},
		{"GET", "/api/v1/forecast?cluster=a&series=iops&start=" + nowS + "&end=" + nowS + "&step=1e-9", "", "step"},
		{"GET", "/api/v1/forecast?cluster=a&series=iops&end=1e300", "", "end"},
		{"GET", "/api/v1/forecast?cluster=a&series=max_iops&start=-1e300&end=1e300", "", "start"},
		{"GET", "/api/v1/forecast?cluster=a&series=iops&start=" + nowS + "&end=" + nowS + "&step=1e300", "", ""},
		{"POST", "/api/v1/whatif", `{"cluster":"a","hostsAdded":9223372036854775807}`, "hostsAdded"},
		{"POST", "/api/v1/whatif", `{"cluster":"a","extraIops":1e308}`, "extraIops"},
		{"POST", "/api/v1/whatif", `{"cluster":"a","ioSizes":[{"bytes":1e300,"share":1}]}`, "ioSizes[0].bytes"},
		{"POST", "/api/v1/whatif", `{"cluster":"a","ioSizes":[{"bytes":1,"share":1}]}`, "ioSizes[0].bytes"},
		{"GET", "/api/v1/capacity_curve?cluster=a&io_size_bytes=1e300", "", "io_size_bytes"},
	} {
		code, env, raw := call(t, srv, tc.method, tc.path, tc.body)
		if tc.param == "" { // a valid request: one point
			var f apiv1.Forecast
			b, _ := json.Marshal(env.Data)
			json.Unmarshal(b, &f)
			if code != 200 || len(f.Points) != 1 {
				t.Errorf("%s %s: %d %s, want 200 with one point", tc.method, tc.path, code, raw)
			}
			continue
		}
		if code != 400 || env.ErrorType != apiv1.ErrBadData || !hasPrefix(env.Error, tc.param+": ") {
			t.Errorf("%s %s %s: %d %s, want 400 naming %q", tc.method, tc.path, tc.body, code, raw, tc.param)
		}
	}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// TestForecastPointBudget: the widest forecast the bounds allow has
// exactly apiv1.MaxForecastPoints points, and one step less is refused.
func TestForecastPointBudget(t *testing.T) {
	now := float64(time.Now().Unix())
	svc, _ := trendServer(t, flatTrend{})
	start := now - 1000
	end := start + float64(apiv1.MaxForecastPoints-1)*60
	f, err := svc.Forecast(context.Background(), "a", "iops", start, end, 60)
	if err != nil || len(f.Points) != apiv1.MaxForecastPoints || f.Points[len(f.Points)-1].T != end {
		t.Fatalf("widest forecast: %d points, last %v, err %v; want %d ending at %v", len(f.Points), f.Points[len(f.Points)-1].T, err, apiv1.MaxForecastPoints, end)
	}
	if _, err := svc.Forecast(context.Background(), "a", "iops", start, end+60, 60); err == nil || !hasPrefix(err.Error(), "step: ") {
		t.Errorf("one point over the budget: %v, want a step error", err)
	}
}

// TestForecastStopsWhenCancelled: a request whose client has gone does no
// more work.
func TestForecastStopsWhenCancelled(t *testing.T) {
	now := float64(time.Now().Unix())
	svc, _ := trendServer(t, flatTrend{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := svc.Forecast(ctx, "a", "iops", now, now+1e4, 1)
	var e *Error
	if !errorAs(err, &e) || e.Type != apiv1.ErrUnavailable {
		t.Errorf("cancelled forecast: %v, want an unavailable error", err)
	}
}

func errorAs(err error, e **Error) bool {
	if x, ok := err.(*Error); ok {
		*e = x
		return true
	}
	return false
}

// nanTrend has no finite value before t0 and an infinite band after.
type nanTrend struct{ t0 float64 }

func (n nanTrend) At(t float64) models.Band {
	if t < n.t0 {
		return models.Band{Lower: math.NaN(), Mean: math.NaN(), Upper: math.NaN()}
	}
	return models.Band{Lower: math.Inf(-1), Mean: 1, Upper: math.Inf(1)}
}
func (nanTrend) ETA(now, limit float64) float64 { return math.NaN() }
func (nanTrend) Accuracy() float64              { return math.NaN() }
func (nanTrend) Samples() int                   { return 1 }
func (nanTrend) Scores() map[string]float64     { return nil }
func (nanTrend) MarshalJSON() ([]byte, error)   { return []byte(`"nan"`), nil }

// infLatency is a latency model whose every number is NaN or Inf.
type infLatency struct{}

func (infLatency) Curve() []models.LatencyPoint {
	return []models.LatencyPoint{{IOPS: math.Inf(1), Band: models.Band{Mean: 1}}, {IOPS: 1, Band: models.Band{Lower: math.NaN()}}}
}
func (infLatency) At(float64) (models.Band, bool) {
	return models.Band{Lower: math.NaN(), Mean: math.Inf(1), Upper: math.Inf(1)}, true
}
func (infLatency) Crossing(float64) models.Band {
	return models.Band{Lower: math.Inf(-1), Mean: math.NaN(), Upper: math.Inf(1)}
}
func (infLatency) Accuracy() float64            { return math.NaN() }
func (infLatency) Samples() int                 { return 1 }
func (infLatency) Scores() map[string]float64   { return nil }
func (infLatency) MarshalJSON() ([]byte, error) { return []byte(`"inf"`), nil }

// TestNonFiniteNeverReachesJSON: a snapshot whose models and observations
// are NaN and Inf everywhere (a broken exporter upstream, a degenerate
// fit) gets answers with nulls or left-out points, never a 500.
func TestNonFiniteNeverReachesJSON(t *testing.T) {
	now := float64(time.Now().Unix())
	capacity, _ := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 8000, WriteIOPS: 8000}}}, "file", 1, nil)
	nan, inf := math.NaN(), math.Inf(1)
	snap := &engine.Snapshot{Cluster: "a", SourceUp: true, SLOSeconds: 0.005,
		Set:         models.Set{models.Conservation: capacity, models.Trend: nanTrend{t0: now}, models.MLISP: infLatency{}},
		Observed:    features.Observed{ReadIOPS: nan, IOPS: inf, ReadRatio: nan, IOSizeBytes: inf},
		HasObserved: true, Live: models.Live{CapacityAtMix: conservation.Result{MaxTotalIOPS: inf}, HasCapacityAtMix: true},
		Hosts:             4,
		History:           []apiv1.ForecastPoint{{T: now - 10, Value: nan}, {T: now - 5, Value: inf}, {T: now - 1, Value: 5}},
		ObservedLatencies: []apiv1.ObservedLatency{{IOPS: nan, LatencySeconds: 1}, {IOPS: 1, LatencySeconds: 0.001}},
		Models: map[string]apiv1.ModelStatus{
			models.Trend: {Fitted: true, AccuracyRatio: nan, AccuracyMeasured: true, LastFitUnix: inf},
		}}
	srv := httptest.NewServer(NewService(published(snap)).Handler(nil))
	defer srv.Close()
	nowS := strconv.FormatFloat(now, 'f', -1, 64)
	for _, path := range []string{
		"/api/v1/clusters",
		"/api/v1/latency_curve?cluster=a",
		"/api/v1/capacity_curve?cluster=a",
		"/api/v1/capacity_curve?cluster=a&io_size_bytes=4096",
		"/api/v1/forecast?cluster=a&series=iops&start=" + strconv.FormatFloat(now-20, 'f', -1, 64) + "&end=" + nowS + "&step=1",
		"/api/v1/forecast?cluster=a&series=headroom_ratio",
		"/api/v1/forecast?cluster=a&series=max_iops",
	} {
		code, env, raw := call(t, srv, "GET", path, "")
		if code == 500 || (code == 200) != (env.Status == "success") {
			t.Errorf("GET %s: %d %s", path, code, raw)
		}
	}
	// The forecast keeps the one finite point of each kind.
	code, env, raw := call(t, srv, "GET", "/api/v1/forecast?cluster=a&series=iops&start="+strconv.FormatFloat(now-20, 'f', -1, 64)+"&end="+nowS+"&step=1", "")
	var f apiv1.Forecast
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &f)
	if code != 200 || len(f.Observed) != 1 || f.Observed[0].Value != 5 || len(f.Points) != 0 {
		t.Errorf("forecast over NaN: %d %s, want no points and one observed value", code, raw)
	}
	code, _, raw = call(t, srv, "GET", "/api/v1/latency_curve?cluster=a", "")
	if code != 200 || string(raw) != `{"status":"success","data":{"cluster":"a","sloSeconds":0.005,"latency":"","kneeIops":{"lower":null,"mean":null,"upper":null},"points":[],"observed":[{"iops":1,"latencySeconds":0.001}],"stale":false}}` {
		t.Errorf("latency curve over Inf: %d %s", code, raw)
	}
	for _, body := range []string{`{"cluster":"a"}`, `{"cluster":"a","readRatio":0.5,"ioSizes":[{"bytes":4096,"share":1}]}`} {
		code, _, raw := call(t, srv, "POST", "/api/v1/whatif", body)
		if code == 500 {
			t.Errorf("what-if %s over NaN: %d %s", body, code, raw)
		}
	}
}

// BenchmarkForecastMaxPoints: the most work one forecast request can ask
// for (apiv1.MaxForecastPoints points), through the HTTP handler.
func BenchmarkForecastMaxPoints(b *testing.B) {
	now := float64(time.Now().Unix())
	svc, _ := trendServer(b, flatTrend{})
	h := svc.Handler(nil)
	path := fmt.Sprintf("/api/v1/forecast?cluster=a&series=utilization_ratio&start=%.0f&end=%.0f&step=60", now, now+float64(apiv1.MaxForecastPoints-1)*60)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			b.Fatal(rec.Body.String())
		}
		b.SetBytes(int64(rec.Body.Len()))
	}
}
