package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/storcast/storcast/internal/redact"
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

// Bounds of the numeric keys. The minimums keep a typo ("1ns", "1ms") from
// turning the fit loop or the refresh into a busy loop against Prometheus;
// the retry bounds keep a failing Prometheus from holding a query for hours
// (10 retries at the capped backoff wait at most ~10 minutes). MaxTimeout
// keeps a "never time out" (100y) from overflowing the fit's deadline,
// four timeouts: negative, every fit and probe failed at once.
const (
	MinInterval     = time.Second            // fit.interval, fit.refresh_interval, fit.step
	MinTimeout      = 100 * time.Millisecond // prometheus.timeout
	MaxTimeout      = time.Hour              // prometheus.timeout
	MaxRetries      = 10                     // prometheus.retries
	MaxRetryBackoff = time.Minute            // prometheus.retry_backoff, and the cap of its doubling
	MaxPoints       = 11000                  // fit.lookback / fit.step: Prometheus's limit per series
)

// Config is the whole configuration. The yaml tags are the key names: the
// file, the STORCAST_* environment variables and the flags all resolve to
// them (see Load).
type Config struct {
	Prometheus Prometheus `yaml:"prometheus"`
	Fit        Fit        `yaml:"fit"`
	StateDir   string     `yaml:"state_dir"`
	Web        Web        `yaml:"web"`
	Clusters   []Cluster  `yaml:"clusters"`
	// Demo runs on an in-process simulated cluster instead of Prometheus.
	Demo bool `yaml:"demo"`
}

// Prometheus is the query backend: any Prometheus-compatible HTTP API.
type Prometheus struct {
	URL string `yaml:"url"`
	// HTTPConfig is prometheus/common's HTTP client config (bearer token,
	// basic auth, TLS, proxy, headers).
	HTTPConfig   commoncfg.HTTPClientConfig `yaml:"http_config"`
	Timeout      time.Duration              `yaml:"timeout"`
	Retries      int                        `yaml:"retries"`
	RetryBackoff time.Duration              `yaml:"retry_backoff"`
	// MaxSeriesPerQuery bounds the series one query may return; a query
	// returning more is an error rather than a memory spike.
	MaxSeriesPerQuery int `yaml:"max_series_per_query"`
	// MaxResponseBytes bounds the body of one query's answer: the series
	// limit is checked only once an answer is decoded, so without it a
	// misconfigured query or a broken backend could fill memory first.
	MaxResponseBytes int `yaml:"max_response_bytes"`
}

// Backoff is the wait before retry number attempt (0 for the first):
// RetryBackoff doubled per attempt, capped at MaxRetryBackoff.
func (p Prometheus) Backoff(attempt int) time.Duration {
	b := p.RetryBackoff
	for i := 0; i < attempt && b < MaxRetryBackoff; i++ {
		b *= 2
	}
	return min(b, MaxRetryBackoff)
}

// Fit controls background fitting.
type Fit struct {
	Interval time.Duration `yaml:"interval"` // time between fits
	Lookback time.Duration `yaml:"lookback"` // history used by a fit
	Step     time.Duration `yaml:"step"`     // range-query resolution
	// RefreshInterval is how often the observed inputs are refreshed (a
	// short query over the last few steps) between fits.
	RefreshInterval time.Duration `yaml:"refresh_interval"`
	// AccuracyThreshold: a backtest accuracy on recent data below it triggers
	// an early refit.
	AccuracyThreshold float64 `yaml:"accuracy_threshold"`
	// StaleAfter marks a model stale when its last successful fit is older.
	StaleAfter time.Duration `yaml:"stale_after"`
	// LatencyModel is the latency model served (both are fitted and
	// backtested): "queueing", latency against the capacity frontier's
	// utilization, or "mlisp", the paper's extrapolation in IOPS.
	LatencyModel string `yaml:"latency_model"`
}

// Web is our own HTTP endpoint.
type Web struct {
	ListenAddress string `yaml:"listen_address"`
	ConfigFile    string `yaml:"config_file"` // exporter-toolkit web config (TLS, basic auth)
}

// Cluster is one storage cluster.
type Cluster struct {
	Name string `yaml:"name"`
	Kind string `yaml:"kind"`
	// Matchers select the cluster's series, e.g. `cluster="ceph-a"`.
	Matchers []Matcher `yaml:"matchers"`
	// Metrics overrides the kind's metric names (ceph, swift); see DefaultMetrics.
	Metrics map[string]string `yaml:"metrics"`
	// Queries are the PromQL expressions of a generic cluster, one per signal
	// (per-second rates; latency in seconds).
	Queries     map[string]string `yaml:"queries"`
	Hosts       Hosts             `yaml:"hosts"`
	LatencySLO  LatencySLO        `yaml:"latency_slo"`
	Calibration Calibration       `yaml:"calibration"`
	// Advisor is the rule-set catalog of the traffic-control advisor.
	Advisor Advisor `yaml:"advisor"`
}

// SourceKey renders every setting of c that its queries and models depend
// on, canonically (map keys sorted, matchers in their quoted form): two
// clusters with the same key query and fit the same way, so the engine
// keeps a cluster's models across a reload exactly when its key is unchanged.
func (c Cluster) SourceKey() string {
	b, err := json.Marshal(c)
	if err != nil { // only strings, numbers, maps and matchers: cannot fail
		panic(err)
	}
	return string(b)
}

// Hosts selects the node_exporter series of the cluster's hosts, by role.
type Hosts struct {
	Matchers []Matcher `yaml:"matchers"`
	Roles    []Role    `yaml:"roles"`
}

// Role is a group of hosts with the same job (mon, osd, proxy, object...).
type Role struct {
	Name     string    `yaml:"name"`
	Matchers []Matcher `yaml:"matchers"`
}

// LatencySLO is the latency objective the knee is computed against.
type LatencySLO struct {
	Threshold time.Duration `yaml:"threshold"`
	Latency   string        `yaml:"latency"` // read, write or op
}

// Calibration is a benchmark result giving T_read100/T_write100 per IO size.
type Calibration struct {
	File   string `yaml:"file"`
	Format string `yaml:"format"` // yaml or fio; empty: by file extension
	// Digest is the SHA-256 of the file's content when CheckFiles read it:
	// part of SourceKey, so that a reload after the file was rewritten in
	// place (a recalibration) refits the cluster at once. Not a key.
	Digest string `yaml:"-" json:"digest,omitempty"`
}

// Advisor names the rule-set catalog (forecaster/advisor's YAML) whose
// experiments train one model tree per traffic-control rule set; empty:
// no advisor for the cluster.
type Advisor struct {
	CatalogFile string `yaml:"catalog_file"`
	// ActiveRuleSet names the catalog's rule set applied on the cluster
	// now, "" for none: the measured throughput is then not the original
	// throughput the models take, which is left unknown.
	ActiveRuleSet string `yaml:"active_rule_set"`
	// Digest is the catalog file's SHA-256, as Calibration.Digest.
	Digest string `yaml:"-" json:"digest,omitempty"`
}

// Default returns the configuration every file is decoded on top of.
func Default() Config {
	return Config{
		Prometheus: Prometheus{
			Timeout:           30 * time.Second,
			Retries:           3,
			RetryBackoff:      500 * time.Millisecond,
			MaxSeriesPerQuery: 10000,
			MaxResponseBytes:  128 << 20,
			HTTPConfig:        commoncfg.DefaultHTTPClientConfig,
		},
		Fit: Fit{
			Interval:          10 * time.Minute,
			Lookback:          7 * 24 * time.Hour,
			Step:              time.Minute,
			RefreshInterval:   30 * time.Second,
			AccuracyThreshold: 0.7,
			StaleAfter:        time.Hour,
			LatencyModel:      "queueing",
		},
		StateDir: "data",
		Web:      Web{ListenAddress: ":9595"},
	}
}

// defaultCluster is what a cluster's unset keys default to.
func defaultCluster() Cluster {
	return Cluster{LatencySLO: LatencySLO{Threshold: 50 * time.Millisecond, Latency: "op"}}
}

// DemoCluster is the cluster --demo runs on.
func DemoCluster() Cluster {
	c := defaultCluster()
	c.Name, c.Kind = "demo", KindCeph
	c.Hosts = Hosts{Roles: []Role{{Name: "osd"}, {Name: "mon"}}}
	return c
}

// Validate checks c and returns the first problem, naming the key. It reads
// nothing but c and changes nothing; the files c names are CheckFiles's.
func (c *Config) Validate() error {
	p := c.Prometheus
	if !c.Demo {
		if p.URL == "" {
			return errors.New("prometheus.url: required (or run with --demo)")
		}
		u, err := url.Parse(p.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("prometheus.url: %q is not an http(s) URL", redact.Userinfo(p.URL))
		}
	}
	if err := p.HTTPConfig.Validate(); err != nil {
		return fmt.Errorf("prometheus.http_config: %w", err)
	}
	if p.Timeout <= 0 {
		return errors.New("prometheus.timeout: must be positive")
	}
	if p.Timeout < MinTimeout {
		return fmt.Errorf("prometheus.timeout: %s is shorter than the minimum %s", p.Timeout, MinTimeout)
	}
	if p.Timeout > MaxTimeout {
		return fmt.Errorf("prometheus.timeout: %s is longer than the maximum %s", model.Duration(p.Timeout), model.Duration(MaxTimeout))
	}
	if p.Retries < 0 {
		return errors.New("prometheus.retries: must not be negative")
	}
	if p.Retries > MaxRetries {
		return fmt.Errorf("prometheus.retries: %d is more than the maximum %d", p.Retries, MaxRetries)
	}
	if p.RetryBackoff < 0 {
		return errors.New("prometheus.retry_backoff: must not be negative")
	}
	// No wait: a failed query would be sent again at once, retries
	// hammering a Prometheus that has just failed rather than giving it
	// time to recover.
	if p.Retries > 0 && p.RetryBackoff == 0 {
		return fmt.Errorf("prometheus.retry_backoff: must be positive when prometheus.retries is above 0 (here %d): 0 sends a failed query again at once (set a wait such as 500ms, or prometheus.retries: 0)", p.Retries)
	}
	if p.RetryBackoff > MaxRetryBackoff {
		return fmt.Errorf("prometheus.retry_backoff: %s is longer than the maximum %s", model.Duration(p.RetryBackoff), model.Duration(MaxRetryBackoff))
	}
	// A refresh ends at prometheus.timeout, retries included: a first
	// wait that long means no query is ever retried.
	if p.Retries > 0 && p.RetryBackoff >= p.Timeout {
		return fmt.Errorf("prometheus.retry_backoff: %s is not shorter than prometheus.timeout %s, which ends a refresh retries included: no query would be retried (shorten it, or set prometheus.retries: 0)", model.Duration(p.RetryBackoff), model.Duration(p.Timeout))
	}
	if p.MaxSeriesPerQuery <= 0 {
		return errors.New("prometheus.max_series_per_query: must be positive")
	}
	if p.MaxResponseBytes <= 0 {
		return errors.New("prometheus.max_response_bytes: must be positive")
	}
	f := c.Fit
	for _, d := range []struct {
		key string
		v   time.Duration
		min time.Duration
	}{
		{"fit.interval", f.Interval, MinInterval},
		{"fit.lookback", f.Lookback, MinInterval},
		{"fit.step", f.Step, MinInterval},
		{"fit.refresh_interval", f.RefreshInterval, MinInterval},
		{"fit.stale_after", f.StaleAfter, MinInterval},
	} {
		if d.v <= 0 {
			return fmt.Errorf("%s: must be positive", d.key)
		}
		if d.v < d.min {
			return fmt.Errorf("%s: %s is shorter than the minimum %s", d.key, d.v, model.Duration(d.min))
		}
	}
	if f.Step >= f.Lookback {
		return fmt.Errorf("fit.step: %s must be shorter than fit.lookback (%s)", model.Duration(f.Step), model.Duration(f.Lookback))
	}
	if n := f.Lookback / f.Step; n > MaxPoints {
		return fmt.Errorf("fit.lookback: %s / fit.step %s = %d points per series; at most %d (Prometheus's limit)", model.Duration(f.Lookback), model.Duration(f.Step), n, MaxPoints)
	}
	if f.StaleAfter <= f.Interval {
		return fmt.Errorf("fit.stale_after: %s must be longer than fit.interval (%s), or every model would go stale between fits", model.Duration(f.StaleAfter), model.Duration(f.Interval))
	}
	if f.LatencyModel != "queueing" && f.LatencyModel != "mlisp" {
		return fmt.Errorf("fit.latency_model: %q is not queueing or mlisp", f.LatencyModel)
	}
	if !(f.AccuracyThreshold >= 0 && f.AccuracyThreshold <= 1) { // also refuses NaN
		return fmt.Errorf("fit.accuracy_threshold: %v is outside [0, 1]", f.AccuracyThreshold)
	}
	if c.StateDir == "" {
		return errors.New("state_dir: required")
	}
	if err := checkListenAddress(c.Web.ListenAddress); err != nil {
		return fmt.Errorf("web.listen_address: %v", err)
	}
	if len(c.Clusters) == 0 {
		return errors.New("clusters: at least one cluster is required")
	}
	// By name folded to lower case (names are ASCII): two names that differ
	// only in case name one state file on a case-insensitive file system
	// (macOS, SMB, ext4 with casefold), which both clusters would then
	// overwrite, and set aside at every start.
	seen := map[string]int{}
	for i := range c.Clusters {
		cl := &c.Clusters[i]
		key := fmt.Sprintf("clusters[%d]", i)
		if err := cl.validate(key); err != nil {
			return err
		}
		if j, ok := seen[strings.ToLower(cl.Name)]; ok {
			if other := c.Clusters[j].Name; other != cl.Name {
				return fmt.Errorf("%s.name: %q and clusters[%d].name %q differ only in case: their state files would be one on a case-insensitive file system", key, cl.Name, j, other)
			}
			return fmt.Errorf("%s.name: duplicate cluster name %q", key, cl.Name)
		}
		seen[strings.ToLower(cl.Name)] = i
	}
	return nil
}

// checkListenAddress accepts what net.Listen("tcp", a) can bind: host:port
// with an empty, IP or name host and a port 0..65535.
func checkListenAddress(a string) error {
	if a == "" {
		return errors.New("required")
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. \":9595\" or \"127.0.0.1:9595\")", a)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("%q: port %q is not a number 0..65535", a, port)
	}
	if strings.ContainsAny(host, " /\t") {
		return fmt.Errorf("%q: %q is not a host name or IP address", a, host)
	}
	return nil
}

// promQL is Prometheus's parser with its default functions: a query it
// refuses, the Prometheus storcast queries would refuse too.
var promQL = parser.NewParser(parser.Options{})

var clusterNameRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)

// MaxClusterNameBytes bounds a cluster's name: it names the cluster's state
// file, and with the longest suffix a state file takes
// (".json.unreadable-20060102T150405Z-100", 37 bytes: the hundredth file
// set aside within one second) a longer name would pass
// the file system's 255-byte limit, so that no save could ever succeed.
const MaxClusterNameBytes = 200

func (cl *Cluster) validate(key string) error {
	if cl.Name == "" {
		return fmt.Errorf("%s.name: required", key)
	}
	if !clusterNameRE.MatchString(cl.Name) {
		return fmt.Errorf("%s.name: %q may hold only letters, digits and _ . : -", key, cl.Name)
	}
	if len(cl.Name) > MaxClusterNameBytes {
		return fmt.Errorf("%s.name: %d bytes, longer than %d (the name is its state file's)", key, len(cl.Name), MaxClusterNameBytes)
	}
	if err := checkMatchers(key+".matchers", cl.Matchers); err != nil {
		return err
	}
	switch cl.Kind {
	case KindCeph, KindSwift:
		if len(cl.Queries) > 0 {
			return fmt.Errorf("%s.queries: only for kind generic; use metrics to rename a %s series", key, cl.Kind)
		}
		for _, k := range sortedKeys(cl.Metrics) {
			if !isSignal(k) {
				return fmt.Errorf("%s.metrics.%s: unknown signal (want one of %s)", key, k, strings.Join(Signals, ", "))
			}
			if _, err := ParseMetricRef(cl.Metrics[k]); err != nil {
				return fmt.Errorf("%s.metrics.%s: %v", key, k, err)
			}
		}
	case KindGeneric:
		if len(cl.Metrics) > 0 {
			return fmt.Errorf("%s.metrics: not used by kind generic; give queries", key)
		}
		for _, k := range sortedKeys(cl.Queries) {
			if !isSignal(k) {
				return fmt.Errorf("%s.queries.%s: unknown signal (want one of %s)", key, k, strings.Join(Signals, ", "))
			}
		}
		for _, s := range Signals {
			q := strings.TrimSpace(cl.Queries[s])
			if q == "" {
				return fmt.Errorf("%s.queries.%s: required for kind generic", key, s)
			}
			if err := checkQuery(q); err != nil {
				return fmt.Errorf("%s.queries.%s: %v", key, s, err)
			}
		}
	case "":
		return fmt.Errorf("%s.kind: required (ceph, swift or generic)", key)
	default:
		return fmt.Errorf("%s.kind: unknown kind %q (want ceph, swift or generic)", key, cl.Kind)
	}
	if err := checkMatchers(key+".hosts.matchers", cl.Hosts.Matchers); err != nil {
		return err
	}
	roles := map[string]bool{}
	for j, r := range cl.Hosts.Roles {
		rk := fmt.Sprintf("%s.hosts.roles[%d]", key, j)
		if r.Name == "" {
			return fmt.Errorf("%s.name: required", rk)
		}
		if roles[r.Name] {
			return fmt.Errorf("%s.name: duplicate role %q", rk, r.Name)
		}
		roles[r.Name] = true
		if err := checkMatchers(rk+".matchers", r.Matchers); err != nil {
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
	// A format alone reads nothing: without a file the calibration is
	// estimated from history, which a user who set one did not mean.
	if cl.Calibration.Format != "" && cl.Calibration.File == "" {
		return fmt.Errorf("%s.calibration.format: %q is set but %s.calibration.file is not: the format is the file's (without a file, the calibration is estimated from history)", key, cl.Calibration.Format, key)
	}
	if cl.Advisor.ActiveRuleSet != "" && cl.Advisor.CatalogFile == "" {
		return fmt.Errorf("%s.advisor.active_rule_set: %q is set but %s.advisor.catalog_file is not: the rule set must be one of the catalog's", key, cl.Advisor.ActiveRuleSet, key)
	}
	return nil
}

// checkQuery parses a generic cluster's PromQL with Prometheus's own parser
// and wants an instant-vector expression (one value per instant).
func checkQuery(q string) error {
	expr, err := promQL.ParseExpr(q)
	if err != nil {
		return fmt.Errorf("invalid PromQL: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if t := expr.Type(); t != parser.ValueTypeVector && t != parser.ValueTypeScalar {
		return fmt.Errorf("%q is a %s; want an expression giving one value per instant (an instant vector)", q, t)
	}
	return nil
}

func checkMatchers(key string, ms []Matcher) error {
	for i, m := range ms {
		if err := m.check(); err != nil {
			return fmt.Errorf("%s[%d]: %v", key, i, err)
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

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
