package plugin

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/grafana/grafana-plugin-sdk-go/data"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/grafana-plugin/pkg/storcast/storcasttest"
)

// newDS builds a data source as Grafana's instance manager would, from
// jsonData pointing at url.
func newDS(t *testing.T, url string, jsonExtra string, secure map[string]string) *Datasource {
	t.Helper()
	js := fmt.Sprintf(`{"url":%q%s}`, url, jsonExtra)
	inst, err := NewDatasource(context.Background(), backend.DataSourceInstanceSettings{
		Name: "storcast", UID: "storcast", Type: PluginID, JSONData: []byte(js), DecryptedSecureJSONData: secure,
	})
	if err != nil {
		t.Fatal(err)
	}
	d := inst.(*Datasource)
	t.Cleanup(d.Dispose)
	return d
}

func query(t *testing.T, d *Datasource, q backend.DataQuery) backend.DataResponse {
	t.Helper()
	if q.RefID == "" {
		q.RefID = "A"
	}
	resp, err := d.QueryData(context.Background(), &backend.QueryDataRequest{Queries: []backend.DataQuery{q}})
	if err != nil {
		t.Fatalf("QueryData returned an error instead of a per-query one: %v", err)
	}
	r, ok := resp.Responses[q.RefID]
	if !ok {
		t.Fatalf("no response for %s", q.RefID)
	}
	return r
}

func js(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func mustOK(t *testing.T, r backend.DataResponse) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("query failed: status %d: %v", r.Status, r.Error)
	}
}

func floats(t *testing.T, f *data.Frame, name string) []float64 {
	t.Helper()
	field, idx := f.FieldByName(name)
	if idx < 0 {
		t.Fatalf("frame %q has no field %q", f.Name, name)
	}
	out := make([]float64, field.Len())
	for i := range out {
		v, ok := field.ConcreteAt(i)
		if !ok {
			out[i] = math.NaN()
			continue
		}
		out[i] = v.(float64)
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// Two clusters' forecasts in one panel: Grafana draws a band by finding the
// field named in fillBelowTo among the panel's display names, so every
// display name is unique across the queries and each upper names its own
// frame's lower.
func TestForecastsOfTwoClustersKeepTheirBands(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	now := sc.Now()
	var qs []backend.DataQuery
	for _, c := range []string{"ceph-a", "swift-b"} {
		qs = append(qs, backend.DataQuery{RefID: c, QueryType: "forecast", Interval: time.Hour,
			TimeRange: backend.TimeRange{From: now.Add(-6 * time.Hour), To: now.Add(6 * time.Hour)},
			JSON:      js(map[string]any{"cluster": c, "series": "iops"})})
	}
	resp, err := d.QueryData(context.Background(), &backend.QueryDataRequest{Queries: qs})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for ref, r := range resp.Responses {
		mustOK(t, r)
		for _, f := range r.Frames {
			names := map[string]bool{}
			for _, field := range f.Fields {
				if field.Config == nil || field.Config.DisplayNameFromDS == "" {
					continue
				}
				n := field.Config.DisplayNameFromDS
				if other, dup := seen[n]; dup {
					t.Errorf("display name %q in the answers to %s and %s", n, other, ref)
				}
				seen[n], names[n] = ref, true
			}
			if up, _ := f.FieldByName("upper"); up != nil {
				if below, _ := up.Config.Custom["fillBelowTo"].(string); !names[below] {
					t.Errorf("%s: upper fills to %q, not a field of its own frame %v", ref, below, names)
				}
			}
		}
	}
}

func TestForecastFollowsTheTrendIntoTheFuture(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	now := sc.Now()
	r := query(t, d, backend.DataQuery{
		QueryType: "forecast",
		TimeRange: backend.TimeRange{From: now.Add(-6 * time.Hour), To: now},
		Interval:  time.Hour,
		JSON:      js(map[string]any{"cluster": "ceph-a", "series": "iops", "horizon": "1d"}),
	})
	mustOK(t, r)
	if len(r.Frames) != 2 {
		t.Fatalf("want forecast and observed frames, got %d", len(r.Frames))
	}
	f := r.Frames[0]
	times := f.Fields[0]
	if n := times.Len(); n != 6+24+1 {
		t.Fatalf("forecast has %d points, want 31 (6h back, 24h ahead, hourly)", n)
	}
	last := times.At(times.Len() - 1).(time.Time)
	if !last.Equal(now.Add(24 * time.Hour)) {
		t.Errorf("last point at %v, want now+24h %v", last, now.Add(24*time.Hour))
	}
	c, _ := sc.Cluster("ceph-a")
	val, lo, hi := floats(t, f, "value"), floats(t, f, "lower"), floats(t, f, "upper")
	for i := range val {
		ts := times.At(i).(time.Time)
		if want := sc.IOPS(c, ts); !near(val[i], want, 1e-9) {
			t.Errorf("value at %v = %v, want %v", ts, val[i], want)
		}
		if hw := sc.HalfWidth(c, ts); !near(hi[i]-val[i], hw, 1e-9) || !near(val[i]-lo[i], hw, 1e-9) {
			t.Errorf("band at %v = [%v, %v], want ±%v", ts, lo[i], hi[i], hw)
		}
	}
	// The band widens into the future.
	if hi[len(hi)-1]-lo[len(lo)-1] <= hi[6]-lo[6] {
		t.Error("the band does not widen with the horizon")
	}
	// The band is drawn: upper fills down to lower by display name.
	up, _ := f.FieldByName("upper")
	if up.Config.Custom["fillBelowTo"] != "ceph-a iops lower" {
		t.Errorf("upper's fillBelowTo = %v", up.Config.Custom)
	}
	lower, _ := f.FieldByName("lower")
	if lower.Config.DisplayNameFromDS != "ceph-a iops lower" || up.Config.Unit != "iops" {
		t.Errorf("lower display name %q, unit %q", lower.Config.DisplayNameFromDS, up.Config.Unit)
	}
	if f.Meta == nil || f.Meta.Type != data.FrameTypeTimeSeriesWide || !strings.Contains(f.Meta.ExecutedQueryString, "series=iops") {
		t.Errorf("meta = %+v", f.Meta)
	}
	if regexp.MustCompile(`[0-9.][eE][+-]?[0-9]`).MatchString(f.Meta.ExecutedQueryString) {
		t.Errorf("executed query %q: numbers in exponent notation", f.Meta.ExecutedQueryString)
	}
	// Alerting needs distinct label sets per series.
	seen := map[string]bool{}
	for _, fr := range r.Frames {
		for _, fl := range fr.Fields[1:] {
			if seen[fl.Labels.String()] {
				t.Errorf("duplicate labels %s", fl.Labels)
			}
			seen[fl.Labels.String()] = true
		}
	}
	// Observed points stop at now.
	obs := r.Frames[1]
	if n := obs.Fields[0].Len(); n != 7 {
		t.Errorf("observed has %d points, want 7 (now-6h..now)", n)
	}

	// storcast got the range, with the end moved by the horizon and the step in seconds.
	reqs := sc.Requests()
	q := storcasttest.Query(reqs[len(reqs)-1])
	if q.Get("step") != "3600" || q.Get("cluster") != "ceph-a" {
		t.Errorf("storcast got %v", q)
	}
	if q.Get("end") != fmt.Sprint(now.Add(24*time.Hour).Unix()) {
		t.Errorf("end = %s, want %d", q.Get("end"), now.Add(24*time.Hour).Unix())
	}
}

func TestForecastRatioSeriesAndStaleNotice(t *testing.T) {
	cls := storcasttest.DefaultClusters()
	cls[0].Stale = true
	sc := storcasttest.New(storcasttest.Options{Clusters: cls})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	now := sc.Now()
	r := query(t, d, backend.DataQuery{
		QueryType: "forecast",
		TimeRange: backend.TimeRange{From: now.Add(-time.Hour), To: now.Add(time.Hour)},
		Interval:  time.Minute,
		JSON:      js(map[string]any{"cluster": "ceph-a", "series": "utilization_ratio"}),
	})
	mustOK(t, r)
	f := r.Frames[0]
	v, _ := f.FieldByName("value")
	if v.Config.Unit != "percentunit" {
		t.Errorf("ratio unit = %q, want percentunit", v.Config.Unit)
	}
	c, _ := sc.Cluster("ceph-a")
	got := floats(t, f, "value")[60] // now
	if want := c.BaseIOPS / storcasttest.MaxIOPS(c, c.ReadRatio, c.IOSizeBytes); !near(got, want, 1e-9) {
		t.Errorf("utilization now = %v, want %v", got, want)
	}
	if len(f.Meta.Notices) != 1 || !strings.Contains(f.Meta.Notices[0].Text, "stale") {
		t.Errorf("notices = %+v", f.Meta.Notices)
	}
}

func TestLatencyCurve(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	r := query(t, d, backend.DataQuery{QueryType: "latencyCurve", JSON: js(map[string]any{"cluster": "swift-b"})})
	mustOK(t, r)
	if len(r.Frames) != 3 {
		t.Fatalf("want latency, observed and slo frames, got %d", len(r.Frames))
	}
	c, _ := sc.Cluster("swift-b")
	maxIOPS := storcasttest.MaxIOPS(c, c.ReadRatio, c.IOSizeBytes)
	curve := r.Frames[0]
	x, mean, lo, hi := floats(t, curve, "iops"), floats(t, curve, "mean"), floats(t, curve, "lower"), floats(t, curve, "upper")
	if len(x) != 20 {
		t.Fatalf("%d curve points", len(x))
	}
	unbounded := 0
	for i := range x {
		want := 0.001 / (1 - x[i]/maxIOPS)
		// From the capacity band's lower bound on, the upper bound is null.
		past := x[i] >= storcasttest.CapacityLowerShare*maxIOPS
		if !near(mean[i], want, 1e-9) || !(lo[i] < mean[i]) || past != math.IsNaN(hi[i]) || !(past || mean[i] < hi[i]) {
			t.Errorf("point %d: iops %v mean %v (want %v) band [%v, %v]", i, x[i], mean[i], want, lo[i], hi[i])
		}
		if past {
			unbounded++
		}
	}
	if unbounded != 2 {
		t.Errorf("%d points without an upper bound, want 2 (90%% and 95%% of max IOPS)", unbounded)
	}
	if len(floats(t, r.Frames[1], "latency")) != 5 {
		t.Error("observed points missing")
	}
	slo := floats(t, r.Frames[2], "slo")
	if slo[0] != c.SLOSeconds || slo[1] != c.SLOSeconds {
		t.Errorf("slo line = %v", slo)
	}
	// The knee is reported: mean crosses 50 ms at max*(1-1/50), its band
	// from the upper latency bound's crossing (the lowest IOPS: here the
	// capacity band's lower bound, where it becomes unbounded) to the lower
	// bound's.
	wantKnee := fmt.Sprintf("at %.0f IOPS (95%% band %.0f to %.0f)", maxIOPS*(1-0.001/c.SLOSeconds),
		math.Min(maxIOPS*(1-1.1*0.001/c.SLOSeconds), storcasttest.CapacityLowerShare*maxIOPS), maxIOPS*(1-0.9*0.001/c.SLOSeconds))
	// And where the band loses its upper bound.
	wantSat := fmt.Sprintf("from %.0f IOPS the load is at or past the lower bound of capacity", storcasttest.CapacityLowerShare*maxIOPS)
	if n := curve.Meta.Notices; len(n) != 2 || !strings.Contains(n[0].Text, wantKnee) || !strings.Contains(n[0].Text, "50 ms SLO") ||
		!strings.Contains(n[1].Text, wantSat) || n[1].Severity != data.NoticeSeverityWarning {
		t.Errorf("notices = %+v, want %q and %q", n, wantKnee, wantSat)
	}
}

func TestCapacityCurve(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	r := query(t, d, backend.DataQuery{QueryType: "capacityCurve", JSON: js(map[string]any{"cluster": "ceph-a", "ioSize": "16KiB", "points": 11})})
	mustOK(t, r)
	curve, current := r.Frames[0], r.Frames[1]
	rr, maxI := floats(t, curve, "readRatio"), floats(t, curve, "maxIops")
	if len(rr) != 11 || rr[0] != 0 || rr[10] != 1 {
		t.Fatalf("read ratios = %v", rr)
	}
	c, _ := sc.Cluster("ceph-a")
	for i := range rr {
		if want := storcasttest.MaxIOPS(c, rr[i], 16384); !near(maxI[i], want, 1e-9) {
			t.Errorf("max IOPS at read ratio %v = %v, want %v", rr[i], maxI[i], want)
		}
	}
	if maxI[10] <= maxI[0] {
		t.Error("reads should be cheaper than writes on this cluster")
	}
	if got := floats(t, current, "readRatio")[0]; got != c.ReadRatio {
		t.Errorf("current read ratio = %v, want %v", got, c.ReadRatio)
	}
	if q := storcasttest.Query(sc.Requests()[0]); q.Get("io_size_bytes") != "16384" || q.Get("points") != "11" {
		t.Errorf("storcast got %v", q)
	}
	// An IO size outside the calibrated range is flagged.
	r = query(t, d, backend.DataQuery{QueryType: "capacityCurve", JSON: js(map[string]any{"cluster": "ceph-a", "ioSize": "8MiB"})})
	mustOK(t, r)
	if n := r.Frames[0].Meta.Notices; len(n) != 1 || !strings.Contains(n[0].Text, "IO size 8388608 bytes") || !strings.Contains(n[0].Text, "extrapolated") {
		t.Errorf("notices = %+v", n)
	}
	// The query inspector shows the parameters as a person writes them.
	if got, want := r.Frames[0].Meta.ExecutedQueryString, "GET /api/v1/capacity_curve?cluster=ceph-a&io_size_bytes=8388608"; got != want {
		t.Errorf("executed query %q, want %q", got, want)
	}
}

// Before the first observation storcast answers a capacity curve asked at
// an IO size with no current mix (zeros): the plugin marks no point at 0%
// reads and 0 IOPS; a mix without a capacity there has its max IOPS null,
// not 0.
func TestCapacityCurveWithoutCurrentMix(t *testing.T) {
	cc := apiv1.CapacityCurve{Cluster: "a", IOSizeBytes: 4096, Points: []apiv1.CapacityPoint{{ReadRatio: 0, MaxIOPS: 100}, {ReadRatio: 1, MaxIOPS: 300}}}
	if f := capacityFrames(cc); len(f) != 1 || f[0].Name != "capacity" {
		t.Errorf("no observed mix: %d frames, want the curve alone", len(f))
	}
	cc.Current = apiv1.CurrentMix{ReadRatio: 0.5, IOSizeBytes: 4096, IOPS: 120}
	f := capacityFrames(cc)
	if len(f) != 2 {
		t.Fatalf("with a mix: %d frames", len(f))
	}
	if m, _ := f[1].FieldByName("maxIops"); m == nil || m.Len() != 1 || m.At(0).(*float64) != nil {
		t.Errorf("max IOPS at a mix without capacity: %v, want null", m)
	}
}

// TestWhatIfIdle: an idle cluster asked about as it is: its max IOPS, no
// latency, and an info notice saying it is idle (the warning that no
// latency model could answer would read as a fault). A negative extra IOPS
// is sent to storcast as given.
func TestWhatIfIdle(t *testing.T) {
	cls := storcasttest.DefaultClusters()
	cls[0].BaseIOPS, cls[0].SlopeIOPSPerHour = 0, 0
	sc := storcasttest.New(storcasttest.Options{Clusters: cls})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	r := query(t, d, backend.DataQuery{QueryType: "whatIf", JSON: js(map[string]any{"cluster": "ceph-a"})})
	mustOK(t, r)
	f := r.Frames[0]
	if m, lat := floats(t, f, "maxIops")[0], floats(t, f, "latencyMean")[0]; !(m > 0) || !math.IsNaN(lat) {
		t.Errorf("idle: max IOPS %v, latency %v; want a max and no latency", m, lat)
	}
	if n := f.Meta.Notices; len(n) != 1 || n[0].Severity != data.NoticeSeverityInfo || !strings.Contains(n[0].Text, "idle") {
		t.Errorf("notices = %+v; want one info notice saying idle", n)
	}
	r = query(t, d, backend.DataQuery{QueryType: "whatIf", JSON: js(map[string]any{"cluster": "swift-b", "extraIops": "-100"})})
	mustOK(t, r)
	if got := floats(t, r.Frames[0], "iops")[0]; got != 300 {
		t.Errorf("swift-b less 100 IOPS: %v, want 300", got)
	}
}

func TestWhatIf(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	r := query(t, d, backend.DataQuery{QueryType: "whatIf", JSON: js(map[string]any{
		"cluster": "ceph-a", "readRatio": "50%", "ioSize": "4KiB", "extraIops": 1000, "hostsAdded": "10"})})
	mustOK(t, r)
	f := r.Frames[0]
	c, _ := sc.Cluster("ceph-a")
	wantMax := storcasttest.MaxIOPS(c, 0.5, 4096) * 2 // 10 more hosts on 10
	if got := floats(t, f, "maxIops")[0]; !near(got, wantMax, 1e-9) {
		t.Errorf("max IOPS = %v, want %v", got, wantMax)
	}
	u := 2000 / wantMax
	if got := floats(t, f, "utilization")[0]; !near(got, u, 1e-9) {
		t.Errorf("utilization = %v, want %v", got, u)
	}
	if got := floats(t, f, "latencyMean")[0]; !near(got, 0.001/(1-u), 1e-9) {
		t.Errorf("latency = %v, want %v", got, 0.001/(1-u))
	}
	var body apiv1.WhatIfRequest
	if err := json.Unmarshal([]byte(strings.TrimPrefix(f.Meta.ExecutedQueryString, "POST /api/v1/whatif ")), &body); err != nil || *body.ReadRatio != 0.5 || body.HostsAdded != 10 {
		t.Errorf("executed query %q: %v", f.Meta.ExecutedQueryString, err)
	}

	// Past the capacity band's lower bound: a latency without an upper
	// bound, with a warning.
	extra := 0.95*storcasttest.MaxIOPS(c, c.ReadRatio, c.IOSizeBytes) - c.BaseIOPS
	r = query(t, d, backend.DataQuery{QueryType: "whatIf", JSON: js(map[string]any{"cluster": "ceph-a", "extraIops": extra})})
	mustOK(t, r)
	f = r.Frames[0]
	if m, up := floats(t, f, "latencyMean")[0], floats(t, f, "latencyUpper")[0]; !near(m, 0.001/0.05, 1e-6) || !math.IsNaN(up) {
		t.Errorf("at 95%% of max IOPS: latency %v, upper %v; want 20 ms and null", m, up)
	}
	if n := f.Meta.Notices; len(n) != 1 || n[0].Severity != data.NoticeSeverityWarning || !strings.Contains(n[0].Text, "no upper bound: at or past the lower bound of capacity") {
		t.Errorf("notices = %+v", n)
	}

	// Saturated: latency is null, with a notice.
	r = query(t, d, backend.DataQuery{QueryType: "whatIf", JSON: js(map[string]any{"cluster": "ceph-a", "extraIops": 1e6})})
	mustOK(t, r)
	f = r.Frames[0]
	if v := floats(t, f, "latencyMean")[0]; !math.IsNaN(v) {
		t.Errorf("saturated latency = %v, want null", v)
	}
	if n := f.Meta.Notices; len(n) != 1 || !strings.Contains(n[0].Text, "saturated") {
		t.Errorf("notices = %+v", n)
	}
}

func TestBadQueriesAreNamedPerQuery(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	now := sc.Now()
	tr := backend.TimeRange{From: now.Add(-time.Hour), To: now}
	cases := []struct {
		q      backend.DataQuery
		status backend.Status
		msg    string
	}{
		{backend.DataQuery{RefID: "A", QueryType: "forecast", TimeRange: tr, JSON: js(map[string]any{"cluster": "ceph-a", "series": "bogus"})},
			backend.StatusBadRequest, `series: unknown series "bogus"`},
		{backend.DataQuery{RefID: "B", QueryType: "whatIf", JSON: js(map[string]any{"cluster": "ceph-a", "readRatio": "150%"})},
			backend.StatusBadRequest, `readRatio: "150%" is outside 0..100%`},
		{backend.DataQuery{RefID: "C", QueryType: "capacityCurve", JSON: js(map[string]any{"cluster": "ceph-a", "ioSize": "huge"})},
			backend.StatusBadRequest, `ioSize: "huge"`},
		{backend.DataQuery{RefID: "D", QueryType: "latencyCurve", JSON: js(map[string]any{})},
			backend.StatusBadRequest, "cluster: missing"},
		{backend.DataQuery{RefID: "E", QueryType: "nope", JSON: js(map[string]any{"cluster": "ceph-a"})},
			backend.StatusBadRequest, `unknown query type "nope"`},
		{backend.DataQuery{RefID: "F", QueryType: "forecast", TimeRange: tr, JSON: js(map[string]any{"cluster": "ceph-z"})},
			backend.StatusNotFound, `unknown cluster "ceph-z"; storcast serves: ceph-a, swift-b`},
		{backend.DataQuery{RefID: "G", QueryType: "whatIf", JSON: js(map[string]any{"cluster": "nope"})},
			backend.StatusNotFound, `unknown cluster "nope"`},
		{backend.DataQuery{RefID: "H", QueryType: "latencyCurve", JSON: js(map[string]any{"cluster": "ceph-a"})},
			0, ""},
	}
	req := &backend.QueryDataRequest{}
	for _, c := range cases {
		req.Queries = append(req.Queries, c.q)
	}
	resp, err := d.QueryData(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r := resp.Responses[c.q.RefID]
		if c.status == 0 {
			if r.Error != nil {
				t.Errorf("%s: a good query failed beside bad ones: %v", c.q.RefID, r.Error)
			}
			continue
		}
		if r.Error == nil || r.Status != c.status || !strings.Contains(r.Error.Error(), c.msg) {
			t.Errorf("%s: status %d error %v; want %d containing %q", c.q.RefID, r.Status, r.Error, c.status, c.msg)
		}
	}
}

func TestStorcastDownSlowOrUnfitted(t *testing.T) {
	// Down: a port that was just closed.
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()

	slow := storcasttest.New(storcasttest.Options{Delay: 5 * time.Second})
	defer slow.Close()

	cls := storcasttest.DefaultClusters()
	cls[1].Fitted = false
	unfitted := storcasttest.New(storcasttest.Options{Clusters: cls})
	defer unfitted.Close()

	notStorcast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>Grafana</html>"))
	}))
	defer notStorcast.Close()

	for _, c := range []struct {
		name, url, cluster string
		status             backend.Status
		msg                string
	}{
		{"down", downURL, "ceph-a", backend.StatusBadGateway, "is unreachable"},
		{"slow", slow.URL, "ceph-a", backend.StatusTimeout, "did not answer in time"},
		{"unfitted", unfitted.URL, "swift-b", StatusServiceUnavailable, "no model fitted yet"},
		{"not storcast", notStorcast.URL, "ceph-a", backend.StatusBadGateway, "not a storcast API response"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDS(t, c.url, `,"timeoutSeconds":0.3`, nil)
			for _, qt := range []string{"forecast", "latencyCurve", "capacityCurve", "whatIf"} {
				start := time.Now()
				r := query(t, d, backend.DataQuery{QueryType: qt, TimeRange: backend.TimeRange{From: start.Add(-time.Hour), To: start},
					JSON: js(map[string]any{"cluster": c.cluster})})
				if r.Error == nil || r.Status != c.status || !strings.Contains(r.Error.Error(), c.msg) {
					t.Errorf("%s: status %d error %v; want %d containing %q", qt, r.Status, r.Error, c.status, c.msg)
				}
				if r.ErrorSource != backend.ErrorSourceDownstream {
					t.Errorf("%s: error source %q, want downstream", qt, r.ErrorSource)
				}
			}
		})
	}
}

func TestCanceledContextStopsTheCall(t *testing.T) {
	slow := storcasttest.New(storcasttest.Options{Delay: 5 * time.Second})
	defer slow.Close()
	d := newDS(t, slow.URL, "", nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	resp, err := d.QueryData(ctx, &backend.QueryDataRequest{Queries: []backend.DataQuery{
		{RefID: "A", QueryType: "latencyCurve", JSON: js(map[string]any{"cluster": "ceph-a"})}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.Responses["A"]; r.Error == nil || r.Status != backend.StatusTimeout || !strings.Contains(r.Error.Error(), "canceled") {
		t.Errorf("status %d error %v", r.Status, r.Error)
	}
}

func TestTokenIsSentAsBearer(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{Token: "s3cret"})
	defer sc.Close()
	d := newDS(t, sc.URL, "", map[string]string{"token": "s3cret"})
	mustOK(t, query(t, d, backend.DataQuery{QueryType: "latencyCurve", JSON: js(map[string]any{"cluster": "ceph-a"})}))

	wrong := newDS(t, sc.URL, "", map[string]string{"token": "guess"})
	r := query(t, wrong, backend.DataQuery{QueryType: "latencyCurve", JSON: js(map[string]any{"cluster": "ceph-a"})})
	if r.Error == nil || !strings.Contains(r.Error.Error(), "bearer token") {
		t.Errorf("wrong token: %v", r.Error)
	}
}

// TestBasicAuthAndTLS: a storcast secured as its web.config_file secures it
// (HTTPS, basic auth) is reached with the data source's standard HTTP
// settings: basic auth, and TLS with its CA certificate. Without the
// password the call is Unauthorized, saying credentials are wanted; without
// the CA certificate, the certificate is not trusted.
func TestBasicAuthAndTLS(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{BasicAuthUser: "grafana", BasicAuthPassword: "pw", TLS: true})
	defer sc.Close()
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: sc.Certificate().Raw}))
	ds := func(password, caCert string) *Datasource {
		t.Helper()
		secure := map[string]string{}
		if password != "" {
			secure["basicAuthPassword"] = password
		}
		jsonData := fmt.Sprintf(`{"url":%q}`, sc.URL)
		if caCert != "" {
			secure["tlsCACert"] = caCert
			jsonData = fmt.Sprintf(`{"url":%q,"tlsAuthWithCACert":true}`, sc.URL)
		}
		inst, err := NewDatasource(context.Background(), backend.DataSourceInstanceSettings{
			Name: "storcast", UID: "storcast", Type: PluginID, JSONData: []byte(jsonData),
			BasicAuthEnabled: true, BasicAuthUser: "grafana", DecryptedSecureJSONData: secure,
		})
		if err != nil {
			t.Fatal(err)
		}
		d := inst.(*Datasource)
		t.Cleanup(d.Dispose)
		return d
	}
	q := backend.DataQuery{QueryType: "latencyCurve", JSON: js(map[string]any{"cluster": "ceph-a"})}
	mustOK(t, query(t, ds("pw", ca), q))
	if h, err := ds("pw", ca).CheckHealth(context.Background(), &backend.CheckHealthRequest{}); err != nil || h.Status != backend.HealthStatusOk {
		t.Errorf("health with credentials and CA: %+v, %v", h, err)
	}

	r := query(t, ds("", ca), q)
	if r.Status != backend.StatusUnauthorized || r.Error == nil || !strings.Contains(r.Error.Error(), `HTTP 401 ("Unauthorized"): storcast, or a proxy in front of it, wants credentials`) {
		t.Errorf("without the password: %d %v", r.Status, r.Error)
	}
	r = query(t, ds("wrong", ca), q)
	if r.Status != backend.StatusUnauthorized {
		t.Errorf("a wrong password: %d %v", r.Status, r.Error)
	}
	r = query(t, ds("pw", ""), q)
	if r.Error == nil || !strings.Contains(r.Error.Error(), "certificate") {
		t.Errorf("without the CA certificate: %d %v", r.Status, r.Error)
	}
}

func TestBadSettingsAnswerEveryCall(t *testing.T) {
	d := newDS(t, "storcast:9595", "", nil)
	r := query(t, d, backend.DataQuery{QueryType: "latencyCurve", JSON: js(map[string]any{"cluster": "ceph-a"})})
	if r.Error == nil || r.Status != backend.StatusBadRequest || !strings.Contains(r.Error.Error(), "data source settings: storcast URL") {
		t.Errorf("query: %d %v", r.Status, r.Error)
	}
	h, err := d.CheckHealth(context.Background(), &backend.CheckHealthRequest{})
	if err != nil || h.Status != backend.HealthStatusError || !strings.Contains(h.Message, "scheme must be http or https") {
		t.Errorf("health: %+v, %v", h, err)
	}
	res := callResource(t, d, "clusters")
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "data source settings") {
		t.Errorf("resource: %d %s", res.Status, res.Body)
	}
}

// TestRuleSets: one row per rule set with its predicted boost, run noise and
// the recommendation; the advisor's reason for recommending none as the
// frame's notice; a cluster without a catalog is an error naming the fix.
func TestRuleSets(t *testing.T) {
	cs := storcasttest.DefaultClusters()
	cs[0].RuleSets = []apiv1.RuleSetPrediction{
		{RuleSet: "qos-cap", BoostRatio: 0.076, CVErrorRatio: 0.057, RunNoiseRatio: 0.021, Recommended: true},
		{RuleSet: "read-window", BoostRatio: -0.02, CVErrorRatio: 0.05, RunNoiseRatio: 0.018, Extrapolated: true},
	}
	sc := storcasttest.New(storcasttest.Options{Clusters: cs})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	r := query(t, d, backend.DataQuery{QueryType: "ruleSets", JSON: js(map[string]any{"cluster": "ceph-a"})})
	mustOK(t, r)
	f := r.Frames[0]
	if b := floats(t, f, "boost"); len(b) != 2 || b[0] != 0.076 || b[1] != -0.02 {
		t.Errorf("boosts %v", b)
	}
	if n := floats(t, f, "runNoise"); len(n) != 2 || n[0] != 0.021 || n[1] != 0.018 {
		t.Errorf("run noise %v", n)
	}
	if rec, _ := f.FieldByName("recommended"); rec == nil || !rec.At(0).(bool) || rec.At(1).(bool) {
		t.Errorf("recommended field %v", rec)
	}
	cs[0].RuleSets[0].Recommended = false
	cs[0].RuleSetsReason = "no rule set's predicted boost exceeds its uncertainty"
	none := storcasttest.New(storcasttest.Options{Clusters: cs})
	defer none.Close()
	r = query(t, newDS(t, none.URL, "", nil), backend.DataQuery{QueryType: "ruleSets", JSON: js(map[string]any{"cluster": "ceph-a"})})
	mustOK(t, r)
	if n := r.Frames[0].Meta.Notices; len(n) != 1 || n[0].Text != "no rule set recommended: no rule set's predicted boost exceeds its uncertainty" {
		t.Errorf("notices %+v, want the advisor's reason", n)
	}
	r = query(t, d, backend.DataQuery{QueryType: "ruleSets", JSON: js(map[string]any{"cluster": "swift-b"})})
	if r.Error == nil || !strings.Contains(r.Error.Error(), "advisor.catalog_file") {
		t.Errorf("no catalog: %v, want an error naming advisor.catalog_file", r.Error)
	}
}

// TestForecastWithMorePointsThanAsked: an answer with more points than the
// request asks for is not storcast's (a forecast has at most
// floor((end-start)/step) + 1, a capacity curve the points asked for, or
// apiv1.MaxCurvePoints): 11,001 points of `{}` fit well under
// storcast.MaxBodyBytes but cost far more as frames. It is a bad response
// (502) naming the points; an answer of exactly the count is fine.
func TestForecastWithMorePointsThanAsked(t *testing.T) {
	var n int // points the fake answers with
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pts := "[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]"
		if r.URL.Path == "/api/v1/forecast" {
			_, _ = fmt.Fprintf(w, `{"status":"success","data":{"cluster":"c","series":"iops","unit":"iops","points":%s,"observed":[]}}`, pts)
			return
		}
		_, _ = fmt.Fprintf(w, `{"status":"success","data":{"cluster":"c","ioSizeBytes":4096,"points":%s,"current":{}}}`, pts)
	}))
	defer srv.Close()
	d := newDS(t, srv.URL, "", nil)

	// One hour at a one-hour step: two points, at start and end.
	to := time.Now().Truncate(time.Hour)
	forecast := backend.DataQuery{QueryType: "forecast", Interval: time.Hour,
		TimeRange: backend.TimeRange{From: to.Add(-time.Hour), To: to}, JSON: js(map[string]any{"cluster": "c"})}
	capacity := func(points any) backend.DataQuery {
		return backend.DataQuery{QueryType: "capacityCurve", JSON: js(map[string]any{"cluster": "c", "points": points})}
	}
	for _, c := range []struct {
		name    string
		q       backend.DataQuery
		n, most int
	}{
		{"forecast", forecast, 11001, 2},
		{"forecast, one too many", forecast, 3, 2},
		{"capacity curve of 11", capacity(11), 12, 11},
		{"capacity curve, storcast's default", capacity(nil), apiv1.MaxCurvePoints + 1, apiv1.MaxCurvePoints},
	} {
		n = c.n
		r := query(t, d, c.q)
		want := fmt.Sprintf("the answer has %d points; the request asks for at most %d", c.n, c.most)
		if r.Error == nil || r.Status != backend.StatusBadGateway || !strings.Contains(r.Error.Error(), want) || len(r.Frames) != 0 {
			t.Errorf("%s: status %d error %v, %d frames; want %d containing %q", c.name, r.Status, r.Error, len(r.Frames), backend.StatusBadGateway, want)
		}
		n = c.most
		r = query(t, d, c.q)
		mustOK(t, r)
		if got := r.Frames[0].Rows(); got != c.most {
			t.Errorf("%s: %d rows, want %d", c.name, got, c.most)
		}
	}
}
