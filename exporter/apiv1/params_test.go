package apiv1

import (
	"errors"
	"strings"
	"testing"
)

// TestParamParsers: an empty value is the default, a valid one its number,
// and a refused one a ParamError naming the parameter, the value quoted and
// cut to 64 bytes.
func TestParamParsers(t *testing.T) {
	long := strings.Repeat("9", 100)
	size := func(v string) (float64, error) { return ParseFloatParam("io_size_bytes", v, 7) }
	points := func(v string) (float64, error) { n, err := ParseIntParam("points", v, 21); return float64(n), err }
	start := func(v string) (float64, error) { return ParseTimeParam("start", v, 1) }
	step := func(v string) (float64, error) { return ParseDurationParam("step", v, 1) }
	for _, tc := range []struct {
		name    string
		parse   func(value string) (float64, error)
		value   string
		want    float64
		wantErr string
	}{
		{"float default", size, "", 7, ""},
		{"float", size, "4096", 4096, ""},
		{"float NaN", size, "NaN", 0, `io_size_bytes: "NaN" is not a finite number`},
		{"int", points, "11", 11, ""},
		{"int default", points, "", 21, ""},
		{"int fraction", points, "10.5", 0, `points: "10.5" is not an integer`},
		{"int too large", points, long, 0, `points: "` + long[:64] + `..." is out of range`},
		{"time seconds", start, "1700000000.5", 1700000000.5, ""},
		{"time RFC 3339", start, "2023-11-14T22:13:20.25Z", 1700000000.25, ""},
		{"time +Inf", start, "+Inf", 0, `start: "+Inf" is not a finite time`},
		{"time word", start, "yesterday", 0, `start: "yesterday" is neither Unix seconds nor RFC 3339`},
		{"duration seconds", step, "300", 300, ""},
		{"duration 1d", step, "1d", 86400, ""},
		{"duration 0", step, "0", 0, `step: "0" is not a positive finite duration`},
		{"duration 1.5h", step, "1.5h", 0, `step: "1.5h" is not a positive duration like 5m or 300`},
	} {
		got, err := tc.parse(tc.value)
		if tc.wantErr == "" {
			if err != nil || got != tc.want {
				t.Errorf("%s: %q gives %v, %v; want %v", tc.name, tc.value, got, err, tc.want)
			}
			continue
		}
		checkParamError(t, tc.name, err, tc.wantErr)
	}
}

// TestParamChecks: each check names the parameter and prints numbers in
// full (%v put 64 MiB + 1 as 6.7108865e+07).
func TestParamChecks(t *testing.T) {
	ratio := 1.5
	const now = 1.7e9
	for _, tc := range []struct {
		name    string
		err     error
		wantErr string
	}{
		{"curve valid", CheckCapacityCurve(0, 21), ""},
		{"curve IO size", CheckCapacityCurve(MaxIOSizeBytes+1, 21), "io_size_bytes: must be 0 (today's mean IO size) or in [512, 67108864] bytes, got 67108865"},
		{"curve points", CheckCapacityCurve(4096, 1), "points: must be between 2 and 1001, got 1"},
		{"what-if valid", CheckWhatIf(WhatIfRequest{Cluster: "a", HostsAdded: MaxHostsAdded}), ""},
		{"what-if read ratio", CheckWhatIf(WhatIfRequest{ReadRatio: &ratio}), "readRatio: must be in [0, 1], got 1.5"},
		{"what-if hosts", CheckWhatIf(WhatIfRequest{HostsAdded: MaxHostsAdded + 1}), "hostsAdded: must be in [0, 10000], got 10001"},
		{"what-if IO size", CheckWhatIf(WhatIfRequest{IOSizes: []IOSizeShare{{Bytes: 4096, Share: 0.5}, {Bytes: MaxIOSizeBytes + 1, Share: 0.5}}}),
			"ioSizes[1].bytes: must be in [512, 67108864], got 67108865"},
		{"what-if shares", CheckWhatIf(WhatIfRequest{IOSizes: []IOSizeShare{{Bytes: 4096, Share: 0.5}}}), "ioSizes: shares sum to 0.5, want 1"},
		{"forecast end before start", second(CheckForecastRange(now, now-60, 60, now)), "end: 1699999940 is before start 1700000000"},
		{"forecast start out of range", second(CheckForecastRange(now-MaxTimeOffsetSeconds-1, now, 60, now)),
			"start: 1384423999 is not within 3652 days of now (1700000000)"},
		{"forecast too many points", second(CheckForecastRange(now, now+MaxForecastPoints, 1, now)),
			"step: 1 s gives 11001 points; at most 11000, use a step of at least 2 s"},
	} {
		if tc.wantErr == "" {
			if tc.err != nil {
				t.Errorf("%s: %v, want no error", tc.name, tc.err)
			}
			continue
		}
		checkParamError(t, tc.name, tc.err, tc.wantErr)
	}
	if n, err := CheckForecastRange(now, now+MaxForecastPoints-1, 1, now); n != MaxForecastPoints || err != nil {
		t.Errorf("the widest forecast: %d points, %v; want %d", n, err, MaxForecastPoints)
	}
}

// TestDecodeWhatIf: one JSON object, nothing unknown and nothing after it.
func TestDecodeWhatIf(t *testing.T) {
	req, err := DecodeWhatIf(strings.NewReader(`{"cluster":"a","hostsAdded":2}` + "\n"))
	if err != nil || req.Cluster != "a" || req.HostsAdded != 2 {
		t.Errorf("valid body: %+v, %v", req, err)
	}
	for body, want := range map[string]string{
		"":                        `body: empty; want a JSON what-if request like {"cluster":"..."}`,
		`{"cluster":"a"} {}`:      "body: data after the JSON object",
		`{"cluster":"a","x":1}`:   `body: json: unknown field "x"`,
		`{"cluster":"a"` + "    ": "body: unexpected EOF",
		`{"cluster":"a"}` + strings.Repeat(" ", MaxRequestBodyBytes): "body: larger than 65536 bytes",
	} {
		_, err := DecodeWhatIf(strings.NewReader(body))
		checkParamError(t, short(body), err, want)
	}
}

func second(_ int, err error) error { return err }

// short is a body as a failure names it, without its padding.
func short(body string) string {
	if len(body) > 40 {
		return body[:40] + "..."
	}
	return body
}

// checkParamError wants err to be a *ParamError whose text is want and
// whose Param is the name want starts with.
func checkParamError(t *testing.T, name string, err error, want string) {
	t.Helper()
	var pe *ParamError
	if !errors.As(err, &pe) || err.Error() != want {
		t.Errorf("%s: error %#v (%v), want a *ParamError %q", name, err, err, want)
		return
	}
	if param, _, _ := strings.Cut(want, ":"); pe.Param != param {
		t.Errorf("%s: Param %q, want %q", name, pe.Param, param)
	}
}
