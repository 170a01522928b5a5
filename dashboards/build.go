package dashboards

import (
	"fmt"
	"time"

	"github.com/storcast/storcast/alerts"
)

var (
	promDS   = &DatasourceRef{Type: PrometheusType, UID: promVar}
	pluginDS = &DatasourceRef{Type: PluginType, UID: pluginVar}
)

// layout places panels left to right on Grafana's 24-column grid.
type layout struct {
	x, y, rowH, nextID int
	panels             []*Panel
}

func (l *layout) add(w, h int, p *Panel) *Panel {
	if l.x+w > 24 {
		l.x, l.y, l.rowH = 0, l.y+l.rowH, 0
	}
	l.nextID++
	p.ID = l.nextID
	p.GridPos = GridPos{H: h, W: w, X: l.x, Y: l.y}
	l.x += w
	l.rowH = max(l.rowH, h)
	l.panels = append(l.panels, p)
	return p
}

// row starts a new row with a title.
func (l *layout) row(title string) {
	if l.x > 0 {
		l.x, l.y, l.rowH = 0, l.y+l.rowH, 0
	}
	collapsed := false
	l.add(24, 1, &Panel{Type: "row", Title: title, Collapsed: &collapsed, Options: map[string]any{},
		FieldConfig: FieldConfig{Defaults: map[string]any{}, Overrides: []Override{}}})
	l.x, l.y, l.rowH = 0, l.y+1, 0
}

// prom is a Prometheus target.
func prom(ref, expr, legend string) Target {
	return Target{RefID: ref, Datasource: promDS, Expr: expr, LegendFormat: legend, Range: true}
}

// promInstant is an instant Prometheus target (stat panels, tables).
func promInstant(ref, expr, legend string) Target {
	return Target{RefID: ref, Datasource: promDS, Expr: expr, LegendFormat: legend, Instant: true}
}

func defaults(unit string, extra map[string]any) map[string]any {
	d := map[string]any{"unit": unit}
	for k, v := range extra {
		d[k] = v
	}
	return d
}

// steps is a threshold list: base colour, then value/colour pairs.
func steps(base string, pairs ...any) map[string]any {
	s := []map[string]any{{"color": base, "value": nil}}
	for i := 0; i+1 < len(pairs); i += 2 {
		s = append(s, map[string]any{"value": pairs[i], "color": pairs[i+1]})
	}
	return map[string]any{"mode": "absolute", "steps": s}
}

func stat(title, desc, unit string, thresholds map[string]any, targets ...Target) *Panel {
	d := defaults(unit, map[string]any{"color": map[string]any{"mode": "thresholds"}})
	if thresholds != nil {
		d["thresholds"] = thresholds
	} else {
		d["thresholds"] = steps("blue")
	}
	return &Panel{Type: "stat", Title: title, Description: desc, Datasource: targets[0].Datasource, Targets: targets,
		FieldConfig: FieldConfig{Defaults: d, Overrides: []Override{}},
		Options: map[string]any{
			"reduceOptions": map[string]any{"calcs": []string{"lastNotNull"}, "fields": "", "values": false},
			"colorMode":     "value", "graphMode": "area", "justifyMode": "auto", "textMode": "auto",
			"orientation": "auto",
		}}
}

func timeseries(title, desc, unit string, custom map[string]any, targets ...Target) *Panel {
	c := map[string]any{"drawStyle": "line", "lineWidth": 2, "fillOpacity": 0, "showPoints": "never", "spanNulls": false}
	for k, v := range custom {
		c[k] = v
	}
	return &Panel{Type: "timeseries", Title: title, Description: desc, Datasource: targets[0].Datasource, Targets: targets,
		FieldConfig: FieldConfig{Defaults: defaults(unit, map[string]any{"custom": c, "color": map[string]any{"mode": "palette-classic"}}), Overrides: []Override{}},
		Options: map[string]any{
			"legend":  map[string]any{"displayMode": "list", "placement": "bottom", "showLegend": true},
			"tooltip": map[string]any{"mode": "multi", "sort": "none"},
		}}
}

// stateTimeline shows a 0/1 series as states over time: value 0 is named
// zero and coloured zeroColour, value 1 likewise.
func stateTimeline(title, desc string, target Target, zero, zeroColour, one, oneColour string) *Panel {
	return &Panel{Type: "state-timeline", Title: title, Description: desc, Datasource: promDS, Targets: []Target{target},
		FieldConfig: FieldConfig{Defaults: map[string]any{
			"color":      map[string]any{"mode": "thresholds"},
			"thresholds": steps(zeroColour, 1, oneColour),
			"mappings": []any{map[string]any{"type": "value", "options": map[string]any{
				"0": map[string]any{"text": zero, "color": zeroColour}, "1": map[string]any{"text": one, "color": oneColour}}}},
		}, Overrides: []Override{}},
		Options: map[string]any{"showValue": "never", "mergeValues": true, "rowHeight": 0.9, "alignValue": "left",
			"legend": map[string]any{"displayMode": "list", "placement": "bottom", "showLegend": false}},
	}
}

// band makes the series named lower and upper a shaded 95% band: upper is
// filled down to lower, both without lines.
func band(p *Panel, lower, upper string) {
	hide := func(name string) Override {
		return Override{Matcher: Matcher{ID: "byName", Options: name}, Properties: []Property{
			{ID: "custom.lineWidth", Value: 0},
			{ID: "custom.hideFrom", Value: map[string]any{"legend": true, "tooltip": false, "viz": false}},
		}}
	}
	up := hide(upper)
	up.Properties = append(up.Properties,
		Property{ID: "custom.fillBelowTo", Value: lower},
		Property{ID: "custom.fillOpacity", Value: 20})
	p.FieldConfig.Overrides = append(p.FieldConfig.Overrides, up, hide(lower))
}

// colour fixes the colour of the series name.
func colour(p *Panel, name, c string, extra ...Property) {
	props := append([]Property{{ID: "color", Value: map[string]any{"mode": "fixed", "fixedColor": c}}}, extra...)
	p.FieldConfig.Overrides = append(p.FieldConfig.Overrides, Override{Matcher: Matcher{ID: "byName", Options: name}, Properties: props})
}

// bandKeepingLower draws the series named upper as a band filled down to
// the one named lower, in one colour: the lower keeps a thin line and its
// legend entry (it may be drawn alone), the upper is only the fill's edge.
func bandKeepingLower(p *Panel, lower, upper, c string, opacity int) {
	colour(p, lower, c, Property{ID: "custom.lineWidth", Value: 1})
	colour(p, upper, c,
		Property{ID: "custom.lineWidth", Value: 0},
		Property{ID: "custom.hideFrom", Value: map[string]any{"legend": true, "tooltip": false, "viz": false}},
		Property{ID: "custom.fillBelowTo", Value: lower},
		Property{ID: "custom.fillOpacity", Value: opacity})
}

func dashed() Property {
	return Property{ID: "custom.lineStyle", Value: map[string]any{"fill": "dash", "dash": []int{10, 10}}}
}

func datasourceVar(name, label, typ string) Variable {
	return Variable{Name: name, Label: label, Type: "datasource", Query: typ, Current: map[string]any{}, Refresh: 1}
}

// jobVarQuery lists the scrape jobs of storcast (one per deployment: a
// fleet may run one per region or environment); the selectors match the
// chosen ones, all by default.
const jobVarQuery = "label_values(storcast_source_up, job)"

func jobVar() Variable {
	return Variable{Name: "job", Label: "Job", Type: "query", Datasource: promDS, Definition: jobVarQuery,
		Query: map[string]any{"query": jobVarQuery, "refId": "job"}, Refresh: 2, Sort: 1, Multi: true, IncludeAll: true,
		Current: map[string]any{"selected": true, "text": []string{"All"}, "value": []string{"$__all"}}}
}

// clusterVarQuery lists every cluster the chosen storcast jobs serve:
// storcast_source_up is exported for each from its first refresh, whatever
// its models. A model's series would hide clusters without it (no headroom
// without a capacity at the mix: a new deployment whose history never
// saturated).
const clusterVarQuery = `label_values(storcast_source_up{job=~"$job"}, cluster)`

func clusterVar(multi bool) Variable {
	v := Variable{Name: "cluster", Label: "Cluster", Type: "query", Datasource: promDS, Definition: clusterVarQuery,
		Query: map[string]any{"query": clusterVarQuery, "refId": "cluster"}, Refresh: 2, Sort: 1, Current: map[string]any{}}
	if multi {
		v.Multi, v.IncludeAll = true, true
	}
	return v
}

func textVar(name, label, value, desc string) Variable {
	return Variable{Name: name, Label: label, Type: "textbox", Query: value, Description: desc,
		Current: map[string]any{"text": value, "value": value}}
}

func base(uid, title, desc string) Dashboard {
	return Dashboard{
		UID: uid, Title: title, Description: desc, Tags: []string{"storcast"}, Editable: true, GraphTooltip: 1,
		SchemaVersion: 39, Version: 1, Refresh: "1m", Timezone: "browser",
		Annotations: map[string]any{"list": []any{}},
		Links:       []Link{{Title: "Storcast", Type: "dashboards", Tags: []string{"storcast"}, AsDropdown: true, IncludeVars: true, KeepTime: true}},
	}
}

// ClusterHeadroom is "Storcast / Cluster headroom".
func ClusterHeadroom() Dashboard {
	th := alerts.DefaultThresholds()
	d := base("storcast-cluster-headroom", "Storcast / Cluster headroom",
		"How many IOPS the cluster can serve at today's mix, how much is left, when demand gets there, and latency against load.")
	d.Time = TimeRange{From: "now-7d", To: "now+2d"}
	d.Templating.List = []Variable{
		datasourceVar("datasource", "Prometheus", PrometheusType),
		datasourceVar("storcast", "Storcast", PluginType),
		jobVar(),
		clusterVar(false),
		textVar("read_ratio", "What-if read ratio", "", "Read share of ops for the what-if table, 0..1 or 70%; empty keeps today's."),
		textVar("extra_iops", "What-if extra IOPS", "0", "IOPS added to today's for the what-if table."),
		textVar("hosts_added", "What-if hosts added", "0", "Hosts added to the cluster for the what-if table."),
	}
	c := `job=~"$job", cluster="$cluster"`
	headroom := steps("red", th.Headroom.CriticalRatio, "orange", th.Headroom.WarningRatio, "green")

	var l layout
	l.row("Now")
	l.add(3, 5, forecastState(c))
	l.add(3, 5, stat("IOPS now", "Observed IOPS (reads + writes) of the cluster.", "iops", nil,
		promInstant("A", "storcast_observed_iops{"+c+"}", "")))
	// A cluster whose history never saturated (no calibration file) has no
	// max IOPS, only the lower bound its history proves: shown, named so.
	maxNow := l.add(4, 5, stat("Max IOPS at current mix",
		"The most IOPS the cluster can serve at today's read ratio and IO sizes (conservation model). "+
			"Without a calibration, on a cluster whose history never saturated, only a lower bound is known: it is shown as \"at least\".", "iops", nil,
		promInstant("A", maxIOPSOrLowerBound(c), "{{shown}}")))
	maxNow.Options["textMode"] = "value_and_name"
	hp := l.add(4, 5, stat("Headroom", fmt.Sprintf("1 - IOPS now / max IOPS. Orange below %g, red below %g (the alert thresholds).",
		th.Headroom.WarningRatio, th.Headroom.CriticalRatio), "percentunit", headroom,
		promInstant("A", "storcast_headroom_ratio{"+c+"}", "")))
	hp.Type = "gauge"
	hp.FieldConfig.Defaults["min"], hp.FieldConfig.Defaults["max"] = 0, 1
	hp.Options = map[string]any{"reduceOptions": map[string]any{"calcs": []string{"lastNotNull"}, "fields": "", "values": false},
		"showThresholdMarkers": true, "showThresholdLabels": false, "orientation": "auto"}
	eta := l.add(4, 5, stat("Saturation ETA", "When the demand trend's daily peaks meet each limit; ∞ when not within a year. Red within the alert horizon.", "s",
		steps("red", time.Duration(th.Saturation.Horizon).Seconds(), "green"),
		promInstant("A", "storcast_saturation_eta_seconds{"+c+"}", "{{limit}}")))
	eta.Options["graphMode"] = "none"
	l.add(3, 5, stat("Knee IOPS", "IOPS where the predicted latency (mean; lower/upper bound) crosses the SLO.", "iops", nil,
		promInstant("A", `storcast_latency_knee_iops{`+c+`}`, "{{bound}}")))
	mix := l.add(3, 5, stat("Current mix", "Read share of ops and op-weighted mean IO size.", "none", nil,
		promInstant("A", "storcast_observed_read_ratio{"+c+"}", "read ratio"),
		promInstant("B", "storcast_observed_io_size_bytes{"+c+"}", "IO size")))
	mix.FieldConfig.Overrides = append(mix.FieldConfig.Overrides,
		Override{Matcher: Matcher{ID: "byName", Options: "read ratio"}, Properties: []Property{{ID: "unit", Value: "percentunit"}}},
		Override{Matcher: Matcher{ID: "byName", Options: "IO size"}, Properties: []Property{{ID: "unit", Value: "bytes"}}})

	l.row("Capacity")
	iops := l.add(12, 9, timeseries("IOPS now vs max IOPS at the current mix",
		"Observed IOPS, max IOPS at each moment's mix (conservation) with its 95% band, and the IOPS the hosts' low-level metrics imply (Inside-Out). "+
			"On a cluster whose history never saturated (no calibration) only the lower bound the history proves is drawn: the max is at least that.", "iops", nil,
		prom("A", "storcast_observed_iops{"+c+"}", "observed"),
		prom("B", `storcast_max_iops{`+c+`, op="total"}`, "max at current mix"),
		// Summed over op only: two HA replicas scraped by one Prometheus
		// are two instances, which "sum by (cluster)" added up.
		prom("C", `sum without (op) (storcast_predicted_iops{`+c+`})`, "Inside-Out"),
		prom("D", `storcast_max_iops_bound{`+c+`, bound="lower"}`, "max lower bound"),
		prom("E", `storcast_max_iops_bound{`+c+`, bound="upper"}`, "max upper bound")))
	colour(iops, "max at current mix", "red", dashed())
	colour(iops, "observed", "green")
	// A band as the knee's (upper filled down to lower), but the lower
	// bound keeps a thin line and its legend: alone (a history that never
	// saturated) it is the only max IOPS there is.
	bandKeepingLower(iops, "max lower bound", "max upper bound", "red", 20)
	hr := l.add(12, 9, timeseries("Headroom and utilization", fmt.Sprintf("Headroom = 1 - utilization, both at the current mix. "+
		"The areas are the headroom's alert thresholds (orange below %g, red below %g); they do not apply to utilization.",
		th.Headroom.WarningRatio, th.Headroom.CriticalRatio), "percentunit",
		// A soft 0..1 axis: utilization past 1 and headroom below 0 (a
		// saturated cluster) are drawn, not clipped.
		map[string]any{"thresholdsStyle": map[string]any{"mode": "off"}, "axisSoftMin": 0, "axisSoftMax": 1},
		prom("A", "storcast_headroom_ratio{"+c+"}", "headroom"),
		prom("B", "storcast_utilization_ratio{"+c+"}", "utilization")))
	// On the headroom only: as panel defaults the areas coloured the
	// utilization line too, a near-saturated 0.97 sitting in green.
	hr.FieldConfig.Overrides = append(hr.FieldConfig.Overrides, Override{Matcher: Matcher{ID: "byName", Options: "headroom"}, Properties: []Property{
		{ID: "thresholds", Value: headroom},
		{ID: "custom.thresholdsStyle", Value: map[string]any{"mode": "line+area"}},
	}})

	// No horizon: the panel draws only within the dashboard's range, whose
	// end (now+2d) already lies in the future.
	fc := l.add(12, 9, timeseries("IOPS forecast", "Demand trend of observed IOPS into the future (to the dashboard's end) with its 95% band, against forecast max IOPS (storcast plugin).", "iops",
		nil,
		Target{RefID: "A", Datasource: pluginDS, QueryType: "forecast", Cluster: "$cluster", Series: "iops"},
		Target{RefID: "B", Datasource: pluginDS, QueryType: "forecast", Cluster: "$cluster", Series: "max_iops"}))
	fc.FieldConfig.Defaults["custom"].(map[string]any)["fillOpacity"] = 10
	etaOverTime := l.add(12, 9, timeseries("Saturation ETA over time", "Seconds until the demand trend meets max IOPS and the latency SLO, with its 95% band "+
		"(demand's, the forecast mix's and the calibration's uncertainty; its late end is often the next day's peak). A falling line is growth; gaps are +Inf (no growth).", "s",
		nil, prom("A", "storcast_saturation_eta_seconds{"+c+"} < +Inf", "{{limit}}"),
		prom("B", `storcast_saturation_eta_seconds_bound{`+c+`, bound="lower"} < +Inf`, "{{limit}} earliest"),
		prom("C", `storcast_saturation_eta_seconds_bound{`+c+`, bound="upper"} < +Inf`, "{{limit}} latest")))
	for _, lc := range [][2]string{{"max_iops", "red"}, {"latency_slo", "orange"}} {
		limit, fixed := lc[0], lc[1]
		colour(etaOverTime, limit, fixed)
		// The late end is often +Inf (filtered out): the early end keeps
		// its line.
		bandKeepingLower(etaOverTime, limit+" earliest", limit+" latest", fixed, 15)
	}

	capCurve := l.add(12, 10, &Panel{Type: "trend", Title: "Capacity curve over read ratio",
		Description: "Max IOPS as a function of the read share of ops, at today's IO size (storcast plugin).",
		Datasource:  pluginDS,
		Targets:     []Target{{RefID: "A", Datasource: pluginDS, QueryType: "capacityCurve", Cluster: "$cluster", Points: "21"}},
		FieldConfig: FieldConfig{Defaults: defaults("iops", map[string]any{"custom": map[string]any{"drawStyle": "line", "lineWidth": 2, "showPoints": "auto"}}), Overrides: []Override{}},
		Options:     map[string]any{"xField": "readRatio", "legend": map[string]any{"displayMode": "list", "placement": "bottom", "showLegend": true}, "tooltip": map[string]any{"mode": "multi", "sort": "none"}},
	})
	capCurve.FieldConfig.Overrides = append(capCurve.FieldConfig.Overrides,
		Override{Matcher: Matcher{ID: "byName", Options: "readRatio"}, Properties: []Property{{ID: "unit", Value: "percentunit"}}})
	l.add(12, 10, &Panel{Type: "table", Title: "What-if",
		Description: "Max IOPS, utilization and latency with its band for the workload in the what-if variables (read ratio, extra IOPS, hosts added) (storcast plugin).",
		Datasource:  pluginDS,
		Targets: []Target{{RefID: "A", Datasource: pluginDS, QueryType: "whatIf", Cluster: "$cluster",
			ReadRatio: "$read_ratio", ExtraIOPS: "$extra_iops", HostsAdded: "$hosts_added"}},
		FieldConfig: FieldConfig{Defaults: map[string]any{}, Overrides: []Override{}},
		Options:     map[string]any{"showHeader": true, "cellHeight": "sm"},
	})

	l.row("Latency")
	// The plugin marks its band fields itself (fillBelowTo): no overrides here.
	l.add(12, 10, &Panel{Type: "trend", Title: "Latency forecast against load",
		Description: "Predicted latency (mean, 95% band) as a function of IOPS, with the observed windows (storcast plugin). The knee is where it crosses the SLO.",
		Datasource:  pluginDS,
		Targets:     []Target{{RefID: "A", Datasource: pluginDS, QueryType: "latencyCurve", Cluster: "$cluster"}},
		FieldConfig: FieldConfig{Defaults: defaults("s", map[string]any{"custom": map[string]any{"drawStyle": "line", "lineWidth": 2, "showPoints": "never", "fillOpacity": 0}}), Overrides: []Override{}},
		Options:     map[string]any{"xField": "iops", "legend": map[string]any{"displayMode": "list", "placement": "bottom", "showLegend": true}, "tooltip": map[string]any{"mode": "multi", "sort": "none"}},
	})
	knee := l.add(12, 10, timeseries("Knee against today's load",
		"IOPS at which the predicted latency crosses the SLO (mean and band) against observed IOPS and 1.25x observed IOPS (the +25% alert).", "iops", nil,
		prom("A", `storcast_latency_knee_iops{`+c+`, bound="mean"}`, "knee"),
		prom("B", `storcast_latency_knee_iops{`+c+`, bound="lower"}`, "knee lower"),
		prom("C", `storcast_latency_knee_iops{`+c+`, bound="upper"}`, "knee upper"),
		prom("D", "storcast_observed_iops{"+c+"}", "today's load"),
		prom("E", fmt.Sprintf("%g * storcast_observed_iops{%s}", th.Latency.LoadFactor, c), fmt.Sprintf("%gx today's load", th.Latency.LoadFactor))))
	band(knee, "knee lower", "knee upper")
	colour(knee, "knee", "orange")
	colour(knee, "today's load", "green")
	colour(knee, fmt.Sprintf("%gx today's load", th.Latency.LoadFactor), "green", dashed())
	pl := l.add(12, 9, timeseries("Predicted latency by load factor",
		"Predicted mean latency at multiples of today's load (load_factor), as exported by storcast, against the latency SLO. A load factor at or past capacity is not drawn: the cluster saturates there (storcast exports +Inf).", "s", nil,
		prom("A", `storcast_predicted_latency_seconds{`+c+`, bound="mean"} < +Inf`, "x{{load_factor}}"),
		prom("B", "storcast_latency_slo_seconds{"+c+"}", "SLO")))
	colour(pl, "SLO", "red", dashed())
	l.add(12, 9, timeseries("Observed mix", "Read share of ops (left) and op-weighted mean IO size (right).", "percentunit", nil,
		prom("A", "storcast_observed_read_ratio{"+c+"}", "read ratio"),
		prom("B", "storcast_observed_io_size_bytes{"+c+"}", "IO size"))).FieldConfig.Overrides = []Override{
		{Matcher: Matcher{ID: "byName", Options: "IO size"}, Properties: []Property{{ID: "unit", Value: "bytes"}, {ID: "custom.axisPlacement", Value: "right"}}},
	}
	l.add(24, 8, timeseries("Inside-Out: IOPS and throughput implied by the hosts' metrics",
		"End-to-end IOPS and throughput that the storage hosts' low-level metrics imply, per op.", "Bps", nil,
		prom("A", "storcast_predicted_throughput_bytes{"+c+"}", "{{op}} throughput"),
		prom("B", "storcast_predicted_iops{"+c+"}", "{{op}} IOPS"))).FieldConfig.Overrides = []Override{
		{Matcher: Matcher{ID: "byRegexp", Options: ".* IOPS"}, Properties: []Property{{ID: "unit", Value: "iops"}, {ID: "custom.axisPlacement", Value: "right"}}},
	}
	d.Panels = l.panels
	return d
}

// ModelQuality is "Storcast / Model quality".
func ModelQuality() Dashboard {
	th := alerts.DefaultThresholds()
	d := base("storcast-model-quality", "Storcast / Model quality",
		"Backtest accuracy of storcast's models per target, fit durations, training samples, staleness and source health.")
	d.Time = TimeRange{From: "now-7d", To: "now"}
	d.Templating.List = []Variable{
		datasourceVar("datasource", "Prometheus", PrometheusType),
		jobVar(),
		clusterVar(true),
	}
	c := `job=~"$job", cluster=~"$cluster"`
	acc := steps("red", th.Model.MinAccuracyRatio, "green")
	// The advisor's accuracy is a skill score with its own bar in
	// StorcastModelInaccurate; its series are named "<cluster> advisor
	// <rule set>" by the legends below.
	advisorAcc := Override{Matcher: Matcher{ID: "byRegexp", Options: `\S+ advisor \S+`},
		Properties: []Property{{ID: "thresholds", Value: steps("red", th.Model.MinAdvisorAccuracyRatio, "green")}}}

	var l layout
	l.row("Accuracy")
	a := l.add(16, 10, timeseries("Accuracy per model and target",
		fmt.Sprintf("max(1 - error, 0) on data the fit did not see: 1 - MAPE of a backtest, or 1 - a cross-validated error ratio (whatif; the advisor's over the mean boost's, a skill score). "+
			"The dashed line is the StorcastModelInaccurate threshold (%g; %g for the advisor).", th.Model.MinAccuracyRatio, th.Model.MinAdvisorAccuracyRatio),
		"percentunit", map[string]any{"thresholdsStyle": map[string]any{"mode": "dashed"}},
		prom("A", "storcast_model_accuracy_ratio{"+c+"}", "{{cluster}} {{model}} {{target}}")))
	a.FieldConfig.Defaults["thresholds"] = acc
	a.FieldConfig.Overrides = append(a.FieldConfig.Overrides, advisorAcc)
	a.FieldConfig.Defaults["min"], a.FieldConfig.Defaults["max"] = 0, 1
	l.add(8, 10, &Panel{Type: "bargauge", Title: "Accuracy now",
		Description: "Latest accuracy on held-out data per cluster, model and target.",
		Datasource:  promDS,
		Targets:     []Target{promInstant("A", "storcast_model_accuracy_ratio{"+c+"}", "{{cluster}} {{model}} {{target}}")},
		FieldConfig: FieldConfig{Defaults: defaults("percentunit", map[string]any{"min": 0, "max": 1, "thresholds": acc, "color": map[string]any{"mode": "thresholds"}}), Overrides: []Override{advisorAcc}},
		Options: map[string]any{"reduceOptions": map[string]any{"calcs": []string{"lastNotNull"}, "fields": "", "values": false},
			"orientation": "horizontal", "displayMode": "gradient", "showUnfilled": true},
	})

	l.row("Calibration")
	cal := l.add(24, 8, timeseries("Calibration against the history",
		fmt.Sprintf("The measured load over the upper end of the max-IOPS band at its own mix (third-highest window of the lookback). "+
			"Above 1 the cluster has served more than its calibration allows: the calibration is too low there, re-run it (StorcastCalibrationContradicted after %s above the dashed line). "+
			"Near 1 the history reached capacity; far below it says nothing either way.", th.Calibration.ContradictedFor),
		"none", map[string]any{"thresholdsStyle": map[string]any{"mode": "dashed"}},
		prom("A", "storcast_capacity_history_load_ratio{"+c+"}", "{{cluster}}")))
	cal.FieldConfig.Defaults["thresholds"] = steps("green", 1, "red")
	cal.FieldConfig.Defaults["min"] = 0

	l.row("Fitting")
	l.add(8, 9, timeseries("Fit duration", "Wall time of the last fit of each model.", "s", map[string]any{"showPoints": "auto"},
		prom("A", "storcast_model_fit_duration_seconds{"+c+"}", "{{cluster}} {{model}}")))
	l.add(8, 9, timeseries("Training samples", "Samples in the last fit of each model.", "short", nil,
		prom("A", "storcast_model_training_samples{"+c+"}", "{{cluster}} {{model}}")))
	l.add(8, 9, timeseries("Age of the last fit", "Seconds since each model was last fitted successfully.", "s", nil,
		prom("A", "time() - storcast_model_last_fit_timestamp_seconds{"+c+"}", "{{cluster}} {{model}}")))

	l.row("Health")
	l.add(8, 8, stateTimeline("Model staleness",
		"1 = stale: the last successful fit is older than fit.stale_after, or the cluster's source is down; the last good model keeps serving. "+
			"A failed fit alone is not stale: see Fit errors.",
		prom("A", "storcast_model_stale{"+c+"}", "{{cluster}} {{model}}"),
		"fresh", "green", "stale", "orange"))
	l.add(8, 8, stateTimeline("Source health",
		"Whether storcast's queries for each source of each cluster succeed (storcast_source_up).",
		prom("A", "storcast_source_up{"+c+"}", "{{cluster}}"),
		"down", "red", "up", "green"))
	l.add(8, 8, stateTimeline("State saved",
		fmt.Sprintf("Whether the last write of each cluster's models to state_dir succeeded (storcast_state_save_success; StorcastStateNotSaved after %s failed): "+
			"a failed one loses nothing now, but a restart would.", th.State.NotSavedFor),
		prom("A", "storcast_state_save_success{"+c+"}", "{{cluster}}"),
		"failed", "red", "saved", "green"))
	l.add(8, 8, stateTimeline("State restored",
		fmt.Sprintf("Whether each cluster's saved models came back when storcast started (storcast_state_restore_success; StorcastStateNotRestored after %s discarded): "+
			"a discarded state serves nothing until the models refit; it reads so until the next start.", th.State.NotRestoredFor),
		prom("A", "storcast_state_restore_success{"+c+"}", "{{cluster}}"),
		"discarded", "red", "restored", "green"))
	l.add(8, 8, stateTimeline("Fit errors",
		fmt.Sprintf("Whether each model's last fit attempt failed (storcast_model_fit_error; StorcastModelFitFailing after %s): "+
			"a model that never fitted serves nothing, one fitted before serves its last version. A model that only waits for enough history "+
			"does not read failed (storcast_model_waiting_for_history).", th.Model.FitFailingFor),
		prom("A", "storcast_model_fit_error{"+c+"}", "{{cluster}} {{model}}"),
		"fitted", "green", "failed", "red"))
	l.add(8, 8, stateTimeline("Collectors",
		fmt.Sprintf("Whether each storcast's collectors succeeded on their last run (storcast_scrape_collector_success, per process: not filtered by cluster; "+
			"StorcastCollectorFailing after %s failed): a failed one's series are missing for some or all clusters.", th.Exporter.CollectorFailingFor),
		prom("A", `storcast_scrape_collector_success{job=~"$job"}`, "{{instance}} {{collector}}"),
		"failed", "red", "ok", "green"))
	d.Panels = l.panels
	return d
}

// Forecast states of a cluster, worst first: what forecastState shows.
const (
	stateOK = iota
	stateWarmingUp
	stateStale
	stateSourceDown
)

// forecastState is a stat of whether the cluster's figures can be trusted:
// its source down (the forecasts are frozen), a model stale, its rate
// window not full yet, or ok; the worst of them per storcast process (HA
// replicas each show their own).
func forecastState(c string) *Panel {
	expr := fmt.Sprintf("max by (job, instance, cluster) (\n"+
		"  label_replace(%d * (storcast_source_up{%s} == bool 0), \"state\", \"source\", \"\", \"\")\n"+
		"  or label_replace(%d * storcast_model_stale{%s}, \"state\", \"stale\", \"\", \"\")\n"+
		"  or label_replace(%d * storcast_warming_up{%s}, \"state\", \"warmup\", \"\", \"\")\n)",
		stateSourceDown, c, stateStale, c, stateWarmingUp, c)
	p := stat("State", "Whether the figures on this dashboard are current: source down (storcast_source_up 0: the last forecasts, frozen), "+
		"stale (storcast_model_stale: a model's last fit older than fit.stale_after), warming up (storcast_warming_up: the rate window "+
		"was not full, the rates are extrapolated and the alerts ignore the cluster), else ok. The worst applies; one value per storcast process.",
		"none", steps("green", stateWarmingUp, "blue", stateStale, "orange", stateSourceDown, "red"),
		promInstant("A", expr, "{{instance}}"))
	p.FieldConfig.Defaults["mappings"] = []any{map[string]any{"type": "value", "options": map[string]any{
		fmt.Sprint(stateOK):         map[string]any{"text": "ok", "color": "green", "index": 0},
		fmt.Sprint(stateWarmingUp):  map[string]any{"text": "warming up", "color": "blue", "index": 1},
		fmt.Sprint(stateStale):      map[string]any{"text": "stale", "color": "orange", "index": 2},
		fmt.Sprint(stateSourceDown): map[string]any{"text": "source down", "color": "red", "index": 3},
	}}}
	p.Options["graphMode"] = "none"
	p.Options["colorMode"] = "background"
	return p
}

// maxIOPSOrLowerBound is the max IOPS at the current mix, or where there is
// none (a history that never saturated, no calibration) the lower bound the
// history proves; the label "shown" names which.
func maxIOPSOrLowerBound(c string) string {
	return `label_replace(storcast_max_iops{` + c + `, op="total"}, "shown", "max", "", "")` +
		"\nor ignoring (op, bound, shown)\n" +
		`label_replace(storcast_max_iops_bound{` + c + `, bound="lower"}, "shown", "at least (lower bound: never saturated)", "", "")`
}

// All returns every dashboard, keyed by its file name.
func All() map[string]Dashboard {
	return map[string]Dashboard{
		"storcast-cluster-headroom.json": ClusterHeadroom(),
		"storcast-model-quality.json":    ModelQuality(),
	}
}
