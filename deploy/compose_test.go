package deploy

import (
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/internal/testtool"
)

const root = ".."

type compose struct {
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

type service struct {
	Image       string            `yaml:"image"`
	Build       any               `yaml:"build"`
	Command     []string          `yaml:"command"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Ports       []string          `yaml:"ports"`
	DependsOn   any               `yaml:"depends_on"`
}

// buildOutputs are mounted paths that a build step creates; each names a
// file that must exist for the step to be possible.
var buildOutputs = map[string]string{
	"grafana-plugin/dist": "grafana-plugin/plugin.mk", // make plugin
}

// listenPorts are the ports each service listens on inside the stack.
var listenPorts = map[string]string{
	"prometheus":    "9090",
	"alertmanager":  "9093",
	"grafana":       "3000",
	"storcast":      "9595",
	"storagesim":    "9283",
	"node-exporter": "9100",
}

func loadCompose(t *testing.T) compose {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

// mounts returns the bind mounts of a service: container path -> repository path.
func mounts(t *testing.T, name string, s service) map[string]string {
	out := map[string]string{}
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || !strings.HasPrefix(parts[0], "./") {
			continue
		}
		out[parts[1]] = strings.TrimPrefix(parts[0], "./")
	}
	return out
}

func TestComposeServices(t *testing.T) {
	c := loadCompose(t)
	for _, want := range []string{"prometheus", "alertmanager", "grafana", "storcast", "storagesim", "node-exporter", "storagesim-history", "prometheus-backfill"} {
		if _, ok := c.Services[want]; !ok {
			t.Errorf("docker-compose.yml has no service %q", want)
		}
	}
}

func TestComposeMountsExist(t *testing.T) {
	c := loadCompose(t)
	n := 0
	for name, s := range c.Services {
		for _, v := range s.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if !strings.HasPrefix(src, "./") {
				if _, ok := c.Volumes[src]; !ok && !strings.HasPrefix(src, "/") {
					t.Errorf("%s: volume %q is not declared under volumes:", name, src)
				}
				continue
			}
			n++
			rel := strings.TrimPrefix(src, "./")
			if need, ok := buildOutputs[rel]; ok {
				if _, err := os.Stat(filepath.Join(root, need)); err != nil {
					t.Errorf("%s mounts the build output %s, but %s (which builds it) is missing", name, rel, need)
				}
				continue
			}
			if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
				t.Errorf("%s mounts %s, which does not exist", name, rel)
			}
		}
	}
	if n < 8 {
		t.Errorf("only %d bind mounts found; the parsing is broken", n)
	}
}

func TestComposePorts(t *testing.T) {
	c := loadCompose(t)
	for name, s := range c.Services {
		for _, p := range s.Ports {
			host, ctr, ok := strings.Cut(p, ":")
			if !ok {
				t.Errorf("%s: port %q: want host:container", name, p)
				continue
			}
			if want := listenPorts[name]; ctr != want {
				t.Errorf("%s publishes container port %s, but listens on %s", name, ctr, want)
			}
			if host != ctr {
				t.Errorf("%s publishes %s on host port %s; the README and links assume the same port", name, ctr, host)
			}
		}
	}
	// Listen addresses in the commands agree with listenPorts.
	flag := regexp.MustCompile(`--web\.listen-address[= ](\S+)`)
	for name, s := range c.Services {
		for _, arg := range append(append([]string{}, s.Entrypoint...), s.Command...) {
			for _, m := range flag.FindAllStringSubmatch(arg, -1) {
				_, port, err := net.SplitHostPort(m[1])
				if err != nil || port != listenPorts[name] {
					t.Errorf("%s listens on %q, want port %s", name, m[1], listenPorts[name])
				}
			}
		}
	}
}

// checkURL checks that u names a compose service and the port it listens on.
func checkURL(t *testing.T, c compose, where, u string) {
	t.Helper()
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	p, err := url.Parse(u)
	if err != nil {
		t.Errorf("%s: %q: %v", where, u, err)
		return
	}
	host, port := p.Hostname(), p.Port()
	if host == "localhost" && strings.HasPrefix(where, "prometheus.yml") {
		host = "prometheus" // Prometheus scraping itself
	}
	if _, ok := c.Services[host]; !ok {
		t.Errorf("%s: %s: %q is not a compose service", where, u, host)
		return
	}
	if port != listenPorts[host] {
		t.Errorf("%s: %s: port %q, but %s listens on %s", where, u, port, host, listenPorts[host])
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestURLsAgree(t *testing.T) {
	c := loadCompose(t)
	n := 0
	var prom struct {
		RuleFiles []string `yaml:"rule_files"`
		Alerting  struct {
			Alertmanagers []struct {
				StaticConfigs []struct {
					Targets []string `yaml:"targets"`
				} `yaml:"static_configs"`
			} `yaml:"alertmanagers"`
		} `yaml:"alerting"`
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
			HTTPSD []struct {
				URL string `yaml:"url"`
			} `yaml:"http_sd_configs"`
		} `yaml:"scrape_configs"`
	}
	readYAML(t, "deploy/prometheus/prometheus.yml", &prom)
	for _, am := range prom.Alerting.Alertmanagers {
		for _, sc := range am.StaticConfigs {
			for _, tg := range sc.Targets {
				checkURL(t, c, "prometheus.yml alerting", tg)
				n++
			}
		}
	}
	jobs := map[string]bool{}
	for _, sc := range prom.ScrapeConfigs {
		jobs[sc.JobName] = true
		for _, s := range sc.StaticConfigs {
			for _, tg := range s.Targets {
				checkURL(t, c, "prometheus.yml job "+sc.JobName, tg)
				n++
			}
		}
		for _, sd := range sc.HTTPSD {
			checkURL(t, c, "prometheus.yml job "+sc.JobName, sd.URL)
			n++
		}
	}
	// The alert rules' StorcastExporterDown watches up{job="storcast"}.
	if !jobs["storcast"] {
		t.Errorf("prometheus.yml has no scrape job \"storcast\", which StorcastExporterDown watches")
	}
	// The rule file Prometheus reads is mounted from alerts/.
	pm := mounts(t, "prometheus", c.Services["prometheus"])
	for _, rf := range prom.RuleFiles {
		if src, ok := pm[rf]; !ok || src != "alerts/storcast.rules.yml" {
			t.Errorf("prometheus.yml reads %s, which compose mounts from %q, want alerts/storcast.rules.yml", rf, src)
		}
	}

	var ds struct {
		Datasources []struct {
			Name     string         `yaml:"name"`
			Type     string         `yaml:"type"`
			URL      string         `yaml:"url"`
			JSONData map[string]any `yaml:"jsonData"`
		} `yaml:"datasources"`
	}
	readYAML(t, "dashboards/provisioning/datasources/storcast.yml", &ds)
	types := map[string]bool{}
	for _, d := range ds.Datasources {
		types[d.Type] = true
		checkURL(t, c, "grafana data source "+d.Name, d.URL)
		n++
		if u, ok := d.JSONData["url"].(string); ok {
			checkURL(t, c, "grafana data source "+d.Name+" jsonData.url", u)
			n++
		}
	}
	if !types["prometheus"] || !types["storcast-forecast-datasource"] {
		t.Errorf("grafana data sources %v, want prometheus and storcast-forecast-datasource", types)
	}

	cfg, err := config.Load(filepath.Join(root, "deploy/storcast/storcast.yml"), nil)
	if err != nil {
		t.Fatalf("deploy/storcast/storcast.yml: %v", err)
	}
	checkURL(t, c, "storcast.yml prometheus.url", cfg.Prometheus.URL)
	n++
	if m := mounts(t, "storcast", c.Services["storcast"]); m["/etc/storcast"] != "deploy/storcast" {
		t.Errorf("storcast's configuration directory is not mounted from deploy/storcast: %v", m)
	}
	for _, cl := range cfg.Clusters {
		if cl.Calibration.File == "" {
			t.Errorf("cluster %s has no calibration file", cl.Name)
		}
	}
	if _, port, _ := net.SplitHostPort(cfg.Web.ListenAddress); port != listenPorts["storcast"] {
		t.Errorf("storcast.yml listens on %q, want port %s", cfg.Web.ListenAddress, listenPorts["storcast"])
	}
	if n < 9 {
		t.Errorf("only %d URLs checked; the parsing is broken", n)
	}
}

func TestGrafanaWiring(t *testing.T) {
	c := loadCompose(t)
	g := c.Services["grafana"]
	const plugin = "storcast-forecast-datasource"
	if !strings.Contains(g.Environment["GF_PLUGINS_ALLOW_LOADING_UNSIGNED_PLUGINS"], plugin) {
		t.Errorf("grafana does not allow the unsigned plugin %s", plugin)
	}
	m := mounts(t, "grafana", g)
	if m["/var/lib/grafana/plugins/"+plugin] != "grafana-plugin/dist" {
		t.Errorf("grafana-plugin/dist is not mounted as /var/lib/grafana/plugins/%s: %v", plugin, m)
	}
	if m["/etc/grafana/provisioning/datasources"] != "dashboards/provisioning/datasources" ||
		m["/etc/grafana/provisioning/dashboards"] != "dashboards/provisioning/dashboards" {
		t.Errorf("grafana provisioning not mounted from dashboards/provisioning: %v", m)
	}
	var prov struct {
		Providers []struct {
			Options struct {
				Path string `yaml:"path"`
			} `yaml:"options"`
		} `yaml:"providers"`
	}
	readYAML(t, "dashboards/provisioning/dashboards/storcast.yml", &prov)
	if len(prov.Providers) != 1 || m[prov.Providers[0].Options.Path] != "dashboards/json" {
		t.Errorf("the dashboard provider reads %+v, which compose does not mount from dashboards/json", prov.Providers)
	}
	home := g.Environment["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
	if rel, ok := strings.CutPrefix(home, prov.Providers[0].Options.Path+"/"); !ok {
		t.Errorf("home dashboard %q is outside the provisioned directory", home)
	} else if _, err := os.Stat(filepath.Join(root, "dashboards/json", rel)); err != nil {
		t.Errorf("home dashboard: %v", err)
	}
}

// TestAlertmanagerConfigFollowsTheExample keeps the compose Alertmanager's
// routing and inhibition the same as the documented example's.
func TestAlertmanagerConfigFollowsTheExample(t *testing.T) {
	type am struct {
		Route struct {
			GroupBy []string `yaml:"group_by"`
		} `yaml:"route"`
		InhibitRules []map[string]any `yaml:"inhibit_rules"`
	}
	var ex, dep am
	readYAML(t, "alerts/alertmanager.example.yml", &ex)
	readYAML(t, "deploy/alertmanager/alertmanager.yml", &dep)
	if !reflect.DeepEqual(ex.InhibitRules, dep.InhibitRules) || !reflect.DeepEqual(ex.Route.GroupBy, dep.Route.GroupBy) {
		t.Errorf("deploy/alertmanager/alertmanager.yml's grouping or inhibit rules differ from alerts/alertmanager.example.yml")
	}
}

func TestConfigsPassTheirCheckers(t *testing.T) {
	for _, cmd := range [][]string{
		{testtool.Need(t, "promtool"), "check", "config", "--syntax-only", filepath.Join(root, "deploy/prometheus/prometheus.yml")},
		{testtool.Need(t, "amtool"), "check-config", filepath.Join(root, "deploy/alertmanager/alertmanager.yml")},
	} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
		}
	}
}
