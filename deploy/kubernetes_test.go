package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	promconfig "github.com/prometheus/prometheus/config"
	_ "github.com/prometheus/prometheus/discovery/kubernetes" // registers kubernetes_sd_configs
	"github.com/prometheus/prometheus/model/relabel"
	"gopkg.in/yaml.v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/storcast/storcast/exporter/config"
)

// manifests holds the objects of deploy/kubernetes, each decoded strictly
// into its Kubernetes API type (k8s.io/api): a field the API does not have,
// or a value of the wrong type, fails the decoding as it would fail
// `kubectl apply --validate=strict`.
type manifests struct {
	configMaps   map[string]*corev1.ConfigMap
	services     map[string]*corev1.Service
	statefulSets map[string]*appsv1.StatefulSet
}

func loadManifests(t *testing.T) manifests {
	t.Helper()
	m := manifests{map[string]*corev1.ConfigMap{}, map[string]*corev1.Service{}, map[string]*appsv1.StatefulSet{}}
	// Every file kubectl apply -f deploy/kubernetes/ reads (.yaml, .yml,
	// .json): each must be a Kubernetes object this test checks.
	var files []string
	for _, ext := range []string{"yaml", "yml", "json"} {
		f, err := filepath.Glob(filepath.Join(root, "deploy/kubernetes/*."+ext))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	if len(files) < 2 {
		t.Fatalf("deploy/kubernetes: %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for i := 0; ; i++ {
			var doc map[string]any
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
			js, err := yaml.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("%s document %d (%v %v)", filepath.Base(f), i, doc["kind"], doc["metadata"])
			var obj interface{ GetName() string }
			switch fmt.Sprint(doc["apiVersion"], " ", doc["kind"]) {
			case "v1 ConfigMap":
				cm := &corev1.ConfigMap{}
				obj, m.configMaps[name(doc)] = cm, cm
			case "v1 Service":
				s := &corev1.Service{}
				obj, m.services[name(doc)] = s, s
			case "apps/v1 StatefulSet":
				s := &appsv1.StatefulSet{}
				obj, m.statefulSets[name(doc)] = s, s
			default:
				t.Fatalf("%s: a kind this test does not check", where)
			}
			if err := sigsyaml.UnmarshalStrict(js, obj); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if obj.GetName() == "" {
				t.Errorf("%s: no metadata.name", where)
			}
		}
	}
	return m
}

func fmtReplicas(r *int32) string {
	if r == nil {
		return "unset"
	}
	return strconv.Itoa(int(*r))
}

func name(doc map[string]any) string {
	md, _ := doc["metadata"].(map[string]any)
	return fmt.Sprint(md["name"])
}

func TestKubernetesStrictDecodingCatchesTypos(t *testing.T) {
	var s appsv1.StatefulSet
	err := sigsyaml.UnmarshalStrict([]byte("spec:\n  replica: 3\n"), &s)
	if err == nil || !strings.Contains(err.Error(), `unknown field "replica"`) {
		t.Errorf("a misspelled field decoded: %v", err)
	}
}

// TestKubernetesManifests: the StatefulSet, its Service and ConfigMap fit
// together, and storcast itself accepts the pod's command line and
// configuration, for each shard's pod name.
func TestKubernetesManifests(t *testing.T) {
	m := loadManifests(t)
	ss := m.statefulSets["storcast"]
	svc := m.services["storcast"]
	cm := m.configMaps["storcast-config"]
	if ss == nil || svc == nil || cm == nil {
		t.Fatalf("want StatefulSet storcast, Service storcast and ConfigMap storcast-config; have %v %v %v", ss != nil, svc != nil, cm != nil)
	}
	labels := ss.Spec.Template.Labels
	for k, v := range ss.Spec.Selector.MatchLabels {
		if labels[k] != v {
			t.Errorf("StatefulSet selector %s=%s does not match its pod template's labels %v", k, v, labels)
		}
	}
	for k, v := range svc.Spec.Selector {
		if labels[k] != v {
			t.Errorf("Service selector %s=%s does not select the pods (labels %v)", k, v, labels)
		}
	}
	if ss.Spec.ServiceName != svc.Name || svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("StatefulSet serviceName %q, Service %q clusterIP %q: want the headless Service that names the pods", ss.Spec.ServiceName, svc.Name, svc.Spec.ClusterIP)
	}
	if len(ss.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(ss.Spec.Template.Spec.Containers))
	}
	c := ss.Spec.Template.Spec.Containers[0]
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, p := range svc.Spec.Ports {
		if ports[p.TargetPort.String()] == 0 && strconv.Itoa(int(ports["http"])) != p.TargetPort.String() {
			t.Errorf("Service port %s targets %s, not a container port %v", p.Name, p.TargetPort.String(), ports)
		}
	}
	for probe, want := range map[*corev1.Probe]string{c.ReadinessProbe: "/-/ready", c.LivenessProbe: "/-/healthy"} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != want || ports[probe.HTTPGet.Port.String()] == 0 {
			t.Errorf("probe %+v, want GET %s on a container port", probe, want)
		}
	}

	// Pod Security's "restricted" level (what a namespace enforcing it
	// admits): non-root, no privilege escalation, every capability dropped,
	// the runtime's default (or a localhost) seccomp profile.
	psc, csc := ss.Spec.Template.Spec.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Error("pod securityContext: runAsNonRoot is not true")
	}
	if psc == nil || psc.SeccompProfile == nil || (psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault && psc.SeccompProfile.Type != corev1.SeccompProfileTypeLocalhost) {
		t.Error("pod securityContext: no seccompProfile RuntimeDefault or Localhost (Pod Security restricted refuses the pod)")
	}
	if csc == nil || csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation || csc.Capabilities == nil ||
		len(csc.Capabilities.Drop) != 1 || csc.Capabilities.Drop[0] != "ALL" || csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem {
		t.Errorf("container securityContext %+v: want allowPrivilegeEscalation false, capabilities drop [ALL], readOnlyRootFilesystem", csc)
	}

	// The pod's command line as the kubelet runs it: $(POD_NAME) from the
	// downward API.
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name" {
			env[e.Name] = "pod name"
		}
	}
	var configFile string
	total := 0
	for _, a := range c.Args {
		for _, ref := range regexp.MustCompile(`\$\((\w+)\)`).FindAllStringSubmatch(a, -1) {
			if env[ref[1]] == "" {
				t.Errorf("argument %q refers to $(%s), which the container's env does not set from the pod", a, ref[1])
			}
		}
		if v, ok := strings.CutPrefix(a, "--config.file="); ok {
			configFile = v
		}
		if v, ok := strings.CutPrefix(a, "--shard.total="); ok {
			total, _ = strconv.Atoi(v)
		}
	}
	if ss.Spec.Replicas == nil || int(*ss.Spec.Replicas) != total {
		t.Errorf("replicas %s and --shard.total=%d differ: a shard would have no pod, or a pod no shard", fmtReplicas(ss.Spec.Replicas), total)
	}
	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.Name] = vm.MountPath
	}
	var configVolume string
	for _, v := range ss.Spec.Template.Spec.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == cm.Name {
			configVolume = v.Name
		}
	}
	if configVolume == "" || mounts[configVolume] != path.Dir(configFile) {
		t.Fatalf("--config.file=%s is not in the mounted ConfigMap %s (mounts %v)", configFile, cm.Name, mounts)
	}
	if _, ok := cm.Data[path.Base(configFile)]; !ok {
		t.Fatalf("ConfigMap %s has no %s", cm.Name, path.Base(configFile))
	}

	// The configuration as mounted: the ConfigMap's files in one directory,
	// state_dir on the claim of the volumeClaimTemplate.
	dir := t.TempDir()
	for f, content := range cm.Data {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Parse([]byte(cm.Data[path.Base(configFile)]))
	if err != nil {
		t.Fatalf("%s: %v", configFile, err)
	}
	claims := map[string]bool{}
	for _, pvc := range ss.Spec.VolumeClaimTemplates {
		claims[pvc.Name] = true
	}
	stateMounted := false
	for vol, p := range mounts {
		stateMounted = stateMounted || (claims[vol] && p == cfg.StateDir)
	}
	if !stateMounted {
		t.Errorf("state_dir %s is not on a volumeClaimTemplate (mounts %v, claims %v): the models would not survive a restart", cfg.StateDir, mounts, claims)
	}
	state := filepath.Join(dir, "state")
	os.Mkdir(state, 0o755)
	conf := strings.ReplaceAll(cm.Data[path.Base(configFile)], cfg.StateDir, state)
	if err := os.WriteFile(filepath.Join(dir, path.Base(configFile)), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "storcast")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/storcast").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for i := range total {
		pod := fmt.Sprintf("%s-%d", ss.Name, i)
		args := []string{"--config.check"}
		for _, a := range c.Args {
			a = strings.ReplaceAll(a, "$(POD_NAME)", pod)
			a = strings.Replace(a, "--config.file="+configFile, "--config.file="+filepath.Join(dir, path.Base(configFile)), 1)
			args = append(args, a)
		}
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), fmt.Sprintf("shard %d of %d", i, total)) {
			t.Errorf("pod %s: storcast %s: %v\n%s", pod, strings.Join(args, " "), err, out)
		}
	}

	// Grafana: one data source per shard, at the pod's stable name.
	gm := m.configMaps["storcast-grafana-datasources"]
	if gm == nil {
		t.Fatal("no ConfigMap storcast-grafana-datasources")
	}
	var prov struct {
		Datasources []struct {
			Type     string         `yaml:"type"`
			JSONData map[string]any `yaml:"jsonData"`
		} `yaml:"datasources"`
	}
	if err := yaml.Unmarshal([]byte(gm.Data["storcast.yaml"]), &prov); err != nil {
		t.Fatal(err)
	}
	urls := map[string]bool{}
	for _, d := range prov.Datasources {
		if d.Type == "storcast-forecast-datasource" {
			urls[fmt.Sprint(d.JSONData["url"])] = true
		}
	}
	_, port, _ := strings.Cut(cfg.Web.ListenAddress, ":")
	for i := range total {
		u := fmt.Sprintf("http://%s-%d.%s.monitoring.svc:%s", ss.Name, i, svc.Name, port)
		if !urls[u] {
			t.Errorf("no Grafana data source for shard %d at %s (have %v)", i, u, urls)
		}
	}
	if len(urls) != total {
		t.Errorf("%d Grafana data sources for %d shards", len(urls), total)
	}
}

// TestKubernetesScrapeConfig: Prometheus's own configuration loader (with
// its Kubernetes service discovery; Debian's promtool is built without it)
// accepts the scrape job, and the job keeps the pods the StatefulSet labels.
func TestKubernetesScrapeConfig(t *testing.T) {
	f := filepath.Join(root, "deploy/prometheus/kubernetes-scrape.yml")
	cfg, err := promconfig.LoadFile(f, false, nil)
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	if len(cfg.ScrapeConfigs) != 1 {
		t.Fatalf("%d scrape jobs, want 1", len(cfg.ScrapeConfigs))
	}
	sc := cfg.ScrapeConfigs[0]
	if len(sc.ServiceDiscoveryConfigs) != 1 || sc.ServiceDiscoveryConfigs[0].Name() != "kubernetes" {
		t.Fatalf("service discovery %v, want kubernetes", sc.ServiceDiscoveryConfigs)
	}
	labels := loadManifests(t).statefulSets["storcast"].Spec.Template.Labels
	kept := false
	for _, rc := range sc.RelabelConfigs {
		if rc.Action == relabel.Keep && len(rc.SourceLabels) == 1 && rc.SourceLabels[0] == "__meta_kubernetes_pod_label_app_kubernetes_io_name" {
			kept = rc.Regex.MatchString(labels["app.kubernetes.io/name"])
		}
	}
	if !kept {
		t.Errorf("the scrape job does not keep pods labelled app.kubernetes.io/name=%s", labels["app.kubernetes.io/name"])
	}
}
