package testtool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// StartPrometheus writes config to a file and runs Debian's prometheus on
// addr (a free one when addr is "") with its TSDB in dataDir, a retention
// of 30 days (backfilled history stays queryable) and warn-level logs. It
// waits up to 90 s for /-/ready and returns the base URL, "http://"+addr.
func StartPrometheus(t testing.TB, addr, config, dataDir string) string {
	t.Helper()
	bin := Need(t, "prometheus")
	if addr == "" {
		addr = FreeAddr(t)
	}
	cfg := filepath.Join(t.TempDir(), "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Start(t, "prometheus", bin, "--config.file="+cfg, "--storage.tsdb.path="+dataDir,
		"--web.listen-address="+addr, "--storage.tsdb.retention.time=30d", "--log.level=warn")
	base := "http://" + addr
	p.WaitHTTP(base+"/-/ready", 90*time.Second)
	return base
}

// GetJSON decodes the JSON answer of GET u into v; an answer other than 200
// is an error holding its body. The request times out after 10 s.
func GetJSON(u string, v any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %s", u, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// Sample is one element of an instant query's vector.
type Sample struct {
	Metric map[string]string
	Value  float64
}

// Query runs the instant query expr on the Prometheus HTTP API at base
// (Prometheus, VictoriaMetrics, ...) at time at, or at the server's now
// when at is zero, and returns its vector.
func Query(base, expr string, at time.Time) ([]Sample, error) {
	params := url.Values{"query": {expr}}
	if !at.IsZero() {
		params.Set("time", strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', 3, 64))
	}
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := GetJSON(base+"/api/v1/query?"+params.Encode(), &r); err != nil {
		return nil, fmt.Errorf("query %s: %w", expr, err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("query %s: status %q: %s", expr, r.Status, r.Error)
	}
	if r.Data.ResultType != "vector" {
		return nil, fmt.Errorf("query %s: result type %q, want vector", expr, r.Data.ResultType)
	}
	out := make([]Sample, 0, len(r.Data.Result))
	for _, s := range r.Data.Result {
		str, _ := s.Value[1].(string)
		v, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, fmt.Errorf("query %s: value %v is not a number", expr, s.Value)
		}
		out = append(out, Sample{Metric: s.Metric, Value: v})
	}
	return out, nil
}
