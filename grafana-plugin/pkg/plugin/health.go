package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/grafana/grafana-plugin-sdk-go/backend"

	"github.com/storcast/storcast/exporter/apiv1"
)

// HealthDetails is CheckHealth's JSONDetails.
type HealthDetails struct {
	URL      string   `json:"url"`
	Version  string   `json:"version,omitempty"`
	Revision string   `json:"revision,omitempty"`
	Clusters []string `json:"clusters"`
}

// CheckHealth is the data source's "Save & test": it reports storcast's
// version and the clusters it serves, or why it cannot.
func (d *Datasource) CheckHealth(ctx context.Context, _ *backend.CheckHealthRequest) (*backend.CheckHealthResult, error) {
	if d.settingsErr != nil {
		return &backend.CheckHealthResult{Status: backend.HealthStatusError, Message: "Data source settings: " + d.settingsErr.Error()}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d.settings.Timeout())
	defer cancel()
	bi, err := d.client.BuildInfo(ctx)
	if err != nil {
		return &backend.CheckHealthResult{Status: backend.HealthStatusError, Message: "Cannot use storcast at " + d.client.URL() + ": " + err.Error()}, nil
	}
	cls, err := d.client.Clusters(ctx)
	if err != nil {
		return &backend.CheckHealthResult{Status: backend.HealthStatusError,
			Message: fmt.Sprintf("storcast %s answers, but listing its clusters failed: %v", versionText(bi), err)}, nil
	}
	details := HealthDetails{URL: d.client.URL(), Version: bi.Version, Revision: bi.Revision, Clusters: []string{}}
	var parts []string
	for _, c := range cls {
		details.Clusters = append(details.Clusters, c.Name)
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", c.Name, c.Kind, modelSummary(c)))
	}
	js, _ := json.Marshal(details)
	msg := fmt.Sprintf("storcast %s serves %d cluster(s): %s", versionText(bi), len(cls), strings.Join(parts, "; "))
	if len(cls) == 0 {
		msg = fmt.Sprintf("storcast %s answers but serves no cluster yet: check its configuration (clusters, Prometheus URL)", versionText(bi))
	}
	return &backend.CheckHealthResult{Status: backend.HealthStatusOk, Message: msg, JSONDetails: js}, nil
}

// modelSummary says how many models are fitted, and which are stale or
// failing.
func modelSummary(c apiv1.Cluster) string {
	names := make([]string, 0, len(c.Models))
	for n := range c.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	fitted := 0
	var notes []string
	for _, n := range names {
		m := c.Models[n]
		if m.Fitted {
			fitted++
		}
		switch {
		case m.Error != "":
			notes = append(notes, n+" failing")
		case m.Stale:
			notes = append(notes, n+" stale")
		}
	}
	s := fmt.Sprintf("%d/%d models fitted", fitted, len(names))
	if len(notes) > 0 {
		s += ", " + strings.Join(notes, ", ")
	}
	return s
}

// versionText is the version to show; a build without a stamped version
// (plain go build) says so, with its revision when it has one.
func versionText(bi apiv1.BuildInfo) string {
	switch {
	case bi.Version != "":
		return bi.Version
	case bi.Revision != "":
		return "(unversioned build " + bi.Revision + ")"
	}
	return "(unversioned build)"
}
