package protocoltest

import (
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/grafana-plugin/pkg/storcast/storcasttest"
)

// answer is what the contract compares of a response: the status, the
// envelope's errorType, the parameter its error names (the text before the
// first ':'), the whole error text, each with the cluster's name replaced by
// {c}, and the Allow header of a 405. The text is left out of the
// comparison where it carries data that differs between the two (the
// textVaries cases).
type answer struct {
	status    int
	envelope  string
	errorType string
	param     string
	text      string
	allow     string
}

func (a answer) String() string {
	return fmt.Sprintf("%d %s errorType=%q param=%q allow=%q", a.status, a.envelope, a.errorType, a.param, a.allow)
}

// contractCase is one request: its query or body with {c} for the cluster's
// name, the body padded with blanks to padTo bytes when set.
type contractCase struct {
	name, method, path, query, body string
	padTo                           int
}

// ask sends c to base with {c} replaced by cluster, and returns its answer
// and the error message.
func ask(t *testing.T, base, cluster string, c contractCase) (answer, string) {
	t.Helper()
	fill := func(s string) string { return strings.ReplaceAll(s, "{c}", cluster) }
	u := base + c.path
	if c.query != "" {
		u += "?" + fill(c.query)
	}
	var rd io.Reader
	if body := fill(c.body); body != "" {
		if c.padTo > len(body) {
			body += strings.Repeat(" ", c.padTo-len(body))
		}
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(c.method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading: %v", c.method, u, err)
	}
	a := answer{status: resp.StatusCode, allow: resp.Header.Get("Allow")}
	env, err := apiv1.ParseEnvelope(b)
	if err != nil {
		a.envelope = "not an envelope: " + err.Error()
		return a, string(b)
	}
	a.envelope, a.errorType = env.Status, env.ErrorType
	if env.Status == "error" {
		a.text = strings.ReplaceAll(env.Error, cluster, "{c}")
		a.param, _, _ = strings.Cut(a.text, ":")
	}
	return a, env.Error
}

// TestFakeAgreesWithStorcast: the fake storcast of the plugin's unit tests
// (storcasttest) validates requests as the real one does. Each request goes
// to both; the status, errorType, named parameter, error text and Allow
// header must be the same. A rule only one of them has lets the plugin's
// tests pass against an API storcast does not serve. It needs the real
// storcast whatever STORCAST_UNDER_TEST says.
func TestFakeAgreesWithStorcast(t *testing.T) {
	realURL := realStorcast(t)
	realCluster, ok := fittedCluster(realURL)
	if !ok {
		t.Fatal("the demo serves no fitted cluster any more")
	}
	fake := storcasttest.New(storcasttest.Options{})
	defer fake.Close()
	const fakeCluster = "ceph-a"

	now := time.Now().Unix()
	at := func(offset int64) string { return fmt.Sprint(now + offset) }
	const year = 365 * 24 * 3600
	long := strings.Repeat("x", apiv1.MaxClusterNameBytes+1)
	window := "&start=" + at(-3600) + "&end=" + at(24*3600) + "&step=600"
	// sizes is a what-if body with n IO sizes of equal share.
	sizes := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf(`{"bytes":4096,"share":%v}`, 1/float64(n))
		}
		return `{"cluster":"{c}","ioSizes":[` + strings.Join(s, ",") + `]}`
	}

	// req is a GET's query or a POST's body.
	type req struct{ name, in string }
	var cases []contractCase
	get := func(path string, rs ...req) {
		for _, r := range rs {
			cases = append(cases, contractCase{name: r.name, method: "GET", path: path, query: r.in})
		}
	}
	post := func(path string, rs ...req) {
		for _, r := range rs {
			cases = append(cases, contractCase{name: r.name, method: "POST", path: path, body: r.in})
		}
	}

	get("/api/v1/forecast",
		req{"valid iops", "cluster={c}&series=iops" + window},
		req{"valid max_iops", "cluster={c}&series=max_iops" + window},
		req{"valid headroom_ratio", "cluster={c}&series=headroom_ratio" + window},
		req{"valid utilization_ratio", "cluster={c}&series=utilization_ratio" + window},
		req{"default start, end and step", "cluster={c}&series=iops"},
		req{"RFC 3339 times, step 5m", "cluster={c}&series=iops&start=" + time.Unix(now-3600, 0).UTC().Format(time.RFC3339) +
			"&end=" + time.Unix(now+3600, 0).UTC().Format(time.RFC3339) + "&step=5m"},
		req{"step 1d (a Prometheus duration)", "cluster={c}&series=iops&start=" + at(0) + "&end=" + at(30*24*3600) + "&step=1d"},
		req{"step 1.5h (not a Prometheus duration)", "cluster={c}&series=iops" + "&start=" + at(0) + "&end=" + at(24*3600) + "&step=1.5h"},
		req{"missing cluster", "series=iops" + window},
		req{"cluster name too long", "cluster=" + long + "&series=iops" + window},
		req{"unknown cluster", "cluster=no-such-cluster&series=iops" + window},
		req{"missing series", "cluster={c}" + window},
		req{"unknown series", "cluster={c}&series=latency" + window},
		req{"unparsable start", "cluster={c}&series=iops&start=yesterday&end=" + at(0) + "&step=60"},
		req{"start NaN", "cluster={c}&series=iops&start=NaN&end=" + at(0) + "&step=60"},
		req{"end +Inf", "cluster={c}&series=iops&start=" + at(0) + "&end=%2BInf&step=60"},
		req{"start 11 years ago", "cluster={c}&series=iops&start=" + at(-11*year) + "&end=" + at(0) + "&step=1d"},
		req{"end in 11 years", "cluster={c}&series=iops&start=" + at(0) + "&end=" + at(11*year) + "&step=1d"},
		req{"start and end 9 years either side", "cluster={c}&series=iops&start=" + at(-9*year) + "&end=" + at(9*year) + "&step=1d"},
		req{"end before start", "cluster={c}&series=iops&start=" + at(0) + "&end=" + at(-60) + "&step=60"},
		req{"step 0", "cluster={c}&series=iops" + "&start=" + at(0) + "&end=" + at(60) + "&step=0"},
		req{"step negative", "cluster={c}&series=iops" + "&start=" + at(0) + "&end=" + at(60) + "&step=-60"},
		req{"step 0s", "cluster={c}&series=iops" + "&start=" + at(0) + "&end=" + at(60) + "&step=0s"},
		req{"step unparsable", "cluster={c}&series=iops" + "&start=" + at(0) + "&end=" + at(60) + "&step=often"},
		req{"step below a second", "cluster={c}&series=iops" + "&start=" + at(0) + "&end=" + at(60) + "&step=0.5"},
		req{"step beyond time.Duration", "cluster={c}&series=iops" + "&start=" + at(0) + "&end=" + at(60) + "&step=1e10"},
		req{"exactly the maximum points", fmt.Sprintf("cluster={c}&series=iops&start=%s&end=%s&step=1", at(0), at(apiv1.MaxForecastPoints-1))},
		req{"one point too many", fmt.Sprintf("cluster={c}&series=iops&start=%s&end=%s&step=1", at(0), at(apiv1.MaxForecastPoints))},
		req{"far too many points", "cluster={c}&series=iops&start=" + at(-year) + "&end=" + at(year) + "&step=60"},
		// Several faults: the one named first.
		req{"unknown cluster and bad start", "cluster=no-such-cluster&series=iops&start=yesterday"},
		req{"missing cluster and bad step", "series=iops&step=often"},
		req{"unknown series and start out of range", "cluster={c}&series=latency&start=" + at(-11*year)},
		req{"end out of range and before start", "cluster={c}&series=iops&start=" + at(0) + "&end=" + at(-11*year)},
		req{"unknown cluster and start out of range", "cluster=no-such-cluster&series=iops&start=" + at(-11*year)},
	)
	get("/api/v1/capacity_curve",
		req{"valid", "cluster={c}&io_size_bytes=4096&points=11"},
		req{"defaults (today's IO size, 21 points)", "cluster={c}"},
		req{"io_size_bytes 0 (today's IO size)", "cluster={c}&io_size_bytes=0"},
		req{"smallest IO size", fmt.Sprintf("cluster={c}&io_size_bytes=%d", apiv1.MinIOSizeBytes)},
		req{"largest IO size", fmt.Sprintf("cluster={c}&io_size_bytes=%d", apiv1.MaxIOSizeBytes)},
		req{"IO size too small", fmt.Sprintf("cluster={c}&io_size_bytes=%d", apiv1.MinIOSizeBytes-1)},
		req{"IO size too large", fmt.Sprintf("cluster={c}&io_size_bytes=%d", apiv1.MaxIOSizeBytes+1)},
		req{"IO size negative", "cluster={c}&io_size_bytes=-4096"},
		req{"IO size unparsable", "cluster={c}&io_size_bytes=4KiB"},
		req{"IO size NaN", "cluster={c}&io_size_bytes=NaN"},
		req{"two IO sizes (the first counts)", "cluster={c}&io_size_bytes=4096&io_size_bytes=1"},
		req{"read ratio (not a parameter)", "cluster={c}&readRatio=2"},
		req{"fewest points", fmt.Sprintf("cluster={c}&points=%d", apiv1.MinCurvePoints)},
		req{"most points", fmt.Sprintf("cluster={c}&points=%d", apiv1.MaxCurvePoints)},
		req{"too few points", fmt.Sprintf("cluster={c}&points=%d", apiv1.MinCurvePoints-1)},
		req{"too many points", fmt.Sprintf("cluster={c}&points=%d", apiv1.MaxCurvePoints+1)},
		req{"points not an integer", "cluster={c}&points=10.5"},
		req{"points beyond an int", "cluster={c}&points=99999999999999999999"},
		req{"missing cluster", "io_size_bytes=4096"},
		req{"cluster name too long", "cluster=" + long},
		req{"unknown cluster", "cluster=no-such-cluster"},
		req{"unknown cluster and unparsable IO size", "cluster=no-such-cluster&io_size_bytes=4KiB"},
		req{"unknown cluster and IO size too small", "cluster=no-such-cluster&io_size_bytes=1"},
		req{"IO size too small and too few points", "cluster={c}&io_size_bytes=1&points=1"},
	)
	get("/api/v1/latency_curve",
		req{"valid", "cluster={c}"},
		req{"missing cluster", ""},
		req{"cluster name too long", "cluster=" + long},
		req{"unknown cluster", "cluster=no-such-cluster"},
		req{"unknown parameter", "cluster={c}&points=-1"},
	)
	get("/api/v1/rulesets",
		req{"no advisor", "cluster={c}"},
		req{"unknown cluster", "cluster=no-such-cluster"},
	)
	post("/api/v1/whatif",
		req{"valid, as now", `{"cluster":"{c}"}`},
		req{"valid, every field", `{"cluster":"{c}","readRatio":0.7,"extraIops":100,"hostsAdded":1,"ioSizes":[{"bytes":4096,"share":0.5},{"bytes":65536,"share":0.5}]}`},
		req{"empty body", ""},
		req{"blank body", " \n"},
		req{"JSON null", "null"},
		req{"not JSON", "cluster={c}"},
		req{"truncated JSON", `{"cluster":"{c}"`},
		req{"a JSON array", `[{"cluster":"{c}"}]`},
		req{"unknown field", `{"cluster":"{c}","extraIOPS":100,"bogus":1}`},
		req{"trailing JSON", `{"cluster":"{c}"} {}`},
		req{"trailing garbage", `{"cluster":"{c}"}x`},
		req{"trailing newline", "{\"cluster\":\"{c}\"}\n"},
		req{"extraIops 1e999", `{"cluster":"{c}","extraIops":1e999}`},
		req{"extraIops \"NaN\"", `{"cluster":"{c}","extraIops":"NaN"}`},
		req{"extraIops over the maximum", fmt.Sprintf(`{"cluster":"{c}","extraIops":%g}`, 2*apiv1.MaxExtraIOPS)},
		req{"extraIops below minus the maximum", fmt.Sprintf(`{"cluster":"{c}","extraIops":%g}`, -2*apiv1.MaxExtraIOPS)},
		req{"extraIops at the maximum", fmt.Sprintf(`{"cluster":"{c}","extraIops":%g}`, apiv1.MaxExtraIOPS)},
		req{"extraIops leaves no load", `{"cluster":"{c}","extraIops":-1e8}`},
		req{"readRatio below 0", `{"cluster":"{c}","readRatio":-0.1}`},
		req{"readRatio above 1", `{"cluster":"{c}","readRatio":1.5}`},
		req{"readRatio 0", `{"cluster":"{c}","readRatio":0}`},
		req{"readRatio 1", `{"cluster":"{c}","readRatio":1}`},
		req{"hostsAdded negative", `{"cluster":"{c}","hostsAdded":-1}`},
		req{"hostsAdded at the maximum", fmt.Sprintf(`{"cluster":"{c}","hostsAdded":%d}`, apiv1.MaxHostsAdded)},
		req{"hostsAdded over the maximum", fmt.Sprintf(`{"cluster":"{c}","hostsAdded":%d}`, apiv1.MaxHostsAdded+1)},
		req{"hostsAdded not an integer", `{"cluster":"{c}","hostsAdded":1.5}`},
		req{"ioSizes empty (as now)", `{"cluster":"{c}","ioSizes":[]}`},
		req{"ioSizes at the maximum", sizes(apiv1.MaxIOSizes)},
		req{"ioSizes over the maximum", sizes(apiv1.MaxIOSizes + 1)},
		req{"IO size too small", fmt.Sprintf(`{"cluster":"{c}","ioSizes":[{"bytes":%d,"share":1}]}`, apiv1.MinIOSizeBytes-1)},
		req{"IO size 0", `{"cluster":"{c}","ioSizes":[{"bytes":0,"share":1}]}`},
		req{"IO size too large", fmt.Sprintf(`{"cluster":"{c}","ioSizes":[{"bytes":%d,"share":1}]}`, apiv1.MaxIOSizeBytes+1)},
		req{"share above 1", `{"cluster":"{c}","ioSizes":[{"bytes":4096,"share":1.5},{"bytes":8192,"share":-0.5}]}`},
		req{"share negative", `{"cluster":"{c}","ioSizes":[{"bytes":4096,"share":-0.5},{"bytes":8192,"share":1.5}]}`},
		req{"shares not summing to 1", `{"cluster":"{c}","ioSizes":[{"bytes":4096,"share":0.5}]}`},
		req{"missing cluster", `{"extraIops":100}`},
		req{"cluster name too long", `{"cluster":"` + long + `"}`},
		req{"unknown cluster", `{"cluster":"no-such-cluster"}`},
		req{"unknown cluster and readRatio above 1", `{"cluster":"no-such-cluster","readRatio":2}`},
		req{"unknown cluster and trailing data", `{"cluster":"no-such-cluster"} {}`},
		req{"readRatio and extraIops both out of range", `{"cluster":"{c}","readRatio":2,"extraIops":2e9}`},
		req{"hostsAdded and an IO size out of range", `{"cluster":"{c}","hostsAdded":-1,"ioSizes":[{"bytes":1,"share":1}]}`},
	)
	cases = append(cases,
		contractCase{name: "body at the size limit", method: "POST", path: "/api/v1/whatif", body: `{"cluster":"{c}"}`, padTo: apiv1.MaxRequestBodyBytes},
		contractCase{name: "body over the size limit", method: "POST", path: "/api/v1/whatif", body: `{"cluster":"{c}"}`, padTo: apiv1.MaxRequestBodyBytes + 1})
	get("/api/v1/status/buildinfo", req{"build info", ""})
	get("/api/v1/clusters", req{"clusters", ""})
	get("/api/v1/no_such_endpoint", req{"unknown endpoint", ""})
	get("/api/v1/whatif", req{"GET of a POST endpoint", ""})
	post("/api/v1/forecast", req{"POST of a GET endpoint", `{"cluster":"{c}"}`})

	// textVaries holds the cases (by subtest name) whose error text carries
	// data that differs between the two: a time relative to each server's
	// clock, the real cluster's load, a 503's reason (the fake's models are
	// ground truth, not fits). Only their status, errorType, parameter and
	// Allow header are compared.
	textVaries := map[string]bool{
		"GET forecast: start 11 years ago":                true, // "of now (...)"
		"GET forecast: end in 11 years":                   true,
		"GET forecast: end out of range and before start": true,
		"POST whatif: extraIops leaves no load":           true, // "leaves ... IOPS"
		"GET rulesets: no advisor":                        true, // the fake has no advisor fit to fail
	}

	for _, c := range cases {
		// The endpoint's last element: a '/' in a subtest's name splits -run patterns.
		name := c.method + " " + path.Base(c.path) + ": " + c.name
		varies := textVaries[name]
		delete(textVaries, name)
		t.Run(name, func(t *testing.T) {
			sc, scMsg := ask(t, realURL, realCluster, c)
			fk, fkMsg := ask(t, fake.URL, fakeCluster, c)
			if varies {
				sc.text, fk.text = "", ""
			}
			if sc != fk {
				t.Errorf("storcast: %v\n\t%.300s\nfake:     %v\n\t%.300s", sc, scMsg, fk, fkMsg)
			} else {
				t.Logf("both: %v", sc)
			}
		})
	}
	if len(textVaries) > 0 {
		t.Errorf("textVaries names no case: %v", textVaries)
	}
}
