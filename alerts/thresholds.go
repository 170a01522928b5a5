package alerts

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/storcast/storcast/internal/yamlstrict"
)

//go:embed thresholds.yml
var defaultThresholdsYAML []byte

// The saturation alerts' ETA (Thresholds.Saturation.ETA).
const (
	ETAPoint = "point"
	ETAEarly = "early"
)

// Thresholds are the numbers in the alert rules (see thresholds.yml for the
// meaning of each).
type Thresholds struct {
	RunbookBaseURL string `yaml:"runbook_base_url"`
	Selector       string `yaml:"selector"`
	StorcastJob    string `yaml:"storcast_job"`
	Interval       string `yaml:"interval"`

	Headroom struct {
		WarningRatio  float64        `yaml:"warning_ratio"`
		CriticalRatio float64        `yaml:"critical_ratio"`
		WarningFor    model.Duration `yaml:"warning_for"`
		CriticalFor   model.Duration `yaml:"critical_for"`
	} `yaml:"headroom"`
	Saturation struct {
		Horizon model.Duration `yaml:"horizon"`
		For     model.Duration `yaml:"for"`
		// ETA is which end the saturation alerts compare with the
		// horizon: ETAPoint (the forecast) or ETAEarly (the early end of
		// its 95% band, for a plan that must not be late).
		ETA string `yaml:"eta"`
	} `yaml:"saturation"`
	Latency struct {
		LoadFactor float64        `yaml:"load_factor"`
		For        model.Duration `yaml:"for"`
	} `yaml:"latency"`
	Calibration struct {
		ContradictedFor model.Duration `yaml:"contradicted_for"`
	} `yaml:"calibration"`
	Model struct {
		StaleFor         model.Duration `yaml:"stale_for"`
		MinAccuracyRatio float64        `yaml:"min_accuracy_ratio"`
		// MinAdvisorAccuracyRatio is the advisor's own bar: its accuracy is
		// a skill score (1 − CV error / the mean boost's CV error), which
		// the catalog's run-to-run noise keeps well under 1 for any tree.
		MinAdvisorAccuracyRatio float64        `yaml:"min_advisor_accuracy_ratio"`
		InaccurateFor           model.Duration `yaml:"inaccurate_for"`
		FitFailingFor           model.Duration `yaml:"fit_failing_for"`
	} `yaml:"model"`
	Source struct {
		DownFor model.Duration `yaml:"down_for"`
	} `yaml:"source"`
	State struct {
		NotSavedFor    model.Duration `yaml:"not_saved_for"`
		NotRestoredFor model.Duration `yaml:"not_restored_for"`
	} `yaml:"state"`
	Exporter struct {
		DownFor             model.Duration `yaml:"down_for"`
		CollectorFailingFor model.Duration `yaml:"collector_failing_for"`
		ReloadFailedFor     model.Duration `yaml:"reload_failed_for"`
	} `yaml:"exporter"`
	Shards struct {
		MismatchFor model.Duration `yaml:"mismatch_for"`
	} `yaml:"shards"`
}

// ExportedLoadFactors are the load_factor values of
// storcast_predicted_latency_seconds (exporter/collector.LoadFactors).
var ExportedLoadFactors = []float64{1, 1.25, 1.5, 2}

// DefaultThresholds returns the thresholds of the shipped thresholds.yml.
func DefaultThresholds() Thresholds {
	var t Thresholds
	if err := decodeStrict(defaultThresholdsYAML, &t); err != nil {
		panic("alerts: the embedded thresholds.yml is invalid: " + err.Error())
	}
	return t
}

// ParseThresholds reads thresholds YAML over the defaults: keys left out keep
// their default, an empty file is the defaults. Unknown keys and out-of-range
// values are errors naming the key, a second YAML document is an error.
// source names the input in error messages.
func ParseThresholds(data []byte, source string) (Thresholds, error) {
	t := DefaultThresholds()
	if err := decodeStrict(data, &t); err != nil {
		return t, fmt.Errorf("%s: %w", source, err)
	}
	if err := t.Validate(); err != nil {
		return t, fmt.Errorf("%s: %w", source, err)
	}
	return t, nil
}

// decodeStrict decodes the one YAML document of data over t, strictly
// (internal/yamlstrict): a second document or an unknown key is an error, an
// empty file leaves t as it is. yaml.v3's errors become one line without Go
// type names.
func decodeStrict(data []byte, t *Thresholds) error {
	switch err := yamlstrict.Decode(data, t); {
	case err == nil, errors.Is(err, yamlstrict.ErrEmpty):
		return nil
	case errors.Is(err, yamlstrict.ErrMoreDocuments):
		return err
	default:
		return errors.New(yamlstrict.Message(err))
	}
}

// Validate checks that every threshold is in range.
func (t Thresholds) Validate() error {
	ratio := func(key string, v float64) error {
		if math.IsNaN(v) || v <= 0 || v >= 1 {
			return fmt.Errorf("%s: %v is not a ratio in (0, 1)", key, v)
		}
		return nil
	}
	positive := func(key string, d model.Duration) error {
		if d <= 0 {
			return fmt.Errorf("%s: must be a positive duration, got %s", key, d)
		}
		return nil
	}
	nonNegative := func(key string, d model.Duration) error {
		if d < 0 {
			return fmt.Errorf("%s: must not be negative, got %s", key, d)
		}
		return nil
	}
	for _, err := range []error{
		ratio("headroom.warning_ratio", t.Headroom.WarningRatio),
		ratio("headroom.critical_ratio", t.Headroom.CriticalRatio),
		nonNegative("headroom.warning_for", t.Headroom.WarningFor),
		nonNegative("headroom.critical_for", t.Headroom.CriticalFor),
		positive("saturation.horizon", t.Saturation.Horizon),
		nonNegative("saturation.for", t.Saturation.For),
		nonNegative("latency.for", t.Latency.For),
		nonNegative("calibration.contradicted_for", t.Calibration.ContradictedFor),
		nonNegative("model.stale_for", t.Model.StaleFor),
		ratio("model.min_accuracy_ratio", t.Model.MinAccuracyRatio),
		ratio("model.min_advisor_accuracy_ratio", t.Model.MinAdvisorAccuracyRatio),
		nonNegative("model.inaccurate_for", t.Model.InaccurateFor),
		nonNegative("model.fit_failing_for", t.Model.FitFailingFor),
		nonNegative("source.down_for", t.Source.DownFor),
		nonNegative("state.not_saved_for", t.State.NotSavedFor),
		nonNegative("state.not_restored_for", t.State.NotRestoredFor),
		nonNegative("exporter.down_for", t.Exporter.DownFor),
		nonNegative("exporter.collector_failing_for", t.Exporter.CollectorFailingFor),
		nonNegative("exporter.reload_failed_for", t.Exporter.ReloadFailedFor),
		nonNegative("shards.mismatch_for", t.Shards.MismatchFor),
	} {
		if err != nil {
			return err
		}
	}
	if t.Saturation.ETA != ETAPoint && t.Saturation.ETA != ETAEarly {
		return fmt.Errorf("saturation.eta: %q is not %s (the forecast) or %s (the early end of its 95%% band)", t.Saturation.ETA, ETAPoint, ETAEarly)
	}
	if t.Headroom.CriticalRatio >= t.Headroom.WarningRatio {
		return fmt.Errorf("headroom.critical_ratio: %v must be below headroom.warning_ratio %v", t.Headroom.CriticalRatio, t.Headroom.WarningRatio)
	}
	if f := t.Latency.LoadFactor; !slices.Contains(ExportedLoadFactors, f) || f <= 1 {
		return fmt.Errorf("latency.load_factor: %v is not one of the load factors storcast exports above 1 (1.25, 1.5, 2)", f)
	}
	if t.StorcastJob == "" || strings.ContainsAny(t.StorcastJob, "\"\\\n") {
		return fmt.Errorf("storcast_job: %q must be a non-empty job name without quotes, backslashes or newlines", t.StorcastJob)
	}
	if strings.ContainsAny(t.Selector, "{}\n") {
		return fmt.Errorf("selector: %q must be label matchers without braces, like job=\"storcast\"", t.Selector)
	}
	if err := t.selectorPicksStorcastJob(); err != nil {
		return err
	}
	if t.Interval != "" {
		d, err := model.ParseDuration(t.Interval)
		if err != nil || d <= 0 {
			return fmt.Errorf("interval: %q is not a positive Prometheus duration", t.Interval)
		}
	}
	if t.RunbookBaseURL == "" {
		return errors.New("runbook_base_url: must not be empty")
	}
	return nil
}

// selectorPicksStorcastJob checks the selector against storcast_job: the
// selector picks the storcast series of every other rule, storcast_job the
// up series of StorcastExporterDown, and both name the same scrape job. A
// selector of job="storcast-eu" with the default storcast_job watched the
// forecasts of storcast-eu and the scrapes of another job (or of none: then
// StorcastExporterDown fires for good, the job having no target). Matchers
// on other labels (cluster="...") do not concern up and are not checked.
func (t Thresholds) selectorPicksStorcastJob() error {
	if t.Selector == "" {
		return nil
	}
	ms, err := parser.NewParser(parser.Options{}).ParseMetricSelector("{" + t.Selector + "}")
	if err != nil {
		return fmt.Errorf("selector: %q is not label matchers like job=\"storcast\": %v", t.Selector, err)
	}
	for _, m := range ms {
		if m.Name == "job" && !m.Matches(t.StorcastJob) {
			return fmt.Errorf("selector: %s does not match storcast_job %q, the job StorcastExporterDown watches: set storcast_job to the job the selector picks", m, t.StorcastJob)
		}
	}
	return nil
}

// seconds writes a duration as a PromQL number of seconds.
func seconds(d model.Duration) string {
	return fmt.Sprintf("%g", time.Duration(d).Seconds())
}
