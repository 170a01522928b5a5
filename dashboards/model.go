package dashboards

import (
	"bytes"
	"encoding/json"
)

// Data-source types and the names of the dashboards' data-source variables.
const (
	PrometheusType = "prometheus"
	PluginType     = "storcast-forecast-datasource"
	promVar        = "${datasource}"
	pluginVar      = "${storcast}"
)

// Dashboard is the part of Grafana's dashboard JSON model that we write.
type Dashboard struct {
	UID           string         `json:"uid"`
	Title         string         `json:"title"`
	Description   string         `json:"description,omitempty"`
	Tags          []string       `json:"tags"`
	Editable      bool           `json:"editable"`
	GraphTooltip  int            `json:"graphTooltip"`
	SchemaVersion int            `json:"schemaVersion"`
	Version       int            `json:"version"`
	Time          TimeRange      `json:"time"`
	Refresh       string         `json:"refresh"`
	Timezone      string         `json:"timezone"`
	Templating    Templating     `json:"templating"`
	Annotations   map[string]any `json:"annotations"`
	Links         []Link         `json:"links"`
	Panels        []*Panel       `json:"panels"`
}

// TimeRange is the dashboard's default time range.
type TimeRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Templating holds the dashboard's variables.
type Templating struct {
	List []Variable `json:"list"`
}

// Variable is a dashboard variable.
type Variable struct {
	Name        string         `json:"name"`
	Label       string         `json:"label,omitempty"`
	Type        string         `json:"type"`
	Description string         `json:"description,omitempty"`
	Query       any            `json:"query"`
	Datasource  *DatasourceRef `json:"datasource,omitempty"`
	Current     map[string]any `json:"current,omitempty"`
	Definition  string         `json:"definition,omitempty"`
	Refresh     int            `json:"refresh,omitempty"`
	Sort        int            `json:"sort,omitempty"`
	Multi       bool           `json:"multi,omitempty"`
	IncludeAll  bool           `json:"includeAll,omitempty"`
	Hide        int            `json:"hide,omitempty"`
	Regex       string         `json:"regex,omitempty"`
}

// Link is a dashboard link.
type Link struct {
	Title       string   `json:"title"`
	Type        string   `json:"type"`
	Tags        []string `json:"tags,omitempty"`
	AsDropdown  bool     `json:"asDropdown"`
	IncludeVars bool     `json:"includeVars"`
	KeepTime    bool     `json:"keepTime"`
}

// DatasourceRef points at a data source.
type DatasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// GridPos is a panel's place on the 24-column grid.
type GridPos struct {
	H int `json:"h"`
	W int `json:"w"`
	X int `json:"x"`
	Y int `json:"y"`
}

// Panel is one panel.
type Panel struct {
	ID          int            `json:"id"`
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Description string         `json:"description,omitempty"`
	GridPos     GridPos        `json:"gridPos"`
	Datasource  *DatasourceRef `json:"datasource,omitempty"`
	Targets     []Target       `json:"targets,omitempty"`
	FieldConfig FieldConfig    `json:"fieldConfig"`
	Options     map[string]any `json:"options"`
	Collapsed   *bool          `json:"collapsed,omitempty"`
	Panels      []*Panel       `json:"panels,omitempty"`
}

// FieldConfig holds field defaults and overrides.
type FieldConfig struct {
	Defaults  map[string]any `json:"defaults"`
	Overrides []Override     `json:"overrides"`
}

// Override changes properties of matching fields.
type Override struct {
	Matcher    Matcher    `json:"matcher"`
	Properties []Property `json:"properties"`
}

// Matcher selects fields.
type Matcher struct {
	ID      string `json:"id"`
	Options any    `json:"options"`
}

// Property is one overridden property.
type Property struct {
	ID    string `json:"id"`
	Value any    `json:"value"`
}

// Target is one query. Prometheus targets use Expr and LegendFormat; plugin
// targets use the fields of grafana-plugin/pkg/models.Query.
type Target struct {
	RefID        string         `json:"refId"`
	Datasource   *DatasourceRef `json:"datasource"`
	Expr         string         `json:"expr,omitempty"`
	LegendFormat string         `json:"legendFormat,omitempty"`
	Instant      bool           `json:"instant,omitempty"`
	Range        bool           `json:"range,omitempty"`
	Format       string         `json:"format,omitempty"`

	QueryType  string `json:"queryType,omitempty"`
	Cluster    string `json:"cluster,omitempty"`
	Series     string `json:"series,omitempty"`
	Horizon    string `json:"horizon,omitempty"`
	Step       string `json:"step,omitempty"`
	IOSize     string `json:"ioSize,omitempty"`
	Points     string `json:"points,omitempty"`
	ReadRatio  string `json:"readRatio,omitempty"`
	ExtraIOPS  string `json:"extraIops,omitempty"`
	HostsAdded string `json:"hostsAdded,omitempty"`
}

// JSON renders d as Grafana reads it: indented, with a final newline.
func (d Dashboard) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Prometheus returns the Prometheus targets of every panel (rows included).
func (d Dashboard) Prometheus() []Target {
	var out []Target
	var walk func([]*Panel)
	walk = func(ps []*Panel) {
		for _, p := range ps {
			for _, t := range p.Targets {
				if t.Datasource != nil && t.Datasource.Type == PrometheusType {
					out = append(out, t)
				}
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return out
}
