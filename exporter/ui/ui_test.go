package ui

import (
	"context"
	"errors"
	"flag"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storcast/storcast/exporter/apiv1"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func get(t *testing.T, h http.Handler, method, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test ./exporter/ui -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output; run go test ./exporter/ui -run %s -update and review the diff", path, t.Name())
	}
}

func TestLandingPageGolden(t *testing.T) {
	res, body := get(t, testHandler(demoProvider()), http.MethodGet, "/")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	golden(t, "landing.golden.html", body)
}

func TestLandingPageFigures(t *testing.T) {
	_, body := get(t, testHandler(demoProvider()), http.MethodGet, "/")
	// ceph-prod: max IOPS at r=0.7 with per-op costs 1/60000 and 1/20000 is
	// 1/(0.7/60000+0.3/20000) = 37500; headroom 1-21500/37500 = 42.7%.
	for _, want := range []string{
		`<dd class="fig-iops">21.5k</dd>`,
		`<dd class="fig-max-iops">37.5k</dd>`,
		`>16k IOPS <small>42.7%</small></dd>`,
		`<dd class="fig-read-ratio">70.0%</dd>`,
		// The two classes, not their op-weighted mean (which stays in the title).
		`their op-weighted mean is 16 KiB"><small>reads</small> 4 KiB <small>writes</small> 44 KiB</dd>`,
		// Demand grows 16k IOPS in 40 days from 21.5k: it reaches the 37.5k capacity in
		// 40 days and the SLO knee's upper bound (27720) in 6220/16000*40 = 15.55 days,
		// from the data's time 2026-11-23 23:59 UTC.
		`data-limit="max_iops">in 40 days <small>2027-01-02 23:59 UTC · 95%: 36 days to 45 days</small></dd>`,
		`data-limit="latency_slo">in 16 days <small>2026-12-09 13:11 UTC · 95%: from 12 days, maybe not within a year</small></dd>`,
		`<span class="data-as-of">2026-11-23 23:59 UTC (60 s ago)</span>`,
		`<span class="last-fit">2026-11-23 23:39 UTC (21 min ago)</span>`,
		`<span class="next-fit">by 2026-11-24 00:39 UTC (in 39 min)</span>`,
		// A flat demand reaches nothing; a trend that waits says for what.
		`data-limit="max_iops">not reached <small>not within a year</small></dd>`,
		`class="fig-eta waiting">demand trend waiting for 24 more windows with load (about 24m0s)</dd>`,
		`<a href="/metrics">`,
		`<a href="/api/v1/latency_curve?cluster=ceph-prod">`,
		`class="error">capacity model: cluster &#34;ceph-new&#34;: no model fitted yet`,
		`class="error">latency model: cluster &#34;ceph-new&#34;: no model fitted yet`,
		`<span class="stale"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// ceph-prod knee: 36000*(1-0.002/0.010) = 28800; the upper bound
	// (x1.15) crosses at 36000*(1-0.0023/0.01) = 27720, the lower (x0.85)
	// at 36000*(1-0.0017/0.01) = 29880.
	if !strings.Contains(body, `>28.8k <small>[27.7k – 29.9k]</small></dd>`) {
		t.Errorf("page lacks the knee 28.8k [27.7k – 29.9k]")
	}
	// Clusters in name order.
	a, b, c := strings.Index(body, `data-cluster="ceph-new"`), strings.Index(body, `data-cluster="ceph-prod"`), strings.Index(body, `data-cluster="swift-dc2"`)
	if !(a >= 0 && a < b && b < c) {
		t.Errorf("clusters not in name order: %d %d %d", a, b, c)
	}
	if n := strings.Count(body, "<svg "); n != 6 {
		t.Errorf("%d SVG plots, want 6 (three per healthy cluster)", n)
	}
}

// TestLandingPageMarkers checks where the plots put the limits: ceph-prod's
// trend plot spans -7..+50 days (1.25 × the 40-day ETA) over 408 units from
// x=58, and 0..50k IOPS over 206 units up from y=220; its latency plot spans
// 0..40k IOPS.
func TestLandingPageMarkers(t *testing.T) {
	_, body := get(t, testHandler(demoProvider()), http.MethodGet, "/")
	sec := body[strings.Index(body, `data-cluster="ceph-prod"`):strings.Index(body, `data-cluster="swift-dc2"`)]
	trend := sec[strings.Index(sec, `aria-label="Demand trend over time`):]
	trend = trend[:strings.Index(trend, "</svg>")]
	latency := sec[strings.Index(sec, `aria-label="Latency forecast`):]
	latency = latency[:strings.Index(latency, "</svg>")]
	for _, want := range []string{
		// The ETA at day 40: x = 58 + 408*47/57 = 394.42; day 15.55: 58 + 408*22.55/57 = 219.41.
		`<line x1="394.42" y1="14.00" x2="394.42" y2="220.00" class="eta"/>`,
		`<line x1="219.41" y1="14.00" x2="219.41" y2="220.00" class="eta"/>`,
		`>max IOPS reached in 40 days</text>`,
		// The capacity 37.5k: y = 220 - 206*37500/50000 = 65.5.
		`<line x1="58.00" y1="65.50" x2="466.00" y2="65.50" class="capacity-limit"/>`,
		// Now (day 0): x = 58 + 408*7/57 = 108.11.
		`<line x1="108.11" y1="14.00" x2="108.11" y2="220.00" class="now"/>`,
		`class="band trend-band"`, `class="mean trend-mean"`, `class="history"`,
	} {
		if !strings.Contains(trend, want) {
			t.Errorf("trend plot lacks %s", want)
		}
	}
	// Capacity on the latency plot: x = 58 + 408*37500/40000 = 440.5.
	for _, want := range []string{`<line x1="440.50" y1="14.00" x2="440.50" y2="220.00" class="capacity-marker"/>`, `>capacity 37.5k</text>`} {
		if !strings.Contains(latency, want) {
			t.Errorf("latency plot lacks %s", want)
		}
	}
}

func TestLandingPageEscapesEverything(t *testing.T) {
	evil := `x"><script>alert(1)</script><svg onload=alert(2)>`
	p := &fakeProvider{
		clusters: []apiv1.Cluster{{Name: evil, Kind: `<b>ceph</b>`, Models: map[string]apiv1.ModelStatus{
			`<i>m</i>`: {Fitted: false, Error: `<img src=x onerror=alert(3)>`},
		}, DataAsOfUnix: demoAsOf, SaturationETAs: []apiv1.SaturationETA{{Limit: `<script>alert(6)</script>`, Seconds: ptr(86400)}}}},
		trends:   map[string]linearDemand{evil: {level: 1000, slope: 0.01}},
		capacity: map[string]apiv1.CapacityCurve{evil: capacityOf(evil, 1e-4, 2e-4, 0.5, 1000, 4096)},
		latency:  map[string]apiv1.LatencyCurve{},
		latErr:   map[string]error{evil: errors.New(`<script>alert(4)</script>`)},
	}
	lc := latencyOf(evil, 0.001, 5000, 0.01, 1000)
	lc.Latency = `"><script>alert(5)</script>`
	p.latency[evil] = lc
	p.latErr = nil
	_, body := get(t, testHandler(p), http.MethodGet, "/")
	for _, bad := range []string{"<script", "<img", "<svg onload", "<b>", "<i>"} {
		if strings.Contains(body, bad) {
			t.Errorf("unescaped %q in page", bad)
		}
	}
	// The name is in the page, escaped, and the link's query is URL-encoded.
	if !strings.Contains(body, "x&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("escaped cluster name not found")
	}
	if !strings.Contains(body, "/api/v1/latency_curve?cluster=x%22%3e%3cscript%3ealert%281%29%3c%2fscript%3e") {
		t.Errorf("URL-encoded cluster name not found in links")
	}

	// An error message with markup is shown as text.
	p.latErr = map[string]error{evil: errors.New(`<script>alert(4)</script>`)}
	_, body = get(t, testHandler(p), http.MethodGet, "/")
	if strings.Contains(body, "<script") || !strings.Contains(body, "latency model: &lt;script&gt;alert(4)&lt;/script&gt;") {
		t.Errorf("error message not shown escaped")
	}
}

func TestLandingPageNonFiniteValues(t *testing.T) {
	cc := capacityOf("c", 1e-4, 2e-4, 0.5, 1000, 4096)
	cc.Points[3].MaxIOPS = math.NaN()
	cc.Points[4].MaxIOPS = math.Inf(1)
	cc.Current.MaxIOPS = math.Inf(1)
	lc := latencyOf("c", 0.001, 5000, 0.01, 1000)
	lc.Points[5].Mean = math.NaN()
	lc.Observed[0].LatencySeconds = math.Inf(1)
	lc.KneeIOPS = apiv1.Band{Mean: ptr(math.NaN())}
	p := &fakeProvider{
		clusters: []apiv1.Cluster{{Name: "c", Kind: "generic"}},
		capacity: map[string]apiv1.CapacityCurve{"c": cc},
		latency:  map[string]apiv1.LatencyCurve{"c": lc},
	}
	res, body := get(t, testHandler(p), http.MethodGet, "/")
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(body, bad) {
			t.Errorf("%q written into the page", bad)
		}
	}
	if !strings.Contains(body, `<dd class="fig-max-iops">n/a</dd>`) || !strings.Contains(body, `>n/a <small>n/a</small></dd>`) {
		t.Errorf("non-finite max IOPS not shown as n/a")
	}
	// A NaN knee is n/a; bounds that do not cross the SLO are "beyond".
	if !strings.Contains(body, `>n/a <small>[beyond – beyond]</small></dd>`) {
		t.Errorf("knee without bounds not shown as n/a [beyond – beyond]")
	}
}

// A max IOPS of 0 is the API's "no capacity at today's mix": shown as n/a,
// not as a max of 0 IOPS.
func TestLandingPageUnknownMaxIOPS(t *testing.T) {
	cc := capacityOf("c", 1e-4, 2e-4, 0.5, 1000, 4096)
	cc.Current.MaxIOPS = 0
	p := &fakeProvider{clusters: []apiv1.Cluster{{Name: "c", Kind: "generic"}}, capacity: map[string]apiv1.CapacityCurve{"c": cc}}
	_, body := get(t, testHandler(p), http.MethodGet, "/")
	if !strings.Contains(body, `<dd class="fig-max-iops">n/a</dd>`) || strings.Contains(body, "max 0") {
		t.Errorf("a max IOPS of 0 not shown as n/a")
	}
}

func TestLandingPageEmpty(t *testing.T) {
	_, body := get(t, testHandler(&fakeProvider{}), http.MethodGet, "/")
	if !strings.Contains(body, "No clusters are configured yet") {
		t.Errorf("empty page lacks its message")
	}
	// A fitted cluster with empty curves shows the plots' placeholders.
	p := &fakeProvider{
		clusters: []apiv1.Cluster{{Name: "c"}},
		capacity: map[string]apiv1.CapacityCurve{"c": {Cluster: "c"}},
		latency:  map[string]apiv1.LatencyCurve{"c": {Cluster: "c"}},
	}
	_, body = get(t, testHandler(p), http.MethodGet, "/")
	for _, want := range []string{"no latency curve fitted yet", "no capacity model fitted yet"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestLandingPageRoutes(t *testing.T) {
	h := testHandler(demoProvider())
	if res, _ := get(t, h, http.MethodGet, "/nope"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope: %d, want 404", res.StatusCode)
	}
	if res, _ := get(t, h, http.MethodPost, "/"); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d, want 405", res.StatusCode)
	}
	if res, _ := get(t, h, http.MethodHead, "/"); res.StatusCode != http.StatusOK {
		t.Errorf("HEAD /: %d, want 200", res.StatusCode)
	}
}

// cancelProvider checks that the handler passes the request's context on.
type cancelProvider struct{ fakeProvider }

func (c *cancelProvider) Clusters(ctx context.Context) []apiv1.Cluster {
	if ctx.Err() != nil {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		return []apiv1.Cluster{{Name: "no-deadline"}}
	}
	return nil
}

func TestLandingPageContextHasDeadline(t *testing.T) {
	_, body := get(t, testHandler(&cancelProvider{}), http.MethodGet, "/")
	if strings.Contains(body, "no-deadline") {
		t.Errorf("Provider called without a deadline")
	}
}

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi   float64
		wantHi   float64
		wantStep float64
	}{
		{0, 37500, 40000, 10000},
		{0, 0.0123, 0.015, 0.005},
		{0, 1, 1, 0.2},
		{0, 0, 1, 0.2},
	} {
		ticks, lo, hi := niceTicks(tc.lo, tc.hi, 5)
		if lo != 0 || math.Abs(hi-tc.wantHi) > 1e-12 {
			t.Errorf("niceTicks(%g,%g): range [%g,%g], want [0,%g]", tc.lo, tc.hi, lo, hi, tc.wantHi)
		}
		if step := ticks[1] - ticks[0]; math.Abs(step-tc.wantStep) > 1e-12 {
			t.Errorf("niceTicks(%g,%g): step %g, want %g", tc.lo, tc.hi, step, tc.wantStep)
		}
		if ticks[len(ticks)-1] < tc.hi {
			t.Errorf("niceTicks(%g,%g): last tick %g below hi", tc.lo, tc.hi, ticks[len(ticks)-1])
		}
	}
}

// windowProvider records the window the page asks the demand trend for.
type windowProvider struct {
	fakeProvider
	start, end, step float64
}

func (w *windowProvider) Forecast(ctx context.Context, cluster, series string, start, end, step float64) (apiv1.Forecast, error) {
	w.start, w.end, w.step = start, end, step
	return w.fakeProvider.Forecast(ctx, cluster, series, start, end, step)
}

// TestTrendWindow: the plot reaches 1.25 times past the capacity ETA (at
// least a day, at most a year) and looks back as far (one to seven days).
func TestTrendWindow(t *testing.T) {
	for _, tc := range []struct {
		eta           *float64
		behind, ahead float64 // days
	}{
		{ptr(30 * 3600), 1.5625, 1.5625}, // 30 h ahead: 37.5 h either side
		{ptr(3600), 1, 1},                // an hour: a day either side
		{ptr(40 * 86400), 7, 50},
		{ptr(1000 * 86400), 7, 365},
		{nil, 7, 30}, // never reached: a month ahead
	} {
		w := &windowProvider{fakeProvider: fakeProvider{
			clusters: []apiv1.Cluster{{Name: "c", DataAsOfUnix: demoAsOf, SaturationETAs: []apiv1.SaturationETA{{Limit: "max_iops", Seconds: tc.eta}}}},
			trends:   map[string]linearDemand{"c": {level: 1000, slope: 0.001}},
		}}
		get(t, testHandler(w), http.MethodGet, "/")
		behind, ahead := (demoAsOf-w.start)/86400, (w.end-demoAsOf)/86400
		if math.Abs(behind-tc.behind) > 1e-9 || math.Abs(ahead-tc.ahead) > 1e-9 {
			t.Errorf("ETA %v: window -%g..+%g days, want -%g..+%g", tc.eta, behind, ahead, tc.behind, tc.ahead)
		}
		if n := (w.end - w.start) / w.step; n > trendPoints || n < trendPoints-1 {
			t.Errorf("ETA %v: %g steps, want about %d", tc.eta, n, trendPoints)
		}
	}
}

// TestETABandInWords: the band's ends in words; an early end at 0 is
// "now", a late end beyond the horizon (null) "maybe not within a year".
func TestETABandInWords(t *testing.T) {
	for _, tc := range []struct {
		band *apiv1.ETABand
		want string
	}{
		{nil, ""},
		{&apiv1.ETABand{}, ""},
		{&apiv1.ETABand{Early: ptr(30 * 3600), Late: ptr(60 * 3600)}, "95%: 30 h to 2.5 days"},
		{&apiv1.ETABand{Early: ptr(0), Late: ptr(3 * 3600)}, "95%: now to 3 h"},
		{&apiv1.ETABand{Early: ptr(12 * 86400)}, "95%: from 12 days, maybe not within a year"},
	} {
		if got := etaBand(tc.band); got != tc.want {
			t.Errorf("etaBand(%+v) = %q, want %q", tc.band, got, tc.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		want string
	}{
		{0, "0 s"}, {60, "60 s"}, {90, "2 min"}, {39 * 60, "39 min"}, {2 * 3600, "2 h"}, {35 * 3600, "35 h"},
		{2 * 86400, "2.0 days"}, {15.55 * 86400, "16 days"}, {40 * 86400, "40 days"}, {3 * 365.25 * 86400, "3.0 years"},
		{math.Inf(1), "n/a"}, {math.NaN(), "n/a"},
	} {
		if got := formatDuration(tc.sec); got != tc.want {
			t.Errorf("formatDuration(%g) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}

// TestETAAtTheLimit: a trend already at the limit says "now"; an ETA past
// the plot's window draws no marker.
func TestETAAtTheLimit(t *testing.T) {
	p := &fakeProvider{
		clusters: []apiv1.Cluster{{Name: "c", DataAsOfUnix: demoAsOf, SaturationETAs: []apiv1.SaturationETA{
			{Limit: "latency_slo", Seconds: ptr(0)}, {Limit: "max_iops", Seconds: ptr(1000 * 86400)}}}},
		trends: map[string]linearDemand{"c": {level: 1000, slope: 0.001}},
	}
	_, body := get(t, testHandler(p), http.MethodGet, "/")
	for _, want := range []string{`data-limit="latency_slo">now <small>the trend is at the limit</small>`, `data-limit="max_iops">in 2.7 years`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// The window ends a year ahead: one marker (day 0), not two.
	if n := strings.Count(body, `class="eta"`); n != 1 {
		t.Errorf("%d ETA markers, want 1", n)
	}
}

// TestLandingPageRuleSets: a cluster with the advisor shows each rule set's
// predicted boost and the recommendation; one whose advisor cannot answer
// says why; one without a catalog shows nothing of it.
func TestLandingPageRuleSets(t *testing.T) {
	p := demoProvider()
	p.clusters[0].Models["advisor"] = apiv1.ModelStatus{Fitted: true}
	p.clusters[1].Models["advisor"] = apiv1.ModelStatus{Fitted: true}
	p.ruleSets = map[string]apiv1.RuleSets{p.clusters[0].Name: {Cluster: p.clusters[0].Name, Recommended: "qos-cap", Predictions: []apiv1.RuleSetPrediction{
		{RuleSet: "qos-cap", Description: "per-client cap", BoostRatio: 0.076, CVErrorRatio: 0.057, Recommended: true},
		{RuleSet: "read-window", BoostRatio: -0.02, CVErrorRatio: 0.05, Extrapolated: true},
	}}}
	_, body := get(t, testHandler(p), "GET", "/")
	for _, want := range []string{
		`<tr class="recommended"><td title="per-client cap">qos-cap</td><td class="fig-boost">&#43;7.6%</td>`, // html/template writes + as &#43;
		`read-window</td><td class="fig-boost">-2.0%</td>`,
		"outside its experiments",
		"rule-set advisor: no current workload to advise on",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if i := strings.Index(body, `<table class="rulesets">`); i >= 0 && t.Failed() {
		t.Logf("%s", body[i:min(len(body), i+900)])
	}
	if strings.Count(body, `class="rulesets"`) != 1 {
		t.Errorf("%d rule-set tables, want 1 (one cluster has an answer)", strings.Count(body, `class="rulesets"`))
	}
}

// TestETAZeroForLatencyOverSLO: a max_iops ETA of 0 because the latency is
// over its SLO, with 43% headroom left, says so; it does not say max IOPS
// is reached. One of 0 for a saturated cluster says that.
func TestETAZeroForLatencyOverSLO(t *testing.T) {
	p := &fakeProvider{
		clusters: []apiv1.Cluster{{Name: "c", DataAsOfUnix: demoAsOf, SaturationETAs: []apiv1.SaturationETA{
			{Limit: "latency_slo", Seconds: ptr(0), Reason: apiv1.ETAReasonLatencyOverSLO},
			{Limit: "max_iops", Seconds: ptr(0), Reason: apiv1.ETAReasonLatencyOverSLO}}}},
		// 21375 of 37500 IOPS: 43% headroom.
		capacity: map[string]apiv1.CapacityCurve{"c": capacityOf("c", 1.0/60000, 1.0/20000, 0.7, 21375, 16384)},
		trends:   map[string]linearDemand{"c": {level: 21375, slope: 0.001}},
	}
	_, body := get(t, testHandler(p), http.MethodGet, "/")
	if !strings.Contains(body, `<small>43.0%</small>`) {
		t.Fatalf("the page does not show 43%% headroom; the test's premise is broken")
	}
	for _, want := range []string{
		`<dt>latency over its SLO</dt><dd class="fig-eta" data-limit="max_iops">now`,
		`data-limit="latency_slo">now <small>the observed latency is over it</small>`,
		`>latency over its SLO now</text>`, // the trend plot's marker
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, bad := range []string{"max IOPS reached", "the trend is at the limit"} {
		if strings.Contains(body, bad) {
			t.Errorf("page says %q while latency is over its SLO with 43%% headroom", bad)
		}
	}

	p.clusters[0].SaturationETAs = []apiv1.SaturationETA{{Limit: "max_iops", Seconds: ptr(0), Reason: apiv1.ETAReasonSaturated}}
	_, body = get(t, testHandler(p), http.MethodGet, "/")
	if want := `<dt>max IOPS reached</dt><dd class="fig-eta" data-limit="max_iops">now <small>utilization is at capacity</small>`; !strings.Contains(body, want) {
		t.Errorf("page lacks %s", want)
	}
}

// TestNumbersHaveNoExponent: a value that rounds to 1000 of a unit is
// written in the next unit, and a tick of a fixed unit in full digits.
func TestNumbersHaveNoExponent(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"999,700 IOPS", formatIOPS(999700), "1M"},
		{"1,040,000 B", formatBytes(1040000), "0.992 MiB"},
		{"999.6 µs", formatSeconds(999.6e-6), "1 ms"},
		{"1000 ms on the latency axis", trim(1000), "1000"},
		{"12,345 IOPS", formatIOPS(12345), "12.3k"},
		{"4 KiB", formatBytes(4096), "4 KiB"},
		{"2.5 ms", formatSeconds(0.0025), "2.5 ms"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	// A 1 s SLO: the latency axis (in ms) reaches 1200, its ticks in full.
	lc := latencyOf("c", 0.2, 5000, 1, 1000)
	svg := string(latencySVG(lc, 1000, 5000))
	if strings.Contains(svg, "e+") {
		t.Errorf("the latency plot writes a number with an exponent:\n%s", svg)
	}
	if !strings.Contains(svg, `class="tick">1000</text>`) || !strings.Contains(svg, ">SLO 1 s</text>") {
		t.Errorf("the latency plot lacks the 1000 ms tick or the 1 s SLO label:\n%s", svg)
	}
}

// TestLandingPageBadges: a cluster whose rate window was not full shows a
// warming-up badge that says so; the stale badge says what stale means
// (engine.markStale: the source down or the last fit older than
// fit.stale_after), not a failed fit.
func TestLandingPageBadges(t *testing.T) {
	p := &fakeProvider{clusters: []apiv1.Cluster{
		{Name: "warm", WarmingUp: true},
		{Name: "old", Models: map[string]apiv1.ModelStatus{"trend": {Fitted: true, Stale: true}}},
	}}
	_, body := get(t, testHandler(p), http.MethodGet, "/")
	section := func(name string) string {
		s := body[strings.Index(body, `data-cluster="`+name+`"`):]
		return s[:strings.Index(s, "</h2>")]
	}
	if w := section("warm"); !strings.Contains(w, `<span class="warming-up" title="the latest observation's rate window was not full yet`) ||
		!strings.Contains(w, ">warming up</span>") {
		t.Errorf("the warming-up cluster's heading lacks its badge: %s", w)
	}
	if strings.Contains(section("old"), "warming up") {
		t.Errorf("a cluster not warming up has the badge: %s", section("old"))
	}
	old := section("old")
	if !strings.Contains(old, `title="the source is down, or the last successful fit is older than fit.stale_after;`) || strings.Contains(old, "fit failed") {
		t.Errorf("the stale badge does not say what stale means: %s", old)
	}
}
