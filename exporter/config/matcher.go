package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Matcher is one label matcher.
type Matcher struct {
	Name  string
	Op    string // =, !=, =~, !~
	Value string
	re    *regexp.Regexp // anchored, for =~ and !~
}

// Matches reports whether a label value satisfies m (a missing label is "").
// A regexp matcher built as a literal rather than parsed is compiled here;
// Validate has refused one that does not compile.
func (m Matcher) Matches(v string) bool {
	switch m.Op {
	case "=":
		return v == m.Value
	case "!=":
		return v != m.Value
	}
	re := m.re
	if re == nil {
		var err error
		if re, err = compileAnchored(m.Value); err != nil {
			return false
		}
	}
	return re.MatchString(v) == (m.Op == "=~")
}

// String renders m in PromQL with the value quoted and escaped.
func (m Matcher) String() string { return m.Name + m.Op + strconv.Quote(m.Value) }

// MarshalText renders m as String does: a configuration holds matchers as
// text, and SourceKey compares clusters through this form.
func (m Matcher) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText parses m with ParseMatcher; the decoder calls it for every
// matcher of the configuration.
func (m *Matcher) UnmarshalText(b []byte) error {
	p, err := ParseMatcher(string(b))
	if err != nil {
		return err
	}
	*m = p
	return nil
}

// check reports what is wrong with a matcher built as a Go literal (one
// parsed by ParseMatcher is always right).
func (m Matcher) check() error {
	if !labelNameRE.MatchString(m.Name) {
		return fmt.Errorf("%q is not a label name", m.Name)
	}
	if m.Name == "__name__" {
		return fmt.Errorf("%q: the metric name is chosen by the cluster's kind, metrics or queries, not by a matcher", m.String())
	}
	switch m.Op {
	case "=", "!=":
	case "=~", "!~":
		if _, err := compileAnchored(m.Value); err != nil {
			return fmt.Errorf("%q: invalid regular expression: %v", m.String(), err)
		}
	default:
		return fmt.Errorf("%q is not a matcher operator (want =, !=, =~ or !~)", m.Op)
	}
	return nil
}

func compileAnchored(v string) (*regexp.Regexp, error) { return regexp.Compile("^(?:" + v + ")$") }

var labelNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

var matcherRE = regexp.MustCompile(`^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*(.*?)\s*$`)

// ParseMatcher parses `name="value"` (also !=, =~, !~). The value is a
// double- or single-quoted string with Go/PromQL escapes, or a bare word.
func ParseMatcher(s string) (Matcher, error) {
	m := matcherRE.FindStringSubmatch(s)
	if m == nil {
		return Matcher{}, fmt.Errorf("%q is not a label matcher (want name=\"value\")", s)
	}
	val := m[3]
	switch {
	case len(val) >= 2 && (val[0] == '"' || val[0] == '\'' || val[0] == '`'):
		if val[0] == '\'' && val[len(val)-1] == '\'' {
			val = `"` + strings.ReplaceAll(val[1:len(val)-1], `"`, `\"`) + `"`
		}
		u, err := strconv.Unquote(val)
		if err != nil {
			return Matcher{}, fmt.Errorf("%q: badly quoted value", s)
		}
		val = u
	case strings.ContainsAny(val, " \t"):
		return Matcher{}, fmt.Errorf("%q: quote a value holding spaces", s)
	case strings.ContainsAny(val, "\"'`{},"):
		return Matcher{}, fmt.Errorf("%q: quote a value holding quotes, braces or commas", s)
	}
	out := Matcher{Name: m[1], Op: m[2], Value: val}
	if m[1] == "__name__" {
		return Matcher{}, fmt.Errorf("%q: the metric name is chosen by the cluster's kind, metrics or queries, not by a matcher", s)
	}
	if m[2] == "=~" || m[2] == "!~" {
		re, err := compileAnchored(val)
		if err != nil {
			return Matcher{}, fmt.Errorf("%q: invalid regular expression: %v", s, err)
		}
		out.re = re
	}
	return out, nil
}

// ParseMatchers parses each of ss with ParseMatcher.
func ParseMatchers(ss ...string) ([]Matcher, error) {
	out := make([]Matcher, 0, len(ss))
	for i, s := range ss {
		m, err := ParseMatcher(s)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %v", i, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// Selector renders matchers as the inside of a PromQL selector's braces.
func Selector(ms ...[]Matcher) string {
	var parts []string
	for _, list := range ms {
		for _, m := range list {
			parts = append(parts, m.String())
		}
	}
	return strings.Join(parts, ",")
}

// MetricRef is a metric name with optional fixed matchers, written
// `name` or `name{label="value",...}`, as the metrics mapping of a cluster
// kind takes them.
type MetricRef struct {
	Name     string
	Matchers []Matcher
}

var metricNameRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// ParseMetricRef parses `name` or `name{matchers}`.
func ParseMetricRef(s string) (MetricRef, error) {
	s = strings.TrimSpace(s)
	name, rest, braces := strings.Cut(s, "{")
	if !metricNameRE.MatchString(name) {
		return MetricRef{}, fmt.Errorf("%q: %q is not a metric name", s, name)
	}
	r := MetricRef{Name: name}
	if !braces {
		return r, nil
	}
	if !strings.HasSuffix(rest, "}") {
		return MetricRef{}, fmt.Errorf("%q: missing closing brace", s)
	}
	for _, part := range splitMatchers(strings.TrimSuffix(rest, "}")) {
		m, err := ParseMatcher(part)
		if err != nil {
			return MetricRef{}, fmt.Errorf("%q: %v", s, err)
		}
		r.Matchers = append(r.Matchers, m)
	}
	return r, nil
}

// splitMatchers splits at commas outside quotes.
func splitMatchers(s string) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

// Selector renders the reference with a name suffix ("_sum", "") and extra
// matchers (the cluster's) as a PromQL selector.
func (r MetricRef) Selector(suffix string, extra ...[]Matcher) string {
	return r.Name + suffix + "{" + Selector(append([][]Matcher{r.Matchers}, extra...)...) + "}"
}
