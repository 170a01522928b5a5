package models

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"

	"github.com/storcast/storcast/exporter/apiv1"
)

func js(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestParseRatio(t *testing.T) {
	good := map[string]float64{"0.7": 0.7, "70%": 0.7, " 100 % ": 1, "0": 0, "1": 1, "12.5%": 0.125}
	for in, want := range good {
		got, err := ParseRatio(in)
		if err != nil || got != want {
			t.Errorf("ParseRatio(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"70":   `"70" is outside 0..1 (write 70% for a percentage)`,
		"170%": `"170%" is outside 0..100%`,
		"-0.1": `"-0.1" is outside 0..1`,
		"abc":  `"abc" is not a ratio`,
		"NaN":  `"NaN" is not a ratio`,
		"":     `"" is not a ratio`,
	}
	for in, want := range bad {
		_, err := ParseRatio(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRatio(%q) error = %v; want it to contain %q", in, err, want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	good := map[string]float64{"4096": 4096, "4k": 4096, "4K": 4096, "4KiB": 4096, "4 KB": 4096,
		"1MiB": 1 << 20, "1.5M": 1.5 * (1 << 20), "512B": 512, "64MiB": 64 << 20}
	for in, want := range good {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "k", "four", "0", "-4k", "32GiB", "1GiB", "511B", "64.5MiB", "4kb", "Inf"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseIOSizeMix(t *testing.T) {
	mix, err := ParseIOSizeMix("4KiB:70%, 1MiB:0.3")
	if err != nil {
		t.Fatal(err)
	}
	want := []apiv1.IOSizeShare{{Bytes: 4096, Share: 0.7}, {Bytes: 1 << 20, Share: 0.3}}
	if len(mix) != 2 || mix[0] != want[0] || mix[1] != want[1] {
		t.Errorf("mix = %v, want %v", mix, want)
	}
	one, err := ParseIOSizeMix("64k")
	if err != nil || len(one) != 1 || one[0] != (apiv1.IOSizeShare{Bytes: 65536, Share: 1}) {
		t.Errorf("single size = %v, %v", one, err)
	}
	for in, want := range map[string]string{
		"4KiB:70%,1MiB:20%": "shares add up to 90, not 100%",
		"4KiB:70%,1MiB":     `"1MiB": each size of a mix needs its share`,
		"4KiB:x,1MiB:1":     "share of 4KiB",
		"zz:50%,4k:50%":     `"zz" is not a size`,
	} {
		if _, err := ParseIOSizeMix(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseIOSizeMix(%q) error = %v, want it to contain %q", in, err, want)
		}
	}
}

func TestTextAcceptsNumbersStringsAndNull(t *testing.T) {
	q, err := ParseQuery(backend.DataQuery{JSON: []byte(`{"queryType":"whatIf","cluster":" c ","readRatio":0.25,"extraIops":"1500","hostsAdded":null,"ioSize":4096}`)})
	if err != nil {
		t.Fatal(err)
	}
	if q.Cluster != "c" || q.ReadRatio != "0.25" || q.ExtraIOPS != "1500" || q.HostsAdded != "" || q.IOSize != "4096" {
		t.Errorf("query = %+v", q)
	}
	// A field of the wrong type is named (encoding/json names it only in
	// its own type errors), its value cut to 64 bytes.
	long := "[" + strings.Repeat("1,", 100) + "1]"
	for js, want := range map[string]string{
		`{"cluster":"c","readRatio":[1]}`:       "readRatio: want a number or a string, got [1]",
		`{"cluster":"c","extraIops":true}`:      "extraIops: want a number or a string, got true",
		`{"cluster":"c","ioSize":` + long + `}`: "ioSize: want a number or a string, got " + long[:64] + "...",
		`{"cluster":5}`:                         "cluster: want string, got number",
	} {
		if _, err := ParseQuery(backend.DataQuery{JSON: []byte(js)}); err == nil || err.Error() != want {
			t.Errorf("ParseQuery(%s) error = %v, want %q", js, err, want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	q, err := ParseQuery(backend.DataQuery{JSON: []byte(`{"cluster":"c"}`)})
	if err != nil || q.QueryType != QueryForecast {
		t.Errorf("default type = %q, %v; want forecast", q.QueryType, err)
	}
	q, err = ParseQuery(backend.DataQuery{QueryType: QueryLatencyCurve, JSON: []byte(`{"queryType":"forecast","cluster":"c"}`)})
	if err != nil || q.QueryType != QueryLatencyCurve {
		t.Errorf("DataQuery.QueryType must win: %q, %v", q.QueryType, err)
	}
	for js, want := range map[string]string{
		`{"queryType":"nope","cluster":"c"}`: `queryType: unknown query type "nope"`,
		`{"queryType":"forecast"}`:           "cluster: missing",
		`{"cluster":"$cluster"}`:             `cluster: "$cluster" still holds a template variable: it was not replaced before the query reached the plugin (is the variable defined?)`,
		`{"cluster":`:                        "query JSON:",
	} {
		if _, err := ParseQuery(backend.DataQuery{JSON: []byte(js)}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseQuery(%s) error = %v, want it to contain %q", js, err, want)
		}
	}
	// storcast takes at most apiv1.MaxClusterNameBytes; what a longer
	// name would give (a what-if body or a URL past storcast's limits) says
	// nothing of the cluster. The name is echoed cut to 64 bytes.
	most := strings.Repeat("c", apiv1.MaxClusterNameBytes)
	if q, err := ParseQuery(backend.DataQuery{JSON: js(map[string]string{"cluster": most})}); err != nil || q.Cluster != most {
		t.Errorf("a cluster of %d bytes: %v", apiv1.MaxClusterNameBytes, err)
	}
	for _, n := range []int{apiv1.MaxClusterNameBytes + 1, 2 << 20} {
		_, err := ParseQuery(backend.DataQuery{JSON: js(map[string]string{"cluster": strings.Repeat("c", n)})})
		want := fmt.Sprintf(`cluster: "%s..." is %d bytes; storcast takes at most %d`, strings.Repeat("c", 64), n, apiv1.MaxClusterNameBytes)
		if err == nil || err.Error() != want {
			t.Errorf("a cluster of %d bytes: error %.200v; want %q", n, err, want)
		}
	}
	// Every echo of a field is cut.
	long := strings.Repeat("x", 1000)
	for js, want := range map[string]string{
		`{"cluster":"$` + long[:200] + `"}`:          `cluster: "$` + long[:63] + `..." still holds a template variable`,
		`{"queryType":"` + long + `","cluster":"c"}`: `queryType: unknown query type "` + long[:64] + `..." (want`,
	} {
		if _, err := ParseQuery(backend.DataQuery{JSON: []byte(js)}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %.200v; want it to begin %q", err, want)
		}
	}
	if _, err := (Query{Cluster: "c", Points: Text(long)}).CapacityRequest(); err == nil || !strings.HasPrefix(err.Error(), `points: "`+long[:64]+`..." is not`) {
		t.Errorf("points: error %.200v; want the value cut", err)
	}
	// The variable reached the plugin unreplaced (an expression or an alert
	// rule, say): the message must not claim the dashboard lacks it.
	if _, err := ParseQuery(backend.DataQuery{JSON: []byte(`{"cluster":"$cluster"}`)}); err == nil || strings.Contains(err.Error(), "dashboard") {
		t.Errorf("unreplaced variable: error = %v, want one that does not blame the dashboard", err)
	}
}

// Series, horizon and step are trimmed like the other fields: a variable's
// value or a pasted "7d " must not fail as "not a duration".
func TestForecastFieldsTrimmed(t *testing.T) {
	q, err := ParseQuery(backend.DataQuery{JSON: []byte(`{"cluster":"c","series":"iops ","horizon":"7d ","step":" 5m"}`)})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := backend.TimeRange{From: from, To: from.Add(24 * time.Hour)}
	f, err := q.ForecastRequest(tr, time.Minute, from)
	if err != nil {
		t.Fatal(err)
	}
	if f.Series != "iops" || !f.End.Equal(tr.To.Add(7*24*time.Hour)) || f.Step != 5*time.Minute {
		t.Errorf("forecast = %+v", f)
	}
}

func TestForecastRequest(t *testing.T) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := backend.TimeRange{From: from, To: from.Add(24 * time.Hour)}

	f, err := Query{Cluster: "c"}.ForecastRequest(tr, time.Minute, from)
	if err != nil || f.Series != "iops" || f.Step != time.Minute || !f.End.Equal(tr.To) || !f.Start.Equal(from) {
		t.Errorf("defaults: %+v, %v", f, err)
	}
	f, err = Query{Cluster: "c", Series: "max_iops", Horizon: "7d", Step: "5m"}.ForecastRequest(tr, time.Minute, from)
	if err != nil || !f.End.Equal(tr.To.Add(7*24*time.Hour)) || f.Step != 5*time.Minute {
		t.Errorf("horizon and step: %+v, %v", f, err)
	}
	// Interval 0 and a year-long range: the step grows to keep <= MaxForecastPoints points.
	long := backend.TimeRange{From: from, To: from.Add(365 * 24 * time.Hour)}
	f, err = Query{Cluster: "c"}.ForecastRequest(long, 0, from)
	if err != nil {
		t.Fatal(err)
	}
	if n := long.To.Sub(long.From)/f.Step + 1; n > MaxForecastPoints || f.Step%time.Second != 0 {
		t.Errorf("step %v gives %d points", f.Step, n)
	}
	// A span of exactly MaxForecastPoints steps would be one point too many
	// (storcast answers floor(span/step) + 1 points): the step grows.
	exact := backend.TimeRange{From: from, To: from.Add(MaxForecastPoints * time.Minute)}
	f, err = Query{Cluster: "c", Step: "1m"}.ForecastRequest(exact, time.Minute, from)
	if err != nil {
		t.Fatal(err)
	}
	if n := exact.To.Sub(exact.From)/f.Step + 1; n > MaxForecastPoints || f.Step <= time.Minute {
		t.Errorf("span of %d steps: step %v gives %d points", MaxForecastPoints, f.Step, n)
	}
	// A step of a month over a week is kept as asked: step × MaxForecastPoints
	// overflows a Duration (it once read as negative and the step shrank to
	// 55 s, 11,000 points where one was asked for).
	week := backend.TimeRange{From: from, To: from.Add(7 * 24 * time.Hour)}
	f, err = Query{Cluster: "c", Step: "30d"}.ForecastRequest(week, time.Minute, from)
	if err != nil || f.Step != 30*24*time.Hour {
		t.Errorf("step 30d over a week: %v, %v", f.Step, err)
	}
	for q, want := range map[Query]string{
		{Cluster: "c", Series: "latency"}: `series: unknown series "latency"`,
		{Cluster: "c", Horizon: "soon"}:   `horizon: "soon" is not a duration`,
		{Cluster: "c", Step: "0s"}:        `step: "0s" is not a positive duration`,
		{Cluster: "c", Horizon: "-2d"}:    `horizon: "-2d"`,
		// storcast answers no time more than ten years from its clock.
		{Cluster: "c", Horizon: "20y"}: `horizon: "20y" after the time range's end 2026-01-02T00:00:00Z ends the forecast at 2045-12-28T00:00:00Z, more than 3652 days from now (2026-01-01T00:00:00Z), further than storcast answers`,
	} {
		if _, err := q.ForecastRequest(tr, time.Minute, from); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error = %v, want it to contain %q", q, err, want)
		}
	}
	if _, err := (Query{Cluster: "c"}).ForecastRequest(backend.TimeRange{From: from, To: from}, time.Minute, from); err == nil {
		t.Error("an empty time range was accepted")
	}
}

// TestForecastStepIsStorcasts: the step is parsed by storcast's own parser
// (apiv1.ParseDurationParam), bare seconds included, with its message.
func TestForecastStepIsStorcasts(t *testing.T) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := backend.TimeRange{From: from, To: from.Add(24 * time.Hour)}
	for step, want := range map[Text]time.Duration{"300": 5 * time.Minute, "90.5": 90500 * time.Millisecond, "5m": 5 * time.Minute, "1d": 24 * time.Hour} {
		if f, err := (Query{Cluster: "c", Step: step}).ForecastRequest(tr, time.Second, from); err != nil || f.Step != want {
			t.Errorf("step %q: %v, %v; want %v", step, f.Step, err, want)
		}
	}
	// Past time.Duration's range (storcast accepts it: one point): the
	// longest Duration, not an overflow.
	if f, err := (Query{Cluster: "c", Step: "1e10"}).ForecastRequest(tr, time.Second, from); err != nil || f.Step != math.MaxInt64 {
		t.Errorf("step 1e10: %v, %v; want the longest Duration", f.Step, err)
	}
	for _, step := range []string{"soon", "0", "-300", "1.5h", "Inf"} {
		_, want := apiv1.ParseDurationParam("step", step, 0)
		if _, err := (Query{Cluster: "c", Step: Text(step)}).ForecastRequest(tr, time.Second, from); want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("step %q: error %v; want storcast's %v", step, err, want)
		}
	}
}

// TestForecastTimeRangeWithinStorcasts: start and end must lie within
// apiv1.MaxTimeOffsetSeconds of now, or storcast refuses them naming start
// and end, which the user never set; the error names the time range or the
// horizon instead.
func TestForecastTimeRangeWithinStorcasts(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	year := 365 * 24 * time.Hour
	for _, c := range []struct {
		from, to time.Time
		horizon  Text
		want     string
	}{
		{now.Add(-20 * year), now, "", "time range: from 2006-06-06T00:00:00Z is more than 3652 days from now (2026-06-01T00:00:00Z), further than storcast answers"},
		{now, now.Add(11 * year), "", "time range: to 2037-05-29T00:00:00Z is more than 3652 days"},
		{now.Add(-time.Hour), now.Add(5 * year), "7y", `horizon: "7y" after the time range's end 2031-05-31T00:00:00Z ends the forecast at 2038-05-29T00:00:00Z, more than 3652 days`},
	} {
		_, err := Query{Cluster: "c", Horizon: c.horizon}.ForecastRequest(backend.TimeRange{From: c.from, To: c.to}, time.Minute, now)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v..%v horizon %q: error %v; want it to contain %q", c.from, c.to, c.horizon, err, c.want)
		}
	}
	// Within the bound, a long horizon is fine: the end is what storcast
	// bounds, not the horizon.
	tr := backend.TimeRange{From: now.Add(-6 * year), To: now.Add(-5 * year)}
	if f, err := (Query{Cluster: "c", Horizon: "12y"}).ForecastRequest(tr, time.Minute, now); err != nil || !f.End.Equal(now.Add(7*year)) {
		t.Errorf("horizon 12y from 5 years ago: %+v, %v", f, err)
	}
	// Nine years either side: within (storcast answers it, contract_test).
	tr = backend.TimeRange{From: now.Add(-9 * year), To: now.Add(9 * year)}
	if _, err := (Query{Cluster: "c"}).ForecastRequest(tr, time.Minute, now); err != nil {
		t.Errorf("nine years either side: %v", err)
	}
}

func TestCapacityAndWhatIfRequests(t *testing.T) {
	c, err := Query{Cluster: "c", IOSize: "64KiB", Points: "11"}.CapacityRequest()
	if err != nil || c.IOSizeBytes != 65536 || c.Points != 11 {
		t.Errorf("capacity: %+v, %v", c, err)
	}
	if c, err := (Query{Cluster: "c"}).CapacityRequest(); err != nil || c.IOSizeBytes != 0 || c.Points != 0 {
		t.Errorf("capacity defaults: %+v, %v", c, err)
	}
	for q, want := range map[Query]string{
		{Cluster: "c", Points: "1"}:   `points: "1" is not a whole number in 2..1001`,
		{Cluster: "c", Points: "ten"}: `points: "ten"`,
		{Cluster: "c", IOSize: "big"}: `ioSize: "big" is not a size`,
	} {
		if _, err := q.CapacityRequest(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error = %v, want it to contain %q", q, err, want)
		}
	}

	w, err := Query{Cluster: "c", ReadRatio: "60%", IOSize: "8k", ExtraIOPS: "2500", HostsAdded: "3"}.WhatIfRequest()
	if err != nil || *w.ReadRatio != 0.6 || w.ExtraIOPS != 2500 || w.HostsAdded != 3 || len(w.IOSizes) != 1 || w.IOSizes[0].Bytes != 8192 {
		t.Errorf("what-if: %+v, %v", w, err)
	}
	// A negative extra load takes from today's, as storcast's API allows
	// (|extraIops| <= apiv1.MaxExtraIOPS; storcast refuses a load left <= 0).
	for in, want := range map[Text]float64{"-5": -5, "-1e9": -apiv1.MaxExtraIOPS, "1e9": apiv1.MaxExtraIOPS} {
		if w, err := (Query{Cluster: "c", ExtraIOPS: in}).WhatIfRequest(); err != nil || w.ExtraIOPS != want {
			t.Errorf("extraIops %q: %v, %v; want %v", in, w.ExtraIOPS, err, want)
		}
	}
	if w, err := (Query{Cluster: "c"}).WhatIfRequest(); err != nil || w.ReadRatio != nil || w.IOSizes != nil {
		t.Errorf("what-if defaults keep today's mix: %+v, %v", w, err)
	}
	for q, want := range map[Query]string{
		{Cluster: "c", ReadRatio: "70"}:     "readRatio: \"70\" is outside 0..1 (write 70% for a percentage)",
		{Cluster: "c", ExtraIOPS: "2e9"}:    `extraIops: "2e9" is not a number in -1000000000..1000000000`,
		{Cluster: "c", ExtraIOPS: "-2e9"}:   `extraIops: "-2e9" is not a number in -1000000000..1000000000`,
		{Cluster: "c", ExtraIOPS: "NaN"}:    `extraIops: "NaN" is not a number`,
		{Cluster: "c", HostsAdded: "10001"}: `hostsAdded: "10001" is not a whole number in 0..10000`,
		{Cluster: "c", HostsAdded: "1.5"}:   `hostsAdded: "1.5" is not a whole number`,
		{Cluster: "c", IOSize: "4k:50%"}:    "ioSize:",
		// One size more than storcast takes (apiv1.MaxIOSizes).
		{Cluster: "c", IOSize: Text(strings.Repeat("4KiB:1%,", apiv1.MaxIOSizes) + "8KiB:36%")}: "ioSize: 65 sizes; storcast takes at most 64",
	} {
		if _, err := q.WhatIfRequest(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error = %v, want it to contain %q", q, err, want)
		}
	}
	most := strings.Repeat("4KiB:1%,", apiv1.MaxIOSizes-1) + "8KiB:37%"
	if w, err := (Query{Cluster: "c", IOSize: Text(most)}).WhatIfRequest(); err != nil || len(w.IOSizes) != apiv1.MaxIOSizes {
		t.Errorf("%d sizes: %d, %v; want them all", apiv1.MaxIOSizes, len(w.IOSizes), err)
	}
}
