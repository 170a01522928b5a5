package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/storcast/storcast/exporter/apiv1"
)

// Prom answers instant and range queries with one number per timestamp.
type Prom struct {
	api promv1.API
}

// NewProm connects to a Prometheus-compatible API.
func NewProm(addr string) (*Prom, error) {
	c, err := api.NewClient(api.Config{Address: addr})
	if err != nil {
		return nil, err
	}
	return &Prom{api: promv1.NewAPI(c)}, nil
}

// Instant evaluates q at t and returns its single value; ok is false when the
// result is empty or not a number. More than one series is an error: every
// query here aggregates.
func (p *Prom) Instant(q string, t time.Time) (v float64, ok bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, _, _, err := p.api.Query(ctx, q, t)
	if err != nil {
		return 0, false, fmt.Errorf("query %q: %w", q, err)
	}
	vec, isVec := res.(model.Vector)
	if !isVec {
		return 0, false, fmt.Errorf("query %q: want a vector, got %s", q, res.Type())
	}
	switch len(vec) {
	case 0:
		return 0, false, nil
	case 1:
		f := float64(vec[0].Value)
		return f, !math.IsNaN(f) && !math.IsInf(f, 0), nil
	default:
		return 0, false, fmt.Errorf("query %q: %d series, want 1 (aggregate it)", q, len(vec))
	}
}

// Range evaluates q over [start, end] and returns timestamp -> value of its
// single series.
func (p *Prom) Range(q string, start, end time.Time, step time.Duration) (map[int64]float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, _, _, err := p.api.QueryRange(ctx, q, promv1.Range{Start: start, End: end, Step: step})
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", q, err)
	}
	m, isMatrix := res.(model.Matrix)
	if !isMatrix {
		return nil, fmt.Errorf("query %q: want a matrix, got %s", q, res.Type())
	}
	out := map[int64]float64{}
	if len(m) > 1 {
		return nil, fmt.Errorf("query %q: %d series, want 1 (aggregate it)", q, len(m))
	}
	for _, s := range m {
		for _, v := range s.Values {
			out[v.Timestamp.Unix()] = float64(v.Value)
		}
	}
	return out, nil
}

// getAPI fetches a storcast /api/v1 URL and decodes its envelope's data into out.
func getAPI(u string, out any) error {
	c := http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	return decodeEnvelope(body, out)
}

// decodeEnvelope decodes storcast's {"status":...,"data":...} envelope.
func decodeEnvelope(body []byte, out any) error {
	env, err := apiv1.ParseEnvelope(body)
	if err != nil {
		return fmt.Errorf("decoding storcast response: %v", err)
	}
	if env.Status != "success" {
		return fmt.Errorf("storcast: %s: %s", env.ErrorType, env.Error)
	}
	return json.Unmarshal(env.Data, out)
}

func capacityURL(base string, ioSize float64, points int) string {
	v := url.Values{"cluster": {clusterName}, "io_size_bytes": {fmt.Sprint(ioSize)}, "points": {fmt.Sprint(points)}}
	return base + "/api/v1/capacity_curve?" + v.Encode()
}
