package plugin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/grafana-plugin/pkg/storcast/storcasttest"
)

type resourceRecorder struct{ res *backend.CallResourceResponse }

func (r *resourceRecorder) Send(res *backend.CallResourceResponse) error {
	r.res = res
	return nil
}

func callResource(t *testing.T, d *Datasource, path string) *backend.CallResourceResponse {
	t.Helper()
	rec := &resourceRecorder{}
	err := d.CallResource(context.Background(), &backend.CallResourceRequest{Method: http.MethodGet, Path: path, URL: path}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if rec.res == nil {
		t.Fatal("no resource response sent")
	}
	return rec.res
}

func TestCheckHealthReportsVersionAndClusters(t *testing.T) {
	cls := storcasttest.DefaultClusters()
	cls[1].Stale = true
	sc := storcasttest.New(storcasttest.Options{Clusters: cls, Version: "1.2.3"})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	h, err := d.CheckHealth(context.Background(), &backend.CheckHealthRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := "storcast 1.2.3 serves 2 cluster(s): ceph-a (ceph, 4/4 models fitted); swift-b (swift, 4/4 models fitted, conservation stale, insideout stale, mlisp stale, trend stale)"
	if h.Status != backend.HealthStatusOk || h.Message != want {
		t.Errorf("health = %v %q\nwant %q", h.Status, h.Message, want)
	}
	var det HealthDetails
	if err := json.Unmarshal(h.JSONDetails, &det); err != nil || det.Version != "1.2.3" || len(det.Clusters) != 2 || det.URL != sc.URL {
		t.Errorf("details = %s, %v", h.JSONDetails, err)
	}
}

func TestCheckHealthWithoutAStampedVersion(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/status/buildinfo" {
			_, _ = w.Write([]byte(`{"status":"success","data":{"version":"","revision":"","goVersion":"go1.26"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"success","data":[{"name":"demo","kind":"ceph","models":{}}]}`))
	}))
	defer srv.Close()
	h, _ := newDS(t, srv.URL, "", nil).CheckHealth(context.Background(), &backend.CheckHealthRequest{})
	if h.Status != backend.HealthStatusOk || h.Message != "storcast (unversioned build) serves 1 cluster(s): demo (ceph, 0/0 models fitted)" {
		t.Errorf("health = %v %q", h.Status, h.Message)
	}
}

func TestCheckHealthSaysWhy(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	d := newDS(t, down.URL, "", nil)
	h, _ := d.CheckHealth(context.Background(), &backend.CheckHealthRequest{})
	if h.Status != backend.HealthStatusError || !strings.Contains(h.Message, "Cannot use storcast at "+down.URL) || !strings.Contains(h.Message, "unreachable") {
		t.Errorf("down: %q", h.Message)
	}

	slow := storcasttest.New(storcasttest.Options{Delay: 3 * time.Second})
	defer slow.Close()
	d = newDS(t, slow.URL, `,"timeoutSeconds":0.2`, nil)
	h, _ = d.CheckHealth(context.Background(), &backend.CheckHealthRequest{})
	if h.Status != backend.HealthStatusError || !strings.Contains(h.Message, "did not answer in time") {
		t.Errorf("slow: %q", h.Message)
	}

	empty := storcasttest.New(storcasttest.Options{Clusters: []storcasttest.Cluster{}})
	defer empty.Close()
	d = newDS(t, empty.URL, "", nil)
	h, _ = d.CheckHealth(context.Background(), &backend.CheckHealthRequest{})
	if h.Status != backend.HealthStatusOk || !strings.Contains(h.Message, "serves no cluster yet") {
		t.Errorf("empty: %v %q", h.Status, h.Message)
	}
}

// TestURLWithPasswordIsRefused: a URL holding a user and password would be
// shown in Save & test's message and details and in errors; it is refused,
// pointing at the basic auth settings, and the password shown nowhere.
func TestURLWithPasswordIsRefused(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{BasicAuthUser: "admin", BasicAuthPassword: "s3cret"})
	defer sc.Close()
	u := strings.Replace(sc.URL, "://", "://admin:s3cret@", 1)
	d := newDS(t, u, "", nil)
	h, err := d.CheckHealth(context.Background(), &backend.CheckHealthRequest{})
	if err != nil || h.Status != backend.HealthStatusError || !strings.Contains(h.Message, "must not hold a user or password; set them in the data source's basic auth settings") ||
		strings.Contains(h.Message+string(h.JSONDetails), "s3cret") {
		t.Errorf("health: %+v, %v", h, err)
	}
	r := query(t, d, backend.DataQuery{QueryType: "latencyCurve", JSON: js(map[string]any{"cluster": "ceph-a"})})
	if r.Error == nil || r.Status != backend.StatusBadRequest || strings.Contains(r.Error.Error(), "s3cret") {
		t.Errorf("query: %d %v", r.Status, r.Error)
	}
	if n := len(sc.Requests()); n != 0 {
		t.Errorf("storcast was called %d times", n)
	}
}

func TestClustersResource(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{})
	defer sc.Close()
	d := newDS(t, sc.URL, "", nil)
	res := callResource(t, d, "clusters")
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	var cls []apiv1.Cluster
	if err := json.Unmarshal(res.Body, &cls); err != nil || len(cls) != 2 || cls[0].Name != "ceph-a" || cls[1].Kind != "swift" {
		t.Errorf("clusters = %s, %v", res.Body, err)
	}
	if !cls[0].Models["mlisp"].Fitted {
		t.Error("model status lost on the way")
	}

	res = callResource(t, d, "buildinfo")
	if res.Status != http.StatusOK || !strings.Contains(string(res.Body), `"version":"0.1.0-test"`) {
		t.Errorf("buildinfo: %d %s", res.Status, res.Body)
	}
	res = callResource(t, d, "nothing")
	if res.Status != http.StatusNotFound || !strings.Contains(string(res.Body), "have GET clusters") {
		t.Errorf("unknown resource: %d %s", res.Status, res.Body)
	}

	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	res = callResource(t, newDS(t, down.URL, "", nil), "clusters")
	if res.Status != http.StatusBadGateway || !strings.Contains(string(res.Body), `"kind":"unreachable"`) {
		t.Errorf("down: %d %s", res.Status, res.Body)
	}
}
