package dashboards

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	promparser "github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/promql/promqltest"

	"github.com/storcast/storcast/alerts"
	"github.com/storcast/storcast/alerts/series"
	"github.com/storcast/storcast/internal/testtool"
)

// TestGeneratedJSONIsUpToDate is the drift check: the committed JSON is what
// the generator writes.
func TestGeneratedJSONIsUpToDate(t *testing.T) {
	files, _ := filepath.Glob("json/*.json")
	all := All()
	if len(files) != len(all) {
		t.Errorf("json/ holds %d files, the generator writes %d; run go generate ./dashboards", len(files), len(all))
	}
	for name, d := range all {
		want, err := d.JSON()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("json", name))
		if err != nil {
			t.Errorf("%v; run go generate ./dashboards", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("json/%s is not what the generator writes; run go generate ./dashboards and commit it", name)
		}
	}
}

// loadJSON reads every committed dashboard as generic JSON.
func loadJSON(t *testing.T) map[string]map[string]any {
	t.Helper()
	files, _ := filepath.Glob("json/*.json")
	if len(files) == 0 {
		t.Fatal("no dashboards in json/")
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d map[string]any
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = d
	}
	return out
}

// promQuery is one PromQL expression found in a dashboard's JSON.
type promQuery struct {
	where string // dashboard, panel and refId, for messages
	expr  string
}

// extractPromQL walks the dashboard JSON and returns every Prometheus
// target's expr and every query variable's PromQL.
func extractPromQL(name string, d map[string]any) []promQuery {
	var out []promQuery
	var walkPanels func([]any)
	walkPanels = func(ps []any) {
		for _, p := range ps {
			pm, _ := p.(map[string]any)
			title, _ := pm["title"].(string)
			targets, _ := pm["targets"].([]any)
			for _, tg := range targets {
				tm, _ := tg.(map[string]any)
				ds, _ := tm["datasource"].(map[string]any)
				if ds["type"] != PrometheusType {
					continue
				}
				expr, _ := tm["expr"].(string)
				out = append(out, promQuery{where: fmt.Sprintf("%s: panel %q, refId %v", name, title, tm["refId"]), expr: expr})
			}
			sub, _ := pm["panels"].([]any)
			walkPanels(sub)
		}
	}
	panels, _ := d["panels"].([]any)
	walkPanels(panels)
	templating, _ := d["templating"].(map[string]any)
	vars, _ := templating["list"].([]any)
	labelValues := regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)
	for _, v := range vars {
		vm, _ := v.(map[string]any)
		if vm["type"] != "query" {
			continue
		}
		q, _ := vm["query"].(map[string]any)
		qs, _ := q["query"].(string)
		if m := labelValues.FindStringSubmatch(qs); m != nil {
			// label_values(expr, label) returns data when expr has series with label.
			qs = fmt.Sprintf("count by (%s) (%s)", m[2], m[1])
		}
		out = append(out, promQuery{where: fmt.Sprintf("%s: variable %v", name, vm["name"]), expr: qs})
	}
	return out
}

// substitute replaces Grafana's variables with values the fixtures have.
func substitute(expr string) string {
	r := strings.NewReplacer(
		"${cluster}", fixtureCluster, "$cluster", fixtureCluster, "${job}", fixtureJob, "$job", fixtureJob,
		"$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h",
	)
	return r.Replace(expr)
}

// fixtureCluster is the cluster the fixtures and the substituted $cluster name.
const fixtureCluster = "ceph-prod"

// fixtureJob is the scrape job of the fixtures, the substituted $job.
const fixtureJob = "storcast"

// fixtureSeries writes the promtool input_series: every series that the
// exporter's collectors declare (collector.Declared), for
// the fixture cluster and every combination of label values, constant and
// finite over an hour. A dashboard expression over a series the exporter
// does not export (a typo, a rename) returns no data, and the test fails.
func fixtureSeries(t *testing.T) []map[string]string {
	t.Helper()
	descs := series.Exported()
	var out []map[string]string
	for i, sel := range series.Fixtures(descs, fixtureCluster, `job="storcast",instance="storcast:9595"`) {
		out = append(out, map[string]string{"series": sel, "values": strconv.Itoa(i+1) + "x60"})
	}
	return out
}

// TestEveryPromQLExpressionReturnsData turns every PromQL expression of the
// dashboards into an alert "count((expr)) > 0" and asks promtool to confirm
// that each fires against the fixture series.
func TestEveryPromQLExpressionReturnsData(t *testing.T) {
	promtool := testtool.Need(t, "promtool")
	var queries []promQuery
	dashboards := loadJSON(t)
	for _, n := range slices.Sorted(maps.Keys(dashboards)) {
		queries = append(queries, extractPromQL(n, dashboards[n])...)
	}
	if len(queries) < 20 {
		t.Fatalf("only %d PromQL expressions extracted; the extraction is broken", len(queries))
	}
	rules, tests := promtoolFiles(queries, fixtureSeries(t))
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "dashboards.rules.json"), rules, 0o644))
	must(os.WriteFile(filepath.Join(dir, "dashboards.test.json"), tests, 0o644))
	out, err := exec.Command(promtool, "check", "rules", filepath.Join(dir, "dashboards.rules.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("a dashboard expression does not parse:\n%s\n%s", out, index(queries))
	}
	out, err = exec.Command(promtool, "test", "rules", filepath.Join(dir, "dashboards.test.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("a dashboard expression returns no data over the contract's series:\n%s\n%s", out, index(queries))
	}
}

// index lists the expressions by alert name, to read promtool's failures.
func index(qs []promQuery) string {
	var b strings.Builder
	for i, q := range qs {
		fmt.Fprintf(&b, "DashboardExpr%03d  %s  %s\n", i, q.where, substitute(q.expr))
	}
	return b.String()
}

// promtoolFiles writes a rule file with one alert per expression and a unit
// test expecting each to fire. JSON is valid YAML, so promtool reads both.
func promtoolFiles(qs []promQuery, fixtures []map[string]string) (rules, tests []byte) {
	var rs, cases []map[string]any
	for i, q := range qs {
		name := fmt.Sprintf("DashboardExpr%03d", i)
		rs = append(rs, map[string]any{"alert": name, "expr": "count((" + substitute(q.expr) + ")) > 0"})
		cases = append(cases, map[string]any{"eval_time": "30m", "alertname": name,
			"exp_alerts": []map[string]any{{"exp_labels": map[string]string{}}}})
	}
	rules, _ = json.MarshalIndent(map[string]any{"groups": []map[string]any{{"name": "dashboards", "rules": rs}}}, "", " ")
	tests, _ = json.MarshalIndent(map[string]any{
		"rule_files":          []string{"dashboards.rules.json"},
		"evaluation_interval": "1m",
		"tests": []map[string]any{{
			"interval":        "1m",
			"input_series":    fixtures,
			"alert_rule_test": cases,
		}},
	}, "", " ")
	return rules, tests
}

// TestPromQLCheckCatchesARenamedSeries shows the check above can fail: a
// dashboard expression over a misspelt series, or over a label value the
// series never has (another series' value of the same label), makes
// promtool fail on that expression and no other.
func TestPromQLCheckCatchesARenamedSeries(t *testing.T) {
	promtool := testtool.Need(t, "promtool")
	queries := []promQuery{
		{where: "good", expr: `storcast_headroom_ratio{cluster="$cluster"}`},
		{where: "renamed", expr: `storcast_headroom_ratio_percent{cluster="$cluster"}`},
		{where: "good value", expr: `storcast_max_iops_bound{cluster="$cluster", bound="lower"}`},
		{where: "never exported: max IOPS has no mean bound", expr: `storcast_max_iops_bound{cluster="$cluster", bound="mean"}`},
		{where: "never exported: Inside-Out has no total", expr: `storcast_predicted_iops{cluster="$cluster", op="total"}`},
	}
	rules, tests := promtoolFiles(queries, fixtureSeries(t))
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "dashboards.rules.json"), rules, 0o644)
	_ = os.WriteFile(filepath.Join(dir, "dashboards.test.json"), tests, 0o644)
	out, err := exec.Command(promtool, "test", "rules", filepath.Join(dir, "dashboards.test.json")).CombinedOutput()
	if err == nil {
		t.Fatalf("promtool passed expressions over a series or label values that do not exist:\n%s", out)
	}
	for i, q := range queries {
		name := fmt.Sprintf("DashboardExpr%03d", i)
		if failed, good := strings.Contains(string(out), name), strings.HasPrefix(q.where, "good"); failed == good {
			t.Errorf("%s (%s): failed %v in promtool's output:\n%s", name, q.where, failed, out)
		}
	}
}

// pluginQueryFields reads the JSON names of grafana-plugin/pkg/models.Query
// and the query types from the plugin's source, so the dashboards follow the
// plugin's query model without importing its module.
func pluginQueryFields(t *testing.T) (fields map[string]bool, queryTypes map[string]bool) {
	t.Helper()
	const path = "../grafana-plugin/pkg/models/query.go"
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatalf("reading the plugin's query model: %v", err)
	}
	fields, queryTypes = map[string]bool{}, map[string]bool{}
	tagRE := regexp.MustCompile(`json:"([^",]+)`)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeSpec:
			if st, ok := n.Type.(*ast.StructType); ok && n.Name.Name == "Query" {
				for _, fl := range st.Fields.List {
					if fl.Tag != nil {
						if m := tagRE.FindStringSubmatch(fl.Tag.Value); m != nil {
							fields[m[1]] = true
						}
					}
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if strings.HasPrefix(name.Name, "Query") && i < len(n.Values) {
					if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						queryTypes[v] = true
					}
				}
			}
		}
		return true
	})
	if len(fields) == 0 || len(queryTypes) == 0 {
		t.Fatalf("no Query fields or query types found in %s", path)
	}
	return fields, queryTypes
}

// TestPluginTargetsFollowThePluginQueryModel checks every plugin target's
// keys and query type against the plugin's Query struct.
func TestPluginTargetsFollowThePluginQueryModel(t *testing.T) {
	if _, err := os.Stat("../grafana-plugin/pkg/models/query.go"); err != nil {
		t.Fatalf("the plugin's query model is gone (%v): plugin targets cannot be checked", err)
	}
	fields, types := pluginQueryFields(t)
	frame := map[string]bool{"refId": true, "datasource": true, "hide": true}
	n := 0
	for name, d := range All() {
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				if tg.Datasource.Type != PluginType {
					continue
				}
				n++
				b, _ := json.Marshal(tg)
				var m map[string]any
				_ = json.Unmarshal(b, &m)
				for k := range m {
					if !frame[k] && !fields[k] {
						t.Errorf("%s: panel %q: key %q is not a field of the plugin's Query", name, p.Title, k)
					}
				}
				if !types[tg.QueryType] {
					t.Errorf("%s: panel %q: query type %q is not one of the plugin's", name, p.Title, tg.QueryType)
				}
			}
		}
	}
	if n < 4 {
		t.Errorf("only %d plugin targets; want forecast, latency curve, capacity curve and what-if", n)
	}
}

func TestDashboardStructure(t *testing.T) {
	titles := map[string]bool{}
	for name, d := range All() {
		titles[d.Title] = true
		if !strings.HasPrefix(d.Title, "Storcast / ") || d.UID == "" || len(d.UID) > 40 {
			t.Errorf("%s: title %q / uid %q", name, d.Title, d.UID)
		}
		ids := map[int]bool{}
		type cell struct{ x, y int }
		used := map[cell]string{}
		for _, p := range d.Panels {
			if ids[p.ID] {
				t.Errorf("%s: panel id %d twice", name, p.ID)
			}
			ids[p.ID] = true
			g := p.GridPos
			if g.X < 0 || g.W <= 0 || g.X+g.W > 24 || g.H <= 0 {
				t.Errorf("%s: panel %q outside the 24-column grid: %+v", name, p.Title, g)
			}
			for x := g.X; x < g.X+g.W; x++ {
				for y := g.Y; y < g.Y+g.H; y++ {
					if other, ok := used[cell{x, y}]; ok {
						t.Errorf("%s: panels %q and %q overlap at (%d,%d)", name, other, p.Title, x, y)
					}
					used[cell{x, y}] = p.Title
				}
			}
			if p.Type == "row" {
				continue
			}
			if p.Description == "" {
				t.Errorf("%s: panel %q has no description", name, p.Title)
			}
			for _, tg := range p.Targets {
				if tg.Datasource == nil || !reflect.DeepEqual(*tg.Datasource, *p.Datasource) {
					t.Errorf("%s: panel %q: target %s's data source differs from the panel's", name, p.Title, tg.RefID)
				}
				if uid := tg.Datasource.UID; uid != promVar && uid != pluginVar {
					t.Errorf("%s: panel %q: data source uid %q is not a dashboard variable", name, p.Title, uid)
				}
			}
		}
	}
	for _, want := range []string{"Storcast / Cluster headroom", "Storcast / Model quality"} {
		if !titles[want] {
			t.Errorf("no dashboard %q", want)
		}
	}
}

// panelTarget is one Prometheus target of a panel in the committed JSON.
type panelTarget struct {
	where, panel, expr, legend string
}

// panelTargets returns every Prometheus target of every panel (not the
// variables) of the committed dashboards.
func panelTargets(t *testing.T) []panelTarget {
	t.Helper()
	var out []panelTarget
	dashboards := loadJSON(t)
	for _, n := range slices.Sorted(maps.Keys(dashboards)) {
		panels, _ := dashboards[n]["panels"].([]any)
		for _, p := range panels {
			pm, _ := p.(map[string]any)
			title, _ := pm["title"].(string)
			targets, _ := pm["targets"].([]any)
			for _, tg := range targets {
				tm, _ := tg.(map[string]any)
				if ds, _ := tm["datasource"].(map[string]any); ds["type"] != PrometheusType {
					continue
				}
				expr, _ := tm["expr"].(string)
				legend, _ := tm["legendFormat"].(string)
				out = append(out, panelTarget{where: fmt.Sprintf("%s: panel %q, refId %v", n, title, tm["refId"]),
					panel: n + "/" + title, expr: expr, legend: legend})
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d Prometheus targets found; the extraction is broken", len(out))
	}
	return out
}

// fixture is one input series: a selector and its constant value.
type fixture struct {
	sel   string
	value int
}

// numbered gives the i-th selector the value i+1, as fixtureSeries does.
func numbered(sels []string) []fixture {
	out := make([]fixture, len(sels))
	for i, s := range sels {
		out[i] = fixture{s, i + 1}
	}
	return out
}

// evaluator loads the fixtures, constant over an hour, into a PromQL test
// storage and returns an instant evaluation at 30m of a dashboard
// expression (its Grafana variables substituted).
func evaluator(t *testing.T, fs []fixture) func(expr string) promql.Vector {
	t.Helper()
	var b strings.Builder
	b.WriteString("load 1m\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %dx60\n", f.sel, f.value)
	}
	st := promqltest.LoadedStorage(t, b.String())
	t.Cleanup(func() { _ = st.Close() })
	engine := promqltest.NewTestEngine(t, false, 5*time.Minute, 10_000_000)
	return func(expr string) promql.Vector {
		q, err := engine.NewInstantQuery(context.Background(), st, nil, substitute(expr), time.Unix(0, 0).Add(30*time.Minute))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		defer q.Close()
		v, err := q.Exec(context.Background()).Vector()
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
}

// TestPromQLDoesNotAddUpHAReplicas evaluates every panel expression over
// one storcast and over two HA replicas of it scraped by one Prometheus
// (the same series and values under instance r1 and r2; docs/operations.md,
// Shards and replicas): each replica's line must read what the one
// storcast's does. An aggregation that drops instance, like the Inside-Out
// line's sum by (cluster), doubled the value.
func TestPromQLDoesNotAddUpHAReplicas(t *testing.T) {
	one := numbered(series.Fixtures(series.Exported(), fixtureCluster, `job="storcast",instance="r1"`))
	two := slices.Clone(one)
	for _, f := range one {
		two = append(two, fixture{strings.Replace(f.sel, `instance="r1"`, `instance="r2"`, 1), f.value})
	}
	evalOne, evalTwo := evaluator(t, one), evaluator(t, two)
	key := func(s promql.Sample) string {
		return labels.NewBuilder(s.Metric).Del(model.MetricNameLabel, "instance").Labels().String()
	}
	n := 0
	for _, tg := range panelTargets(t) {
		want := map[string]float64{}
		for _, s := range evalOne(tg.expr) {
			want[key(s)] = s.F
		}
		for _, s := range evalTwo(tg.expr) {
			n++
			if w, ok := want[key(s)]; !ok || w != s.F {
				t.Errorf("%s: with two HA replicas %s reads %g, with one %g (found: %v): the replicas are added up\n  %s",
					tg.where, s.Metric, s.F, w, ok, tg.expr)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d samples compared; the fixtures or the extraction are broken", n)
	}
}

// TestPromQLMaxIOPSPanelsShowTheLowerBound: on a cluster whose history never
// saturated (no calibration file), storcast exports no max IOPS, only
// storcast_max_iops_bound{bound="lower"} (exporter/collector/capacity.go).
// Every panel that shows max IOPS must then still draw something, and
// name it a lower bound in its legend: the panels read No data.
func TestPromQLMaxIOPSPanelsShowTheLowerBound(t *testing.T) {
	var never []string
	for _, f := range series.Fixtures(series.Exported(), fixtureCluster, `job="storcast",instance="storcast:9595"`) {
		if strings.HasPrefix(f, "storcast_max_iops{") || (strings.HasPrefix(f, "storcast_max_iops_bound{") && !strings.Contains(f, `bound="lower"`)) {
			continue
		}
		never = append(never, f)
	}
	eval := evaluator(t, numbered(never))
	maxIOPS := regexp.MustCompile(`\bstorcast_max_iops(_bound)?\{`)
	legend := regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`)
	shown := map[string][]string{} // panel -> legends drawn
	for _, tg := range panelTargets(t) {
		if !maxIOPS.MatchString(tg.expr) {
			continue
		}
		if _, ok := shown[tg.panel]; !ok {
			shown[tg.panel] = nil
		}
		for _, s := range eval(tg.expr) {
			shown[tg.panel] = append(shown[tg.panel], legend.ReplaceAllStringFunc(tg.legend, func(m string) string {
				return s.Metric.Get(legend.FindStringSubmatch(m)[1])
			}))
		}
	}
	if len(shown) < 2 {
		t.Fatalf("only %d panels show max IOPS; want the stat and the IOPS panel at least", len(shown))
	}
	for panel, legends := range shown {
		ok := false
		for _, l := range legends {
			ok = ok || strings.Contains(l, "lower bound")
		}
		if !ok {
			t.Errorf("%s: on a cluster that never saturated its max IOPS targets draw %q, nothing named a lower bound", panel, legends)
		}
	}
}

// TestEverySelectorFollowsJob: every series a dashboard reads from
// Prometheus is selected by the $job variable (but the variable's own
// query, which lists the jobs), so that two storcast deployments (regions,
// environments) are not drawn as one.
func TestEverySelectorFollowsJob(t *testing.T) {
	intervals := strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")
	dashboards := loadJSON(t)
	n := 0
	for _, name := range slices.Sorted(maps.Keys(dashboards)) {
		for _, q := range extractPromQL(name, dashboards[name]) {
			if strings.HasSuffix(q.where, "variable job") {
				continue
			}
			expr, err := promparser.NewParser(promparser.Options{}).ParseExpr(intervals.Replace(q.expr))
			if err != nil {
				t.Errorf("%s: %v", q.where, err)
				continue
			}
			for _, vs := range promparser.ExtractSelectors(expr) {
				n++
				if !slices.ContainsFunc(vs, func(m *labels.Matcher) bool {
					return m.Name == "job" && m.Type == labels.MatchRegexp && m.Value == "$job"
				}) {
					t.Errorf("%s: a selector without job=~\"$job\": %v in %s", q.where, vs, q.expr)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d selectors checked; the extraction is broken", n)
	}
}

// panelByTitle returns the panel of d with that title, failing without one.
func panelByTitle(t *testing.T, d Dashboard, title string) *Panel {
	t.Helper()
	for _, p := range d.Panels {
		if p.Title == title {
			return p
		}
	}
	t.Fatalf("%s has no panel %q", d.Title, title)
	return nil
}

// fieldConfig is what Grafana applies to the field named name: the panel's
// defaults, then each override whose matcher (byName, byRegexp) matches it.
// Keys are the override properties' ids ("thresholds",
// "custom.thresholdsStyle").
func fieldConfig(t *testing.T, p *Panel, name string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, v := range p.FieldConfig.Defaults {
		if k == "custom" {
			for ck, cv := range v.(map[string]any) {
				out["custom."+ck] = cv
			}
			continue
		}
		out[k] = v
	}
	for _, o := range p.FieldConfig.Overrides {
		opt, _ := o.Matcher.Options.(string)
		switch o.Matcher.ID {
		case "byName":
			if opt != name {
				continue
			}
		case "byRegexp":
			if !regexp.MustCompile("^(?:" + opt + ")$").MatchString(name) {
				continue
			}
		default:
			t.Fatalf("panel %q: matcher %q not understood by this test", p.Title, o.Matcher.ID)
		}
		for _, prop := range o.Properties {
			out[prop.ID] = prop.Value
		}
	}
	return out
}

// TestHeadroomThresholdsOnlyOnHeadroom: the headroom's alert thresholds
// are drawn on the headroom series, none on utilization (as defaults they
// coloured a utilization of 0.97 green).
func TestHeadroomThresholdsOnlyOnHeadroom(t *testing.T) {
	p := panelByTitle(t, ClusterHeadroom(), "Headroom and utilization")
	mode := func(fc map[string]any) any {
		style, _ := fc["custom.thresholdsStyle"].(map[string]any)
		return style["mode"]
	}
	if u := fieldConfig(t, p, "utilization"); !(mode(u) == nil || mode(u) == "off") || u["thresholds"] != nil {
		t.Errorf("utilization gets the threshold style %v and thresholds %v; want none", mode(u), u["thresholds"])
	}
	h := fieldConfig(t, p, "headroom")
	if mode(h) != "line+area" {
		t.Errorf("headroom's threshold style %v, want line+area", mode(h))
	}
	th := alerts.DefaultThresholds()
	if want := steps("red", th.Headroom.CriticalRatio, "orange", th.Headroom.WarningRatio, "green"); !reflect.DeepEqual(h["thresholds"], want) {
		t.Errorf("headroom's thresholds %v, want the alerts' %v", h["thresholds"], want)
	}
}

// TestAdvisorAccuracyAtItsOwnBar: the model-quality panels draw the
// advisor's accuracy against its own StorcastModelInaccurate bar (a skill
// score: a healthy advisor at 0.45 was painted red under the others' 0.7),
// every other model's against theirs.
func TestAdvisorAccuracyAtItsOwnBar(t *testing.T) {
	th := alerts.DefaultThresholds()
	for _, title := range []string{"Accuracy per model and target", "Accuracy now"} {
		p := panelByTitle(t, ModelQuality(), title)
		for name, bar := range map[string]float64{
			"ceph-a advisor qos-cap":   th.Model.MinAdvisorAccuracyRatio,
			"ceph-a mlisp latency":     th.Model.MinAccuracyRatio,
			"ceph-a insideout iops":    th.Model.MinAccuracyRatio,
			"advisor queueing latency": th.Model.MinAccuracyRatio, // a cluster named advisor
		} {
			if got, want := fieldConfig(t, p, name)["thresholds"], steps("red", bar, "green"); !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s: thresholds %v, want %v", title, name, got, want)
			}
		}
	}
}

// TestHeadroomDashboardShowsState: the headroom dashboard's panels read
// source health, staleness and warm-up for the cluster, and the state panel
// names the worst of them.
func TestHeadroomDashboardShowsState(t *testing.T) {
	d := ClusterHeadroom()
	read := map[string]bool{}
	for _, tg := range d.Prometheus() {
		expr, err := promparser.NewParser(promparser.Options{}).ParseExpr(substitute(tg.Expr))
		if err != nil {
			t.Fatalf("%s: %v", tg.Expr, err)
		}
		for _, sel := range promparser.ExtractSelectors(expr) {
			for _, m := range sel {
				if m.Name == model.MetricNameLabel {
					read[m.Value] = true
				}
			}
		}
	}
	for _, name := range []string{"storcast_source_up", "storcast_model_stale", "storcast_warming_up"} {
		if !read[name] {
			t.Errorf("no panel of %q reads %s", d.Title, name)
		}
	}

	p := panelByTitle(t, d, "State")
	mappings, _ := p.FieldConfig.Defaults["mappings"].([]any)
	if len(p.Targets) != 1 || len(mappings) != 1 {
		t.Fatalf("state panel: %d targets, %d mappings; want one of each", len(p.Targets), len(mappings))
	}
	texts := mappings[0].(map[string]any)["options"].(map[string]any)
	const sel = `{job="storcast",instance="r1",cluster="ceph-prod"`
	for _, tc := range []struct {
		name     string
		fixtures []fixture
		want     string
	}{
		{"source down", []fixture{{"storcast_source_up" + sel + "}", 0}, {"storcast_model_stale" + sel + `,model="trend"}`, 1}, {"storcast_warming_up" + sel + "}", 1}}, "source down"},
		{"a model stale", []fixture{{"storcast_source_up" + sel + "}", 1}, {"storcast_model_stale" + sel + `,model="trend"}`, 1},
			{"storcast_model_stale" + sel + `,model="conservation"}`, 0}, {"storcast_warming_up" + sel + "}", 1}}, "stale"},
		{"warming up", []fixture{{"storcast_source_up" + sel + "}", 1}, {"storcast_model_stale" + sel + `,model="trend"}`, 0}, {"storcast_warming_up" + sel + "}", 1}}, "warming up"},
		{"current", []fixture{{"storcast_source_up" + sel + "}", 1}, {"storcast_model_stale" + sel + `,model="trend"}`, 0}, {"storcast_warming_up" + sel + "}", 0}}, "ok"},
	} {
		v := evaluator(t, tc.fixtures)(p.Targets[0].Expr)
		if len(v) != 1 {
			t.Errorf("%s: %d samples, want 1: %v", tc.name, len(v), v)
			continue
		}
		text := ""
		if m, ok := texts[strconv.FormatFloat(v[0].F, 'f', -1, 64)].(map[string]any); ok {
			text, _ = m["text"].(string)
		}
		if text != tc.want {
			t.Errorf("%s: the state panel reads %g, shown %q; want %q", tc.name, v[0].F, text, tc.want)
		}
	}
}
