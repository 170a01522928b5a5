package duration

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	const day = 24 * time.Hour
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"0s", 0},
		// Prometheus's syntax.
		{"30s", 30 * time.Second},
		{"500ms", 500 * time.Millisecond},
		{"5m", 5 * time.Minute},
		{"1h30m", 90 * time.Minute},
		{"7d", 7 * day},
		{"1d12h", 36 * time.Hour},
		{"2w", 14 * day},
		{"1y", 365 * day},
		{"1y2w3d4h5m6s7ms", 365*day + 14*day + 3*day + 4*time.Hour + 5*time.Minute + 6*time.Second + 7*time.Millisecond},
		// Go's syntax.
		{"1.5h", 90 * time.Minute},
		{"0.5s", 500 * time.Millisecond},
		{".5s", 500 * time.Millisecond},
		{"100us", 100 * time.Microsecond},
		{"100µs", 100 * time.Microsecond},
		{"10ns", 10},
		{"1m1h", 61 * time.Minute},
		{"90s", 90 * time.Second},
		// A day count with a fraction, then a Go duration.
		{"1.5d", 36 * time.Hour},
		{"0.25d", 6 * time.Hour},
		{"1.5d6h", 42 * time.Hour},
		{"1d0.5h", 24*time.Hour + 30*time.Minute},
		{"2d1.5h30m", 2*day + 2*time.Hour},
		{"106751d", 106751 * day},
		// Signs.
		{"-5m", -5 * time.Minute},
		{"+5m", 5 * time.Minute},
		{"-1d2h", -26 * time.Hour},
		{"-1.5d", -36 * time.Hour},
		{"-0.5s", -500 * time.Millisecond},
	} {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"30", `duration 30 needs a unit (e.g. "30s")`},
		{"-30", `duration -30 needs a unit (e.g. "30s")`},
		{"1.5", `duration 1.5 needs a unit (e.g. "30s")`},
		{"5 minutes", `invalid duration "5 minutes"`},
		{" 5m", `invalid duration " 5m"`},
		{"-", `invalid duration "-"`},
		{"+", `invalid duration "+"`},
		{"d", `invalid duration "d"`},
		{"7x", `invalid duration "7x"`},
		{"1d2", `invalid duration "1d2"`},
		{"1.5w", `invalid duration "1.5w"`},
		{"1h1d", `invalid duration "1h1d"`},
		{"1d1w", `invalid duration "1d1w"`},
		{"--5m", `invalid duration "--5m"`},
		{"-+5m", `invalid duration "-+5m"`},
		{"1d-2h", `invalid duration "1d-2h"`},
		{"1d+2h", `invalid duration "1d+2h"`},
		{"1..5d", `invalid duration "1..5d"`},
		{".d", `invalid duration ".d"`},
		{"1e3d", `invalid duration "1e3d"`},
		{"NaNd", `invalid duration "NaNd"`},
		{"Infd", `invalid duration "Infd"`},
		{"1e300d", `invalid duration "1e300d"`},
		{"NaNd1h", `invalid duration "NaNd1h"`},
		// Beyond time.Duration's ±292 years.
		{"300y", `invalid duration "300y"`},
		{"106752d", `invalid duration "106752d"`},
		{"106751.999d", `invalid duration "106751.999d"`},
		{"106751d24h", `invalid duration "106751d24h"`},
	} {
		got, err := Parse(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want error %s", tc.in, got, err, tc.want)
		}
	}
}
