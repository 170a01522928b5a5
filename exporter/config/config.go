package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"
)

// Cluster kinds.
const (
	KindCeph    = "ceph"
	KindSwift   = "swift"
	KindGeneric = "generic"
)

// Signals every cluster provides, whatever its kind: the names of the keys of
// Cluster.Metrics / Cluster.Queries.
var Signals = []string{"read_ops", "write_ops", "read_bytes", "write_bytes", "latency"}

// Config is the whole configuration.
type Config struct {
	Prometheus Prometheus `mapstructure:"prometheus"`
	Fit        Fit        `mapstructure:"fit"`
	StateDir   string     `mapstructure:"state_dir"`
	Web        Web        `mapstructure:"web"`
	Clusters   []Cluster  `mapstructure:"clusters"`
	// Demo runs on an in-process simulated cluster instead of Prometheus.
	Demo bool `mapstructure:"demo"`
}

// Prometheus is the query backend: any Prometheus-compatible HTTP API.
type Prometheus struct {
	URL string `mapstructure:"url"`
	// HTTPConfig is prometheus/common's HTTP client config (bearer token,
	// basic auth, TLS, proxy, headers), decoded from http_config.
	HTTPConfig    commoncfg.HTTPClientConfig `mapstructure:"-"`
	RawHTTPConfig map[string]any             `mapstructure:"http_config"`
	Timeout       time.Duration              `mapstructure:"timeout"`
	Retries       int                        `mapstructure:"retries"`
	RetryBackoff  time.Duration              `mapstructure:"retry_backoff"`
	// MaxSeriesPerQuery bounds the series one query may return; a query
	// returning more is an error rather than a memory spike.
	MaxSeriesPerQuery int `mapstructure:"max_series_per_query"`
}

// Fit controls background fitting.
type Fit struct {
	Interval time.Duration `mapstructure:"interval"` // time between fits
	Lookback time.Duration `mapstructure:"lookback"` // history used by a fit
	Step     time.Duration `mapstructure:"step"`     // range-query resolution
	// RefreshInterval is how often the observed inputs are refreshed (a
	// short query over the last few steps) between fits.
	RefreshInterval time.Duration `mapstructure:"refresh_interval"`
	// AccuracyThreshold: a backtest accuracy on recent data below it triggers
	// an early refit.
	AccuracyThreshold float64 `mapstructure:"accuracy_threshold"`
	// StaleAfter marks a model stale when its last successful fit is older.
	StaleAfter time.Duration `mapstructure:"stale_after"`
}

// Web is our own HTTP endpoint.
type Web struct {
	ListenAddress string `mapstructure:"listen_address"`
	ConfigFile    string `mapstructure:"config_file"` // exporter-toolkit web config (TLS, basic auth)
}

// Cluster is one storage cluster.
type Cluster struct {
	Name string `mapstructure:"name"`
	Kind string `mapstructure:"kind"`
	// Matchers select the cluster's series, e.g. `cluster="ceph-a"`.
	Matchers []string `mapstructure:"matchers"`
	// Metrics overrides the kind's metric names (ceph, swift); see DefaultMetrics.
	Metrics map[string]string `mapstructure:"metrics"`
	// Queries are the PromQL expressions of a generic cluster, one per signal
	// (per-second rates; latency in seconds).
	Queries     map[string]string `mapstructure:"queries"`
	Hosts       Hosts             `mapstructure:"hosts"`
	LatencySLO  LatencySLO        `mapstructure:"latency_slo"`
	Calibration Calibration       `mapstructure:"calibration"`

	ParsedMatchers []Matcher `mapstructure:"-"`
}

// Hosts selects the node_exporter series of the cluster's hosts, by role.
type Hosts struct {
	Matchers []string `mapstructure:"matchers"`
	Roles    []Role   `mapstructure:"roles"`

	ParsedMatchers []Matcher `mapstructure:"-"`
}

// Role is a group of hosts with the same job (mon, osd, proxy, object...).
type Role struct {
	Name     string   `mapstructure:"name"`
	Matchers []string `mapstructure:"matchers"`

	ParsedMatchers []Matcher `mapstructure:"-"`
}

// LatencySLO is the latency objective the knee is computed against.
type LatencySLO struct {
	Threshold time.Duration `mapstructure:"threshold"`
	Latency   string        `mapstructure:"latency"` // read, write or op
}

// Calibration is a benchmark result giving T_read100/T_write100 per IO size.
type Calibration struct {
	File   string `mapstructure:"file"`
	Format string `mapstructure:"format"` // yaml or fio; empty: by file extension
}

// Default returns the configuration every file is decoded on top of.
func Default() Config {
	return Config{
		Prometheus: Prometheus{
			Timeout:           30 * time.Second,
			Retries:           3,
			RetryBackoff:      500 * time.Millisecond,
			MaxSeriesPerQuery: 10000,
			HTTPConfig:        commoncfg.DefaultHTTPClientConfig,
		},
		Fit: Fit{
			Interval:          10 * time.Minute,
			Lookback:          7 * 24 * time.Hour,
			Step:              time.Minute,
			RefreshInterval:   30 * time.Second,
			AccuracyThreshold: 0.7,
			StaleAfter:        time.Hour,
		},
		StateDir: "data",
		Web:      Web{ListenAddress: ":9595"},
	}
}

// defaultCluster fills a cluster's unset fields.
func defaultCluster(c *Cluster) {
	if c.LatencySLO.Latency == "" {
		c.LatencySLO.Latency = "op"
	}
	if c.LatencySLO.Threshold == 0 {
		c.LatencySLO.Threshold = 50 * time.Millisecond
	}
}

// Flags registers the flags that override configuration keys on fs.
func Flags(fs *pflag.FlagSet) {
	d := Default()
	fs.String("config.file", "", "YAML configuration file.")
	fs.String("web.listen-address", d.Web.ListenAddress, "Address to listen on for /metrics, /api/v1 and the landing page.")
	fs.String("web.config.file", "", "exporter-toolkit web configuration file (TLS, basic auth).")
	fs.String("prometheus.url", "", "URL of the Prometheus-compatible query API.")
	fs.String("state.dir", d.StateDir, "Directory where fitted models are persisted.")
	fs.Bool("demo", false, "Run on an embedded simulated cluster instead of Prometheus.")
}

// flagKeys maps flag names to configuration keys.
var flagKeys = map[string]string{
	"web.listen-address": "web.listen_address",
	"web.config.file":    "web.config_file",
	"prometheus.url":     "prometheus.url",
	"state.dir":          "state_dir",
	"demo":               "demo",
}

// scalarKeys are the keys settable from the environment.
var scalarKeys = map[string]any{
	"prometheus.url":                  "",
	"prometheus.timeout":              "",
	"prometheus.retries":              "",
	"prometheus.retry_backoff":        "",
	"prometheus.max_series_per_query": "",
	"fit.interval":                    "",
	"fit.lookback":                    "",
	"fit.step":                        "",
	"fit.refresh_interval":            "",
	"fit.accuracy_threshold":          "",
	"fit.stale_after":                 "",
	"state_dir":                       "",
	"web.listen_address":              "",
	"web.config_file":                 "",
	"demo":                            "",
}

// Load reads the configuration: file (may be empty), then the environment
// (os.LookupEnv through viper), then the flags of fs that were set. The
// result is defaulted and validated.
func Load(file string, fs *pflag.FlagSet) (*Config, error) {
	v := viper.New()
	v.SetEnvPrefix("STORCAST")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	for k := range scalarKeys {
		if err := v.BindEnv(k); err != nil {
			return nil, err
		}
	}
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
	}
	if fs != nil {
		for name, key := range flagKeys {
			if f := fs.Lookup(name); f != nil && f.Changed {
				if err := v.BindPFlag(key, f); err != nil {
					return nil, err
				}
			}
		}
	}
	c := Default()
	err := v.Unmarshal(&c, func(dc *mapstructure.DecoderConfig) {
		dc.ErrorUnused = true
		dc.WeaklyTypedInput = true
		dc.DecodeHook = mapstructure.ComposeDecodeHookFunc(durationHook, mapstructure.StringToSliceHookFunc(","))
	})
	if err != nil {
		return nil, fmt.Errorf("decoding configuration: %s", cleanDecodeError(err))
	}
	if c.Prometheus.RawHTTPConfig != nil {
		b, err := yaml.Marshal(c.Prometheus.RawHTTPConfig)
		if err != nil {
			return nil, fmt.Errorf("prometheus.http_config: %w", err)
		}
		hc := commoncfg.DefaultHTTPClientConfig
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&hc); err != nil {
			msg := err.Error()
			if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
				msg = "unknown key " + m[1]
			}
			return nil, fmt.Errorf("prometheus.http_config: %s", msg)
		}
		c.Prometheus.HTTPConfig = hc
		c.Prometheus.RawHTTPConfig = nil
	}
	if file != "" {
		dir := filepath.Dir(file)
		c.Prometheus.HTTPConfig.SetDirectory(dir)
		for i := range c.Clusters {
			if f := c.Clusters[i].Calibration.File; f != "" && !filepath.IsAbs(f) {
				c.Clusters[i].Calibration.File = filepath.Join(dir, f)
			}
		}
		if c.Web.ConfigFile != "" && !filepath.IsAbs(c.Web.ConfigFile) && (fs == nil || fs.Lookup("web.config.file") == nil || !fs.Lookup("web.config.file").Changed) {
			c.Web.ConfigFile = filepath.Join(dir, c.Web.ConfigFile)
		}
	}
	if c.Demo && len(c.Clusters) == 0 {
		c.Clusters = []Cluster{DemoCluster()}
	}
	for i := range c.Clusters {
		defaultCluster(&c.Clusters[i])
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// DemoCluster is the cluster --demo runs on.
func DemoCluster() Cluster {
	return Cluster{Name: "demo", Kind: KindCeph, Hosts: Hosts{Roles: []Role{{Name: "osd"}, {Name: "mon"}}}}
}

var unknownFieldRE = regexp.MustCompile(`field (\S+) not found`)

var durationType = reflect.TypeOf(time.Duration(0))

// durationHook decodes durations in Prometheus syntax ("30s", "7d", "1h30m").
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType {
		return data, nil
	}
	switch from.Kind() {
	case reflect.String:
		s := data.(string)
		if s == "" {
			return time.Duration(0), nil
		}
		neg := strings.HasPrefix(s, "-")
		d, err := model.ParseDuration(strings.TrimPrefix(s, "-"))
		if err != nil {
			// Go's syntax also takes fractions ("0.5s", "1.5h").
			gd, gerr := time.ParseDuration(strings.TrimPrefix(s, "-"))
			if gerr != nil {
				return nil, fmt.Errorf("invalid duration %q", s)
			}
			d = model.Duration(gd)
		}
		if neg {
			d = -d
		}
		return time.Duration(d), nil
	case reflect.Int, reflect.Int64, reflect.Float64:
		return nil, fmt.Errorf("duration %v needs a unit (e.g. \"30s\")", data)
	}
	return data, nil
}

// cleanDecodeError turns mapstructure's multi-line errors into one line.
func cleanDecodeError(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "decoding failed due to the following error(s):\n\n")
	return strings.ReplaceAll(s, "\n", "; ")
}

// Validate checks c and returns the first problem, naming the key.
func (c *Config) Validate() error {
	p := c.Prometheus
	if !c.Demo {
		if p.URL == "" {
			return errors.New("prometheus.url: required (or run with --demo)")
		}
		u, err := url.Parse(p.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("prometheus.url: %q is not an http(s) URL", p.URL)
		}
	}
	if err := p.HTTPConfig.Validate(); err != nil {
		return fmt.Errorf("prometheus.http_config: %w", err)
	}
	if p.Timeout <= 0 {
		return errors.New("prometheus.timeout: must be positive")
	}
	if p.Retries < 0 {
		return errors.New("prometheus.retries: must not be negative")
	}
	if p.MaxSeriesPerQuery <= 0 {
		return errors.New("prometheus.max_series_per_query: must be positive")
	}
	f := c.Fit
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"fit.interval", f.Interval}, {"fit.lookback", f.Lookback}, {"fit.step", f.Step}, {"fit.refresh_interval", f.RefreshInterval}, {"fit.stale_after", f.StaleAfter}} {
		if d.v <= 0 {
			return fmt.Errorf("%s: must be positive", d.key)
		}
	}
	if f.Step >= f.Lookback {
		return fmt.Errorf("fit.step: %s must be shorter than fit.lookback (%s)", model.Duration(f.Step), model.Duration(f.Lookback))
	}
	if n := f.Lookback / f.Step; n > 11000 {
		return fmt.Errorf("fit.lookback: %s / fit.step %s = %d points per series; at most 11000 (Prometheus's limit)", model.Duration(f.Lookback), model.Duration(f.Step), n)
	}
	if f.StaleAfter <= f.Interval {
		return fmt.Errorf("fit.stale_after: %s must be longer than fit.interval (%s), or every model would go stale between fits", model.Duration(f.StaleAfter), model.Duration(f.Interval))
	}
	if f.AccuracyThreshold < 0 || f.AccuracyThreshold > 1 {
		return fmt.Errorf("fit.accuracy_threshold: %v is outside [0, 1]", f.AccuracyThreshold)
	}
	if c.StateDir == "" {
		return errors.New("state_dir: required")
	}
	if c.Web.ListenAddress == "" {
		return errors.New("web.listen_address: required")
	}
	if len(c.Clusters) == 0 {
		return errors.New("clusters: at least one cluster is required")
	}
	seen := map[string]bool{}
	for i := range c.Clusters {
		cl := &c.Clusters[i]
		key := fmt.Sprintf("clusters[%d]", i)
		if err := cl.validate(key); err != nil {
			return err
		}
		if seen[cl.Name] {
			return fmt.Errorf("%s.name: duplicate cluster name %q", key, cl.Name)
		}
		seen[cl.Name] = true
	}
	return nil
}

var clusterNameRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)

func (cl *Cluster) validate(key string) error {
	if cl.Name == "" {
		return fmt.Errorf("%s.name: required", key)
	}
	if !clusterNameRE.MatchString(cl.Name) {
		return fmt.Errorf("%s.name: %q may hold only letters, digits and _ . : -", key, cl.Name)
	}
	var err error
	if cl.ParsedMatchers, err = parseMatchers(key+".matchers", cl.Matchers); err != nil {
		return err
	}
	switch cl.Kind {
	case KindCeph, KindSwift:
		if len(cl.Queries) > 0 {
			return fmt.Errorf("%s.queries: only for kind generic; use metrics to rename a %s series", key, cl.Kind)
		}
		for k, v := range cl.Metrics {
			if !isSignal(k) {
				return fmt.Errorf("%s.metrics.%s: unknown signal (want one of %s)", key, k, strings.Join(Signals, ", "))
			}
			if _, err := ParseMetricRef(v); err != nil {
				return fmt.Errorf("%s.metrics.%s: %v", key, k, err)
			}
		}
	case KindGeneric:
		if len(cl.Metrics) > 0 {
			return fmt.Errorf("%s.metrics: not used by kind generic; give queries", key)
		}
		for k := range cl.Queries {
			if !isSignal(k) {
				return fmt.Errorf("%s.queries.%s: unknown signal (want one of %s)", key, k, strings.Join(Signals, ", "))
			}
		}
		for _, s := range Signals {
			if strings.TrimSpace(cl.Queries[s]) == "" {
				return fmt.Errorf("%s.queries.%s: required for kind generic", key, s)
			}
		}
	case "":
		return fmt.Errorf("%s.kind: required (ceph, swift or generic)", key)
	default:
		return fmt.Errorf("%s.kind: unknown kind %q (want ceph, swift or generic)", key, cl.Kind)
	}
	if cl.Hosts.ParsedMatchers, err = parseMatchers(key+".hosts.matchers", cl.Hosts.Matchers); err != nil {
		return err
	}
	roles := map[string]bool{}
	for j := range cl.Hosts.Roles {
		r := &cl.Hosts.Roles[j]
		rk := fmt.Sprintf("%s.hosts.roles[%d]", key, j)
		if r.Name == "" {
			return fmt.Errorf("%s.name: required", rk)
		}
		if roles[r.Name] {
			return fmt.Errorf("%s.name: duplicate role %q", rk, r.Name)
		}
		roles[r.Name] = true
		if r.ParsedMatchers, err = parseMatchers(rk+".matchers", r.Matchers); err != nil {
			return err
		}
	}
	if cl.LatencySLO.Threshold <= 0 {
		return fmt.Errorf("%s.latency_slo.threshold: must be positive", key)
	}
	switch cl.LatencySLO.Latency {
	case "read", "write", "op":
	default:
		return fmt.Errorf("%s.latency_slo.latency: unknown latency %q (want read, write or op)", key, cl.LatencySLO.Latency)
	}
	switch cl.Calibration.Format {
	case "", "yaml", "fio":
	default:
		return fmt.Errorf("%s.calibration.format: unknown format %q (want yaml or fio)", key, cl.Calibration.Format)
	}
	if cl.Calibration.File != "" {
		if _, err := os.Stat(cl.Calibration.File); err != nil {
			return fmt.Errorf("%s.calibration.file: %s", key, strings.TrimPrefix(err.Error(), "stat "))
		}
	}
	return nil
}

func isSignal(s string) bool {
	for _, x := range Signals {
		if x == s {
			return true
		}
	}
	return false
}

// Matcher is one label matcher.
type Matcher struct {
	Name  string
	Op    string // =, !=, =~, !~
	Value string
	re    *regexp.Regexp // anchored, for =~ and !~
}

// Matches reports whether a label value satisfies m (a missing label is "").
func (m Matcher) Matches(v string) bool {
	switch m.Op {
	case "=":
		return v == m.Value
	case "!=":
		return v != m.Value
	}
	re := m.re
	if re == nil {
		re = regexp.MustCompile("^(?:" + m.Value + ")$")
	}
	return re.MatchString(v) == (m.Op == "=~")
}

// String renders m in PromQL with the value quoted and escaped.
func (m Matcher) String() string { return m.Name + m.Op + strconv.Quote(m.Value) }

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
	case strings.ContainsAny(val, "\"'`{},"):
		return Matcher{}, fmt.Errorf("%q: quote a value holding quotes, braces or commas", s)
	}
	out := Matcher{Name: m[1], Op: m[2], Value: val}
	if m[2] == "=~" || m[2] == "!~" {
		re, err := regexp.Compile("^(?:" + val + ")$")
		if err != nil {
			return Matcher{}, fmt.Errorf("%q: invalid regular expression: %v", s, err)
		}
		out.re = re
	}
	return out, nil
}

func parseMatchers(key string, ss []string) ([]Matcher, error) {
	out := make([]Matcher, 0, len(ss))
	for i, s := range ss {
		m, err := ParseMatcher(s)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %v", key, i, err)
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
