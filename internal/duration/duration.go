// Package duration is storcast's one duration syntax, read by storcast.yml
// (its environment variables and flags too) and by the simulator's
// scenarios and flags:
//
//   - Prometheus's: "30s", "1h30m", "7d", "2w", "1y", "500ms" (integers,
//     units y w d h m s ms from the largest down, a year of 365 days);
//   - Go's: "1.5h", "0.5s", "100us", "1h30m";
//   - a day count, fractions allowed, before an optional Go duration:
//     "1.5d", "1.5d6h", "1d0.5h".
//
// A leading "-" negates the whole (callers that take no negative duration
// refuse it with their own message); a leading "+" is allowed; "" is 0.
package duration

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// Parse reads s in the package's syntax. Its errors are
//
//	invalid duration "5 minutes"
//	duration 30 needs a unit (e.g. "30s")
//
// the second for a plain number.
func Parse(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	body, neg := s, false
	switch s[0] {
	case '-':
		body, neg = s[1:], true
	case '+':
		body = s[1:]
	}
	d, ok := unsigned(body)
	if !ok {
		if _, err := strconv.ParseFloat(body, 64); err == nil {
			return 0, fmt.Errorf("duration %s needs a unit (e.g. \"30s\")", s)
		}
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	if neg {
		d = -d
	}
	return d, nil
}

// unsigned reads a duration without a sign.
func unsigned(s string) (time.Duration, bool) {
	if s == "" || s[0] == '-' || s[0] == '+' {
		return 0, false
	}
	if d, err := model.ParseDuration(s); err == nil {
		return time.Duration(d), true
	}
	if d, err := time.ParseDuration(s); err == nil {
		return d, true
	}
	// A day count with a fraction, then a Go duration.
	days, rest, ok := strings.Cut(s, "d")
	if !ok || !decimal(days) {
		return 0, false
	}
	n, err := strconv.ParseFloat(days, 64)
	if err != nil {
		return 0, false
	}
	var r time.Duration
	if rest != "" {
		if rest[0] == '-' || rest[0] == '+' {
			return 0, false
		}
		if r, err = time.ParseDuration(rest); err != nil {
			return 0, false
		}
	}
	day := n * 24 * float64(time.Hour)
	// Beyond time.Duration's 292 years a conversion would be arbitrary.
	if !(day+float64(r) < math.MaxInt64) {
		return 0, false
	}
	return time.Duration(day) + r, true
}

// decimal reports whether s is a decimal number as Go's durations write one:
// digits with at most one ".", and at least one digit.
func decimal(s string) bool {
	digits, dots := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}
