package pluginbuild

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestGrafanaDependencyMatchesPackages: the frontend's @grafana/* packages
// are provided by the running Grafana, so the plugin is built against the
// oldest Grafana it supports; plugin.json's grafanaDependency must name
// that same major.minor (the Go SDK states no minimum of its own: its
// plugin protocol is stable across releases).
func TestGrafanaDependencyMatchesPackages(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var pj struct {
		Dependencies struct {
			GrafanaDependency string `json:"grafanaDependency"`
		} `json:"dependencies"`
	}
	for path, v := range map[string]any{"../../package.json": &pkg, "../../src/plugin.json": &pj} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	data := pkg.Dependencies["@grafana/data"]
	parts := strings.Split(data, ".")
	if len(parts) != 3 {
		t.Fatalf("@grafana/data version %q is not pinned as major.minor.patch", data)
	}
	for _, p := range []string{"@grafana/runtime", "@grafana/ui", "@grafana/schema"} {
		if pkg.Dependencies[p] != data {
			t.Errorf("%s %q differs from @grafana/data %q", p, pkg.Dependencies[p], data)
		}
	}
	if want := ">=" + parts[0] + "." + parts[1] + ".0"; pj.Dependencies.GrafanaDependency != want {
		t.Errorf("grafanaDependency %q, want %q (the @grafana/* packages are %s)", pj.Dependencies.GrafanaDependency, want, data)
	}
}
