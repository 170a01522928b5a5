package alerts

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/alerts/series"
	"github.com/storcast/storcast/internal/testtool"
)

const (
	rulesFile = "storcast.rules.yml"
	testFile  = "tests/storcast.test.yml"
)

func TestGeneratedRulesAreUpToDate(t *testing.T) {
	want, err := Generate(DefaultThresholds(), "thresholds.yml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the generator writes from thresholds.yml; run `go generate ./alerts` and commit the result", rulesFile)
	}
}

func TestPromtoolCheckRules(t *testing.T) {
	out, err := exec.Command(testtool.Need(t, "promtool"), "check", "rules", rulesFile).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("SUCCESS: %d rules found", len(Rules(DefaultThresholds()))); !strings.Contains(string(out), want) {
		t.Errorf("promtool check rules output lacks %q:\n%s", want, out)
	}
}

func TestPromtoolTestRules(t *testing.T) {
	out, err := exec.Command(testtool.Need(t, "promtool"), "test", "rules", testFile).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}

// unitTests is the part of a promtool test file that the coverage check reads.
type unitTests struct {
	RuleFiles []string `yaml:"rule_files"`
	Tests     []struct {
		Name      string `yaml:"name"`
		AlertRule []struct {
			Alertname string           `yaml:"alertname"`
			ExpAlerts []map[string]any `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

// alertNamesIn returns the alert names of a rule file.
func alertNamesIn(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f File
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var names []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				names = append(names, r.Alert)
			}
		}
	}
	return names
}

// coverage returns, per alert name, the number of positive (an alert
// expected) and negative (exp_alerts empty) cases in the test files.
func coverage(t *testing.T, files ...string) (pos, neg map[string]int) {
	t.Helper()
	pos, neg = map[string]int{}, map[string]int{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var u unitTests
		if err := yaml.Unmarshal(data, &u); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, tc := range u.Tests {
			for _, a := range tc.AlertRule {
				if len(a.ExpAlerts) > 0 {
					pos[a.Alertname]++
				} else {
					neg[a.Alertname]++
				}
			}
		}
	}
	return pos, neg
}

// missingTests lists the alerts without a positive or a negative case.
func missingTests(alerts []string, pos, neg map[string]int) []string {
	var missing []string
	for _, a := range alerts {
		if pos[a] == 0 {
			missing = append(missing, a+" has no positive test case")
		}
		if neg[a] == 0 {
			missing = append(missing, a+" has no negative test case (exp_alerts: [])")
		}
	}
	sort.Strings(missing)
	return missing
}

// TestEveryAlertHasTests is the check that fails when an alert is added
// without a positive and a negative promtool test case.
func TestEveryAlertHasTests(t *testing.T) {
	alerts := alertNamesIn(t, rulesFile)
	if len(alerts) == 0 {
		t.Fatalf("no alerts in %s", rulesFile)
	}
	files, _ := filepath.Glob("tests/*.test.yml")
	pos, neg := coverage(t, files...)
	for _, m := range missingTests(alerts, pos, neg) {
		t.Error(m)
	}
	// Tests of alerts that do not exist are typos.
	known := map[string]bool{}
	for _, a := range alerts {
		known[a] = true
	}
	for a := range pos {
		if !known[a] {
			t.Errorf("test case for unknown alert %q", a)
		}
	}
	for a := range neg {
		if !known[a] {
			t.Errorf("test case for unknown alert %q", a)
		}
	}
}

// TestCoverageCheckCatchesAMissingTest shows that the check above can fail.
func TestCoverageCheckCatchesAMissingTest(t *testing.T) {
	pos := map[string]int{"A": 1, "B": 1}
	neg := map[string]int{"A": 1}
	got := missingTests([]string{"A", "B", "C"}, pos, neg)
	want := []string{
		"B has no negative test case (exp_alerts: [])",
		"C has no negative test case (exp_alerts: [])",
		"C has no positive test case",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("missingTests = %q, want %q", got, want)
	}
}

func TestEveryAlertHasLabelsAnnotationsAndARunbook(t *testing.T) {
	for _, r := range Rules(DefaultThresholds()) {
		switch r.Labels["severity"] {
		case "warning", "critical":
		default:
			t.Errorf("%s: severity %q, want warning or critical", r.Alert, r.Labels["severity"])
		}
		for _, k := range []string{"summary", "description", "runbook_url"} {
			if r.Annotations[k] == "" {
				t.Errorf("%s: no %s annotation", r.Alert, k)
			}
		}
		if want := DefaultThresholds().RunbookBaseURL + r.Alert + ".md"; r.Annotations["runbook_url"] != want {
			t.Errorf("%s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
		}
		rb, err := os.ReadFile(filepath.Join("runbooks", r.Alert+".md"))
		if err != nil {
			t.Errorf("%s: no runbook: %v", r.Alert, err)
			continue
		}
		if !strings.HasPrefix(string(rb), "# "+r.Alert+"\n") {
			t.Errorf("runbooks/%s.md does not start with the heading \"# %s\"", r.Alert, r.Alert)
		}
		for _, section := range []string{"## Meaning", "## Impact", "## Diagnosis", "## Mitigation"} {
			if !strings.Contains(string(rb), section) {
				t.Errorf("runbooks/%s.md lacks a %q section", r.Alert, section)
			}
		}
	}
}

func TestParseThresholdsOverridesOnlyWhatIsGiven(t *testing.T) {
	th, err := ParseThresholds([]byte("saturation:\n  horizon: 3d\nheadroom:\n  warning_ratio: 0.3\n"), "mine.yml")
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultThresholds()
	if th.Saturation.Horizon.String() != "3d" || th.Headroom.WarningRatio != 0.3 {
		t.Errorf("overrides not applied: horizon %s, warning %v", th.Saturation.Horizon, th.Headroom.WarningRatio)
	}
	if th.Saturation.For != def.Saturation.For || th.Headroom.CriticalRatio != def.Headroom.CriticalRatio || th.Model.MinAccuracyRatio != def.Model.MinAccuracyRatio {
		t.Errorf("defaults lost in a partial override: %+v", th)
	}
	rules, err := Generate(th, "mine.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`storcast_saturation_eta_seconds{limit="max_iops"} < 259200`, "storcast_headroom_ratio < 0.3"} {
		if !strings.Contains(string(rules), want) {
			t.Errorf("generated rules lack %q", want)
		}
	}
	sel, err := ParseThresholds([]byte("selector: 'job=\"storcast-eu\"'\nstorcast_job: storcast-eu\n"), "sel.yml")
	if err != nil {
		t.Fatal(err)
	}
	rules, _ = Generate(sel, "sel.yml")
	for _, want := range []string{`storcast_headroom_ratio{job="storcast-eu"} < 0.2`, `storcast_saturation_eta_seconds{job="storcast-eu", limit="latency_slo"}`,
		`up{job="storcast-eu"} == 0`, `absent(up{job="storcast-eu"})`} {
		if !strings.Contains(string(rules), want) {
			t.Errorf("generated rules with a selector lack %q", want)
		}
	}
}

// A selector's job matcher must match storcast_job (StorcastExporterDown's
// job); matchers on other labels are free: these pass.
func TestSelectorAgreeingWithStorcastJobAccepted(t *testing.T) {
	for _, in := range []string{
		"selector: 'cluster!=\"ceph-lab\"'\n",
		"selector: 'cluster=\"ceph-lab\"'\n",
		"selector: 'job=\"storcast\"'\n",
		"selector: 'job=~\"storcast-.*\", cluster!=\"a\"'\nstorcast_job: storcast-eu\n",
	} {
		th, err := ParseThresholds([]byte(in), "ok.yml")
		if err != nil {
			t.Errorf("ParseThresholds(%q): %v", in, err)
			continue
		}
		if _, err := Generate(th, "ok.yml"); err != nil {
			t.Errorf("Generate(%q): %v", in, err)
		}
	}
}

// An empty file, or one of comments only, is the defaults.
func TestParseThresholdsEmptyIsDefaults(t *testing.T) {
	for _, in := range []string{"", "# nothing changed\n"} {
		th, err := ParseThresholds([]byte(in), "empty.yml")
		if err != nil || th != DefaultThresholds() {
			t.Errorf("ParseThresholds(%q) = %+v, %v; want the defaults", in, th, err)
		}
	}
}

func TestParseThresholdsErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"headroom:\n  warning_ratio: 1.5\n", "bad.yml: headroom.warning_ratio: 1.5 is not a ratio in (0, 1)"},
		{"headroom:\n  critical_ratio: 0.3\n", "bad.yml: headroom.critical_ratio: 0.3 must be below headroom.warning_ratio 0.2"},
		{"saturation:\n  horizon: 0s\n", "bad.yml: saturation.horizon: must be a positive duration, got 0s"},
		{"saturation:\n  horizon: soon\n", `bad.yml: not a valid duration string: "soon"`},
		{"latency:\n  load_factor: 1.3\n", "bad.yml: latency.load_factor: 1.3 is not one of the load factors storcast exports above 1 (1.25, 1.5, 2)"},
		{"model:\n  min_accuracy_ratio: 0\n", "bad.yml: model.min_accuracy_ratio: 0 is not a ratio in (0, 1)"},
		{"model:\n  min_advisor_accuracy_ratio: 1.5\n", "bad.yml: model.min_advisor_accuracy_ratio: 1.5 is not a ratio in (0, 1)"},
		{"storcast_job: 'a\"b'\n", `bad.yml: storcast_job: "a\"b" must be a non-empty job name without quotes, backslashes or newlines`},
		{"selector: '{job=\"x\"}'\n", `bad.yml: selector: "{job=\"x\"}" must be label matchers without braces, like job="storcast"`},
		// The selector picks storcast's series, storcast_job its up: one job.
		{"selector: 'job=\"storcast-eu\"'\n", `bad.yml: selector: job="storcast-eu" does not match storcast_job "storcast", the job StorcastExporterDown watches: set storcast_job to the job the selector picks`},
		{"selector: 'cluster!=\"a\", job=~\"storcast-(eu|us)\"'\nstorcast_job: storcast-ap\n", `bad.yml: selector: job=~"storcast-(eu|us)" does not match storcast_job "storcast-ap", the job StorcastExporterDown watches: set storcast_job to the job the selector picks`},
		{"selector: 'job=\"storcast\" cluster=\"a\"'\n", `bad.yml: selector: "job=\"storcast\" cluster=\"a\"" is not label matchers like job="storcast": 1:17: parse error: unexpected identifier "cluster" in label matching, expected "," or "}"`},
		{"interval: fast\n", `bad.yml: interval: "fast" is not a positive Prometheus duration`},
		{"saturation:\n  eta: late\n", `bad.yml: saturation.eta: "late" is not point (the forecast) or early (the early end of its 95% band)`},
		{"headrom:\n  warning_ratio: 0.3\n", "bad.yml: line 1: unknown field headrom"},
		{"headroom:\n  warning_ratio: 0.3\n  critical: 0.1\nsaturation:\n  horizon: 3d\n  fr: 1h\n", "bad.yml: line 3: unknown field critical; line 6: unknown field fr"},
		{"headroom:\n  warning_ratio: 0.3\n---\nheadroom:\n  warning_ratio: 0.1\n", "bad.yml: more than one YAML document"},
		{"interval: 1m\n--- [\n", "bad.yml: more than one YAML document"},
		{"headroom: [\n", "bad.yml: line 1: did not find expected node content"},
	} {
		_, err := ParseThresholds([]byte(tc.in), "bad.yml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseThresholds(%q) error:\n got %v\nwant %s", tc.in, err, tc.want)
		}
	}
}

// TestTestsCatchWrongThresholds runs the unit tests against rules generated
// with wrong thresholds: each must make promtool test rules fail, so the
// tests pin the thresholds rather than pass whatever the rules say.
func TestTestsCatchWrongThresholds(t *testing.T) {
	promtool := testtool.Need(t, "promtool")
	tests, err := os.ReadFile(testFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ name, yaml string }{
		{"headroom warning at 25%", "headroom:\n  warning_ratio: 0.25\n"},
		{"headroom critical for 0s", "headroom:\n  critical_for: 0s\n"},
		{"horizon 3d", "saturation:\n  horizon: 3d\n"},
		{"load factor 1.5", "latency:\n  load_factor: 1.5\n"},
		{"accuracy 95%", "model:\n  min_accuracy_ratio: 0.95\n"},
		{"advisor accuracy 50%", "model:\n  min_advisor_accuracy_ratio: 0.5\n"},
		{"advisor accuracy 20%", "model:\n  min_advisor_accuracy_ratio: 0.2\n"},
		{"advisor held to the others' 70%", "model:\n  min_advisor_accuracy_ratio: 0.7\n"},
		{"stale for 1h", "model:\n  stale_for: 1h\n"},
		{"source down for 2m", "source:\n  down_for: 2m\n"},
		{"state not restored for 0s", "state:\n  not_restored_for: 0s\n"},
		{"state not restored for 6m", "state:\n  not_restored_for: 6m\n"},
		{"exporter job", "storcast_job: storcast-exporter\n"},
		{"shard mismatch for 10m", "shards:\n  mismatch_for: 10m\n"},
		{"saturation for 0s", "saturation:\n  for: 0s\n"},
		{"latency for 0s", "latency:\n  for: 0s\n"},
		{"exporter down for 0s", "exporter:\n  down_for: 0s\n"},
		{"headroom warning at 19.8%", "headroom:\n  warning_ratio: 0.198\n"},
		{"headroom warning for 14m", "headroom:\n  warning_for: 14m\n"},
		{"headroom warning for 16m", "headroom:\n  warning_for: 16m\n"},
		{"headroom critical at 6%", "headroom:\n  critical_ratio: 0.06\n"},
		{"headroom critical at 4.8%", "headroom:\n  critical_ratio: 0.048\n"},
		{"headroom critical for 6m", "headroom:\n  critical_for: 6m\n"},
		{"horizon 25h", "saturation:\n  horizon: 25h\n"},
		{"horizon 23h", "saturation:\n  horizon: 23h\n"},
		{"saturation for 16m", "saturation:\n  for: 16m\n"},
		{"calibration contradicted for 20m", "calibration:\n  contradicted_for: 20m\n"},
		{"calibration contradicted for 31m", "calibration:\n  contradicted_for: 31m\n"},
		{"model inaccurate for 50m", "model:\n  inaccurate_for: 50m\n"},
		{"model inaccurate for 61m", "model:\n  inaccurate_for: 61m\n"},
		{"model fit failing for 30m", "model:\n  fit_failing_for: 30m\n"},
		{"model fit failing for 2h", "model:\n  fit_failing_for: 2h\n"},
		{"state not saved for 29m", "state:\n  not_saved_for: 29m\n"},
		{"state not saved for 31m", "state:\n  not_saved_for: 31m\n"},
		{"collector failing for 5m", "exporter:\n  collector_failing_for: 5m\n"},
		{"collector failing for 16m", "exporter:\n  collector_failing_for: 16m\n"},
		{"reload failed for 5m", "exporter:\n  reload_failed_for: 5m\n"},
		{"reload failed for 11m", "exporter:\n  reload_failed_for: 11m\n"},
	} {
		th, err := ParseThresholds([]byte(m.yaml), m.name)
		if err != nil {
			t.Fatal(err)
		}
		rules, err := Generate(th, m.name)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "tests"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rulesFile), rules, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, testFile), tests, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(promtool, "test", "rules", filepath.Join(dir, testFile)).CombinedOutput()
		if err == nil {
			t.Errorf("%s: promtool test rules passed against wrong rules:\n%s", m.name, out)
		}
	}
}

func TestAlertmanagerExampleConfig(t *testing.T) {
	amtool := testtool.Need(t, "amtool")
	const cfg = "alertmanager.example.yml"
	out, err := exec.Command(amtool, "check-config", cfg).CombinedOutput()
	if err != nil {
		t.Fatalf("amtool check-config %s: %v\n%s", cfg, err, out)
	}
	// Every alert routes somewhere on purpose: critical paging alerts to the
	// pager, the rest to the team.
	for _, r := range Rules(DefaultThresholds()) {
		want := "storage-team"
		if r.Labels["severity"] == "critical" {
			want = "storage-oncall-pager"
		}
		out, err := exec.Command(amtool, "config", "routes", "test", "--config.file="+cfg, "--verify.receivers="+want,
			"alertname="+r.Alert, "severity="+r.Labels["severity"], "cluster=ceph-prod").CombinedOutput()
		if err != nil {
			t.Errorf("%s routes to %s, want %s: %v", r.Alert, strings.TrimSpace(string(out)), want, err)
		}
	}
}

// TestRulesUseExportedSeries checks every storcast_* series that the rules
// and their unit tests name against what the exporter's collectors declare,
// so that a series renamed in the exporter breaks this test, not production.
func TestRulesUseExportedSeries(t *testing.T) {
	descs := series.Exported()
	labels := map[string]map[string]bool{}
	for _, d := range descs {
		labels[d.Name] = map[string]bool{}
		for _, l := range d.Labels {
			labels[d.Name][l] = true
		}
	}
	sel := regexp.MustCompile(`(storcast_[a-z_]+)(\{([^}]*)\})?`)
	label := regexp.MustCompile(`(\w+)\s*(=|!=|=~|!~)`)
	for _, f := range []string{rulesFile, testFile} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range sel.FindAllStringSubmatch(string(data), -1) {
			ls, ok := labels[m[1]]
			if !ok {
				t.Errorf("%s: %s is not a series the exporter declares (exporter/collector)", f, m[1])
				continue
			}
			for _, lm := range label.FindAllStringSubmatch(m[3], -1) {
				if !ls[lm[1]] && lm[1] != "job" && lm[1] != "instance" {
					t.Errorf("%s: %s has no label %q in the exporter", f, m[1], lm[1])
				}
			}
		}
	}
}

// TestAlertmanagerInhibition evaluates the example's inhibit rules as
// Alertmanager does (a target alert is muted while a source alert fires
// whose labels in `equal` are the same, a label absent on both counting as
// equal) on the alerts of a sharded deployment with an HA pair (replicas a
// and b of shard 0, same instance, told apart by the external replica
// label): a cluster's source down on one storcast mutes that storcast's
// frozen forecasts of that cluster, not another cluster's, not the other
// replica's live ones, nor the shard mismatch; a storcast down mutes
// nothing (its series go stale, its alerts resolve by themselves; muting
// by instance silenced the live replica and, without equal, every shard).
func TestAlertmanagerInhibition(t *testing.T) {
	var cfg struct {
		InhibitRules []struct {
			Source []string `yaml:"source_matchers"`
			Target []string `yaml:"target_matchers"`
			Equal  []string `yaml:"equal"`
		} `yaml:"inhibit_rules"`
	}
	data, err := os.ReadFile("alertmanager.example.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	matches := func(ms []string, a map[string]string) bool {
		sel, err := parser.NewParser(parser.Options{}).ParseMetricSelector("{" + strings.Join(ms, ",") + "}")
		if err != nil {
			t.Fatalf("matchers %v: %v", ms, err)
		}
		for _, m := range sel {
			if !m.Matches(a[m.Name]) {
				return false
			}
		}
		return true
	}
	inhibited := func(a map[string]string, firing []map[string]string) bool {
		for _, r := range cfg.InhibitRules {
			if !matches(r.Target, a) {
				continue
			}
			for _, s := range firing {
				if !matches(r.Source, s) || reflect.DeepEqual(s, a) {
					continue
				}
				equal := true
				for _, l := range r.Equal {
					equal = equal && s[l] == a[l]
				}
				if equal {
					return true
				}
			}
		}
		return false
	}
	alert := func(name, instance, replica, cluster string) map[string]string {
		a := map[string]string{"alertname": name, "job": "storcast"}
		for k, v := range map[string]string{"instance": instance, "replica": replica, "cluster": cluster} {
			if v != "" {
				a[k] = v
			}
		}
		return a
	}
	firing := []map[string]string{
		alert("StorcastExporterDown", "storcast-1", "", ""),
		alert("StorcastSourceDown", "storcast-0", "a", "ceph-a"),
	}
	for _, c := range []struct {
		a     map[string]string
		muted bool
	}{
		{alert("StorcastHeadroomCritical", "storcast-1", "", "ceph-b"), false}, // the down storcast's: resolves by itself
		{alert("StorcastHeadroomCritical", "storcast-2", "", "ceph-c"), false}, // another shard
		{map[string]string{"alertname": "StorcastShardMismatch", "cluster": "ceph-b"}, false},
		{alert("StorcastHeadroomCritical", "storcast-0", "a", "ceph-a"), true}, // frozen: this replica's source is down
		{alert("StorcastMaxIOPSSaturationPredicted", "storcast-0", "a", "ceph-a"), true},
		{alert("StorcastModelStale", "storcast-0", "a", "ceph-a"), true},
		{alert("StorcastHeadroomCritical", "storcast-0", "b", "ceph-a"), false}, // the other replica, whose source answers
		{alert("StorcastHeadroomLow", "storcast-0", "a", "ceph-d"), false},      // another cluster of the same shard
		{map[string]string{"alertname": "StorcastShardMismatch", "cluster": "ceph-a"}, false},
		{alert("StorcastSourceDown", "storcast-0", "a", "ceph-a"), false},
		{alert("StorcastStateNotSaved", "storcast-0", "a", "ceph-a"), false}, // its disk, not its source
		{alert("StorcastStateNotRestored", "storcast-0", "a", "ceph-a"), false},
		{alert("StorcastModelFitFailing", "storcast-0", "a", "ceph-a"), true}, // no fit is attempted while the source is down
		{alert("StorcastModelFitFailing", "storcast-0", "b", "ceph-a"), false},
		{map[string]string{"alertname": "StorcastCollectorFailing", "job": "storcast", "instance": "storcast-0", "replica": "a", "collector": "capacity"}, false},
		{map[string]string{"alertname": "StorcastConfigReloadFailed", "job": "storcast", "instance": "storcast-0", "replica": "a"}, false},
	} {
		if got := inhibited(c.a, firing); got != c.muted {
			t.Errorf("%v: inhibited %v, want %v", c.a, got, c.muted)
		}
	}
}

// TestEarlyETAAlerts: with saturation.eta: early the saturation alerts fire
// on the early end of the ETA's 95% band, on the ETA where there is no band
// (testdata/early-eta.test.yml); the default rules fail that file (they
// wait for the ETA itself), so it tells the two apart.
func TestEarlyETAAlerts(t *testing.T) {
	promtool := testtool.Need(t, "promtool")
	tests, err := os.ReadFile("testdata/early-eta.test.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		eta  string
		pass bool
	}{{ETAEarly, true}, {ETAPoint, false}} {
		th, err := ParseThresholds([]byte("saturation:\n  eta: "+c.eta+"\n"), "eta-"+c.eta)
		if err != nil {
			t.Fatal(err)
		}
		rules, err := Generate(th, "eta-"+c.eta)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for name, data := range map[string][]byte{"storcast.rules.yml": rules, "early-eta.test.yml": tests} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, err := exec.Command(promtool, "test", "rules", filepath.Join(dir, "early-eta.test.yml")).CombinedOutput()
		if (err == nil) != c.pass {
			t.Errorf("saturation.eta %s: promtool test rules err %v, want passing %v:\n%s", c.eta, err, c.pass, out)
		}
	}
}
