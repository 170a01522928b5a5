package protocoltest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend/grpcplugin"
	"github.com/grafana/grafana-plugin-sdk-go/data"
	"github.com/grafana/grafana-plugin-sdk-go/genproto/pluginv2"
	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/grafana-plugin/pkg/storcast/storcasttest"
	"github.com/storcast/storcast/internal/testtool"
)

const pluginID = "storcast-forecast-datasource"

// pluginRoot is grafana-plugin/, repoRoot the storcast module.
var (
	pluginRoot = filepath.Join("..", "..")
	repoRoot   = filepath.Join("..", "..", "..")
)

// storcastVersion is stamped into the storcast under test, as a release
// build has one, so that CheckHealth's report of it can be checked.
const storcastVersion = "9.9.9-protocoltest"

func goBuild(t *testing.T, dir, out, pkg string, flags ...string) {
	t.Helper()
	if err := build(dir, out, pkg, flags...); err != nil {
		t.Fatal(err)
	}
}

// build is goBuild for callers without a *testing.T (the shared demo).
func build(dir, out, pkg string, flags ...string) error {
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", out, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %v\n%s", pkg, dir, err, b)
	}
	return nil
}

// demo is the package's one `storcast --demo`, shared by its tests: building
// it and waiting for its fit takes minutes. TestMain stops it.
var demo struct {
	once sync.Once
	url  string
	err  error
	logs testtool.SyncBuffer // the demo's output, written by exec's copier while a failing test reads it
	stop func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if demo.stop != nil {
		demo.stop()
	}
	os.Exit(code)
}

// startStorcast returns the URL of the storcast under test, once it serves a
// cluster whose models are all fitted: the shared demo, or a fake of the
// test's own with STORCAST_UNDER_TEST=fake.
func startStorcast(t *testing.T) (url string) {
	t.Helper()
	switch mode := os.Getenv("STORCAST_UNDER_TEST"); mode {
	case "fake":
		sc := storcasttest.New(storcasttest.Options{Version: storcastVersion})
		t.Cleanup(sc.Close)
		return sc.URL
	case "", "demo":
	default:
		t.Fatalf("STORCAST_UNDER_TEST=%q: want demo or fake", mode)
	}
	return realStorcast(t)
}

// realStorcast returns the URL of the shared demo, started on first use.
func realStorcast(t *testing.T) (url string) {
	t.Helper()
	demo.once.Do(func() { demo.url, demo.err = startDemo() })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("storcast --demo output so far:\n%s", demo.logs.String())
		}
	})
	if demo.err != nil {
		t.Fatal(demo.err)
	}
	return demo.url
}

// startDemo builds and starts `storcast --demo` and waits until it serves a
// cluster whose models are all fitted; demo.stop stops it, whatever the
// error.
func startDemo() (url string, err error) {
	dir, err := os.MkdirTemp("", "protocoltest-")
	if err != nil {
		return "", err
	}
	demo.stop = func() { os.RemoveAll(dir) }
	bin := filepath.Join(dir, "storcast")
	if err := build(repoRoot, bin, "./cmd/storcast", "-ldflags", "-X github.com/prometheus/common/version.Version="+storcastVersion); err != nil {
		return "", err
	}
	addr, err := testtool.FindFreeAddr()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(bin, "--demo", "--web.listen-address="+addr, "--log.level=warn")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &demo.logs, &demo.logs
	// A group with a guard: TestMain's stop does not run when the test
	// binary times out or is killed, and the demo must not outlive it.
	g, err := testtool.StartGroup(cmd)
	if err != nil {
		return "", err
	}
	demo.stop = func() {
		g.Stop(10 * time.Second)
		os.RemoveAll(dir)
	}
	url = "http://" + addr
	// The demo fits its models in the background; wait until every model of
	// one cluster is fitted.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if _, ok := fittedCluster(url); ok {
			return url, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("storcast --demo at %s fitted no cluster within 3 minutes", url)
		}
		select {
		case <-g.Done():
			return "", fmt.Errorf("storcast --demo exited early: %v", g.Wait())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func fittedCluster(url string) (string, bool) {
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(url + "/api/v1/clusters")
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var env struct {
		Data []apiv1.Cluster `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&env) != nil {
		return "", false
	}
	for _, c := range env.Data {
		all := len(c.Models) > 0
		for _, m := range c.Models {
			all = all && m.Fitted
		}
		if all {
			return c.Name, true
		}
	}
	return "", false
}

// provisionedSettings reads the provisioning file Grafana would read, with
// its environment variables expanded as Grafana expands them.
func provisionedSettings(t *testing.T, storcastURL string) *pluginv2.DataSourceInstanceSettings {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(pluginRoot, "provisioning", "datasources", "storcast.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	expanded := os.Expand(string(raw), func(k string) string {
		return map[string]string{"STORCAST_URL": storcastURL}[k]
	})
	var prov struct {
		Datasources []struct {
			Name           string            `yaml:"name"`
			UID            string            `yaml:"uid"`
			Type           string            `yaml:"type"`
			JSONData       map[string]any    `yaml:"jsonData"`
			SecureJSONData map[string]string `yaml:"secureJsonData"`
		} `yaml:"datasources"`
	}
	if err := yaml.Unmarshal([]byte(expanded), &prov); err != nil {
		t.Fatal(err)
	}
	if len(prov.Datasources) != 1 || prov.Datasources[0].Type != pluginID {
		t.Fatalf("provisioning file: want one %s data source, got %+v", pluginID, prov.Datasources)
	}
	ds := prov.Datasources[0]
	js, _ := json.Marshal(ds.JSONData)
	return &pluginv2.DataSourceInstanceSettings{
		Id: 1, Uid: ds.UID, Name: ds.Name, JsonData: js,
		DecryptedSecureJsonData: ds.SecureJSONData, LastUpdatedMS: time.Now().UnixMilli(),
	}
}

type pluginClients struct {
	diag     grpcplugin.DiagnosticsClient
	resource grpcplugin.ResourceClient
	data     grpcplugin.DataClient
}

// startPlugin builds the plugin and starts it as Grafana's plugin manager does.
func startPlugin(t *testing.T) pluginClients {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gpx_storcast_forecast_datasource")
	goBuild(t, pluginRoot, bin, "./pkg")
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig: goplugin.HandshakeConfig{
			ProtocolVersion:  grpcplugin.ProtocolVersion,
			MagicCookieKey:   grpcplugin.MagicCookieKey,
			MagicCookieValue: grpcplugin.MagicCookieValue,
		},
		VersionedPlugins: map[int]goplugin.PluginSet{grpcplugin.ProtocolVersion: {
			"diagnostics": &grpcplugin.DiagnosticsGRPCPlugin{},
			"resource":    &grpcplugin.ResourceGRPCPlugin{},
			"data":        &grpcplugin.DataGRPCPlugin{},
		}},
		Cmd:              exec.Command(bin),
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "plugin", Level: hclog.Warn, Output: io.Discard}),
		StartTimeout:     time.Minute,
	})
	t.Cleanup(client.Kill)
	rpc, err := client.Client()
	if err != nil {
		t.Fatalf("go-plugin handshake with %s: %v", bin, err)
	}
	if v := client.NegotiatedVersion(); v != grpcplugin.ProtocolVersion {
		t.Fatalf("negotiated protocol %d, want %d", v, grpcplugin.ProtocolVersion)
	}
	dispense := func(name string) any {
		raw, err := rpc.Dispense(name)
		if err != nil {
			t.Fatalf("dispense %s: %v", name, err)
		}
		return raw
	}
	return pluginClients{
		diag:     dispense("diagnostics").(grpcplugin.DiagnosticsClient),
		resource: dispense("resource").(grpcplugin.ResourceClient),
		data:     dispense("data").(grpcplugin.DataClient),
	}
}

func TestPluginOverGRPC(t *testing.T) {
	url := startStorcast(t)
	p := startPlugin(t)
	pctx := &pluginv2.PluginContext{OrgId: 1, PluginId: pluginID, DataSourceInstanceSettings: provisionedSettings(t, url)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// CheckHealth: version and clusters.
	h, err := p.diag.CheckHealth(ctx, &pluginv2.CheckHealthRequest{PluginContext: pctx})
	if err != nil {
		t.Fatal(err)
	}
	if h.Status != pluginv2.CheckHealthResponse_OK || !strings.HasPrefix(h.Message, "storcast "+storcastVersion+" serves ") {
		t.Fatalf("CheckHealth = %v %q", h.Status, h.Message)
	}
	var details struct {
		Version  string   `json:"version"`
		Clusters []string `json:"clusters"`
	}
	if err := json.Unmarshal(h.JsonDetails, &details); err != nil || details.Version != storcastVersion || len(details.Clusters) == 0 {
		t.Fatalf("CheckHealth details %s: %v", h.JsonDetails, err)
	}
	t.Logf("CheckHealth: %s", h.Message)

	// CallResource clusters: what fills the editor's cluster picker.
	stream, err := p.resource.CallResource(ctx, &pluginv2.CallResourceRequest{PluginContext: pctx, Method: "GET", Path: "clusters", Url: "clusters"})
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	status := 0
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if msg.Code != 0 {
			status = int(msg.Code)
		}
		body = append(body, msg.Body...)
	}
	var clusters []apiv1.Cluster
	if status != http.StatusOK || json.Unmarshal(body, &clusters) != nil || len(clusters) != len(details.Clusters) {
		t.Fatalf("clusters resource: %d %s", status, body)
	}
	cluster, ok := fittedCluster(url)
	if !ok {
		t.Fatal("no fitted cluster any more")
	}

	// QueryData: every query type, plus two that must fail alone.
	now := time.Now()
	q := func(ref, qt string, m map[string]any) *pluginv2.DataQuery {
		m["cluster"] = cluster
		js, _ := json.Marshal(m)
		return &pluginv2.DataQuery{RefId: ref, QueryType: qt, Json: js, IntervalMS: 60_000, MaxDataPoints: 1000,
			TimeRange: &pluginv2.TimeRange{FromEpochMS: now.Add(-6 * time.Hour).UnixMilli(), ToEpochMS: now.UnixMilli()}}
	}
	unknown := q("X", "latencyCurve", map[string]any{})
	unknown.Json = []byte(`{"cluster":"no-such-cluster"}`)
	resp, err := p.data.QueryData(ctx, &pluginv2.QueryDataRequest{PluginContext: pctx, Queries: []*pluginv2.DataQuery{
		q("F", "forecast", map[string]any{"series": "iops", "horizon": "1d", "step": "10m"}),
		q("L", "latencyCurve", map[string]any{}),
		q("C", "capacityCurve", map[string]any{"ioSize": "4KiB", "points": "11"}),
		q("W", "whatIf", map[string]any{"readRatio": "70%", "extraIops": "100", "hostsAdded": "1"}),
		q("B", "whatIf", map[string]any{"readRatio": "170%"}),
		unknown,
	}})
	if err != nil {
		t.Fatal(err)
	}
	frames := func(ref string) data.Frames {
		t.Helper()
		r := resp.Responses[ref]
		if r == nil {
			t.Fatalf("%s: no response", ref)
		}
		if r.Error != "" {
			t.Fatalf("%s: status %d: %s", ref, r.Status, r.Error)
		}
		fs, err := data.UnmarshalArrowFrames(r.Frames)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		return fs
	}
	col := func(f *data.Frame, name string) []float64 {
		t.Helper()
		fl, i := f.FieldByName(name)
		if i < 0 {
			t.Fatalf("frame %s has no field %s", f.Name, name)
		}
		out := make([]float64, fl.Len())
		for j := range out {
			v, ok := fl.ConcreteAt(j)
			if !ok {
				out[j] = math.NaN()
				continue
			}
			out[j] = v.(float64)
		}
		return out
	}

	// Forecast: into the future, band around the value.
	fc := frames("F")
	tf := fc[0].Fields[0]
	if tf.Len() == 0 {
		t.Fatal("forecast has no points")
	}
	if last := tf.At(tf.Len() - 1).(time.Time); last.Before(now.Add(23 * time.Hour)) {
		t.Errorf("forecast ends at %v, want about now+24h", last)
	}
	val, lo, hi := col(fc[0], "value"), col(fc[0], "lower"), col(fc[0], "upper")
	for i := range val {
		if !(lo[i] <= val[i] && val[i] <= hi[i]) {
			t.Errorf("forecast point %d: %v outside its band [%v, %v]", i, val[i], lo[i], hi[i])
			break
		}
	}
	t.Logf("forecast: %d points, last %.0f IOPS in [%.0f, %.0f]", len(val), val[len(val)-1], lo[len(lo)-1], hi[len(hi)-1])

	// Latency curve: mean inside its band, observed points, the SLO.
	lc := frames("L")
	if len(lc) != 3 {
		t.Fatalf("latency curve: %d frames", len(lc))
	}
	x, mean, llo, lhi := col(lc[0], "iops"), col(lc[0], "mean"), col(lc[0], "lower"), col(lc[0], "upper")
	if len(x) < 2 {
		t.Fatalf("latency curve has %d points", len(x))
	}
	unbounded := false // the upper bound is null (NaN here) from the capacity band's lower bound on
	for i := range x {
		up := lhi[i]
		if math.IsNaN(up) {
			up, unbounded = math.Inf(1), true
		} else if unbounded {
			t.Errorf("latency point %d at %v IOPS: a finite upper bound %v after a null one", i, x[i], up)
			break
		}
		if !(llo[i] <= mean[i] && mean[i] <= up) || mean[i] <= 0 {
			t.Errorf("latency point %d at %v IOPS: mean %v outside [%v, %v]", i, x[i], mean[i], llo[i], lhi[i])
			break
		}
	}
	if slo := col(lc[2], "slo"); slo[0] <= 0 {
		t.Errorf("SLO %v", slo)
	}

	// Capacity curve: read ratios 0..1 at the asked IO size.
	cc := frames("C")
	rr, maxI := col(cc[0], "readRatio"), col(cc[0], "maxIops")
	if len(rr) != 11 || rr[0] != 0 || rr[10] != 1 {
		t.Errorf("capacity read ratios %v", rr)
	}
	for i := range maxI {
		if !(maxI[i] > 0) {
			t.Errorf("max IOPS %v at read ratio %v", maxI[i], rr[i])
		}
	}
	if cur := col(cc[1], "readRatio")[0]; cur < 0 || cur > 1 {
		t.Errorf("current read ratio %v", cur)
	}

	// What-if: utilization is the capacity frontier's U at the workload; the
	// demo's calibration has no mixed point (no read/write interference), so
	// U is IOPS over max IOPS here.
	wf := frames("W")[0]
	iops, mx, u := col(wf, "iops")[0], col(wf, "maxIops")[0], col(wf, "utilization")[0]
	if !(mx > 0) || math.Abs(u-iops/mx) > 1e-9*math.Max(1, u) {
		t.Errorf("what-if: iops %v, max %v, utilization %v", iops, mx, u)
	}
	t.Logf("what-if: %.0f IOPS of %.0f max, utilization %.3f", iops, mx, u)

	// Errors come back per query, with statuses.
	if r := resp.Responses["B"]; r.Status != http.StatusBadRequest || !strings.Contains(r.Error, `readRatio: "170%"`) {
		t.Errorf("bad query: %d %q", r.Status, r.Error)
	}
	if r := resp.Responses["X"]; r.Status != http.StatusNotFound || !strings.Contains(r.Error, "no-such-cluster") || !strings.Contains(r.Error, cluster) {
		t.Errorf("unknown cluster: %d %q", r.Status, r.Error)
	}
}
