package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
)

// WhatIfCurve is what storcast's what-if API answers at today's mix for a
// growing load, asked of the storcast trained on the ramp's lower steps
// (the M-LISP snapshot's): the what-if latency at the higher steps, which
// it never saw, scored beside M-LISP's curve. Written by
// `scorer whatif-curve`, read by `scorer score -whatif`.
type WhatIfCurve struct {
	Cluster string        `json:"cluster"`
	IOPS0   float64       `json:"iops0"` // today's IOPS of that storcast (extraIops 0)
	Points  []WhatIfPoint `json:"points"`
}

// WhatIfPoint is one what-if answer: the load asked about, the latency
// band and the model that gave it ("" past capacity: no finite latency).
type WhatIfPoint struct {
	IOPS             float64 `json:"iops"`
	UtilizationRatio float64 `json:"utilizationRatio"`
	Lower            float64 `json:"lower"`
	Mean             float64 `json:"mean"`
	// Upper is null where the answer had no upper bound (the load at or
	// past the lower bound of capacity: the cluster may be saturated).
	Upper *float64 `json:"upper"`
	Model string   `json:"model"`
	Note  string   `json:"note,omitempty"`
}

// MaySaturate: the answer had no upper bound.
func (p WhatIfPoint) MaySaturate() bool { return p.Upper == nil }

// whatIfFactors are the loads asked about, in multiples of today's IOPS:
// the lower steps end at 60% of capacity, the higher ones reach it.
var whatIfFactors = func() []float64 {
	var f []float64
	for i := 0; i <= 40; i++ {
		f = append(f, 1+float64(i)/20)
	}
	return f
}()

func runWhatIfCurve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("whatif-curve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("storcast", "", "storcast URL")
	cluster := fs.String("cluster", "e2e", "cluster name")
	out := fs.String("out", "", "JSON file to write")
	timeout := fs.Duration("timeout", 60*time.Second, "for all the requests")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *base == "" || *out == "" {
		fmt.Fprintln(stderr, "scorer whatif-curve: -storcast and -out are required")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	c, err := fetchWhatIfCurve(ctx, http.DefaultClient, *base, *cluster)
	if err != nil {
		fmt.Fprintln(stderr, "scorer whatif-curve:", err)
		return 1
	}
	js, _ := json.MarshalIndent(c, "", "  ")
	if err := writeFileAtomic(*out, append(js, '\n')); err != nil {
		fmt.Fprintln(stderr, "scorer whatif-curve:", err)
		return 1
	}
	fmt.Fprintf(stdout, "what-if curve: %d points from %.0f IOPS\n", len(c.Points), c.IOPS0)
	return 0
}

// fetchWhatIfCurve asks POST /api/v1/whatif at today's mix for today's IOPS
// times each of whatIfFactors.
func fetchWhatIfCurve(ctx context.Context, client *http.Client, base, cluster string) (WhatIfCurve, error) {
	c := WhatIfCurve{Cluster: cluster}
	// The latency curve the harness waited for can be served a moment
	// before the snapshot with the capacity model and the observed mix is
	// published: ask until it answers or ctx ends.
	var now apiv1.WhatIfResult
	var last error // the last answer's error, not the deadline's
	for {
		r, err := postWhatIf(ctx, client, base, apiv1.WhatIfRequest{Cluster: cluster})
		if err == nil {
			now, last = r, nil
			break
		}
		if ctx.Err() != nil {
			if last == nil {
				last = err
			}
			break
		}
		last = err
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	if last != nil {
		return c, last
	}
	if !(now.IOPS > 0) {
		return c, fmt.Errorf("what-if of %s: today's IOPS is %v, no load to grow", cluster, now.IOPS)
	}
	c.IOPS0 = now.IOPS
	for _, f := range whatIfFactors {
		r, err := postWhatIf(ctx, client, base, apiv1.WhatIfRequest{Cluster: cluster, ExtraIOPS: (f - 1) * now.IOPS})
		if err != nil {
			return c, err
		}
		p := WhatIfPoint{IOPS: r.IOPS, UtilizationRatio: r.UtilizationRatio, Model: r.LatencyModel, Note: r.LatencyNote}
		if b := r.LatencySeconds; r.LatencyModel != "" && b.Lower != nil && b.Mean != nil {
			p.Lower, p.Mean, p.Upper = *b.Lower, *b.Mean, b.Upper
		} else {
			p.Model = "" // no finite latency: saturation
		}
		c.Points = append(c.Points, p)
	}
	return c, nil
}

func postWhatIf(ctx context.Context, client *http.Client, base string, req apiv1.WhatIfRequest) (apiv1.WhatIfResult, error) {
	var res apiv1.WhatIfResult
	body, _ := json.Marshal(req)
	hr, err := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/whatif", bytes.NewReader(body))
	if err != nil {
		return res, err
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(hr)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return res, err
	}
	if err := decodeEnvelope(data, &res); err != nil {
		return res, fmt.Errorf("what-if %s: HTTP %d: %w", body, resp.StatusCode, err)
	}
	return res, nil
}

// at interpolates the what-if latency at iops between the answers
// around it. past is true when iops lies where the what-if reports
// saturation (no finite latency) or beyond the last answer; model names
// the model of the nearer answer.
func (c *WhatIfCurve) at(iops float64) (p WhatIfPoint, past, ok bool) {
	pts := append([]WhatIfPoint(nil), c.Points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].IOPS < pts[j].IOPS })
	if len(pts) == 0 || math.IsNaN(iops) {
		return p, false, false
	}
	if iops <= pts[0].IOPS {
		return pts[0], pts[0].Model == "", true
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if iops > b.IOPS {
			continue
		}
		if a.Model == "" || b.Model == "" {
			// Past capacity at b: the what-if's answer there is saturation.
			near := a
			if iops-a.IOPS > b.IOPS-iops {
				near = b
			}
			return near, near.Model == "", true
		}
		w := (iops - a.IOPS) / (b.IOPS - a.IOPS)
		mix := func(x, y float64) float64 { return x + w*(y-x) }
		near := a.Model
		if w > 0.5 {
			near = b.Model
		}
		return WhatIfPoint{IOPS: iops, UtilizationRatio: mix(a.UtilizationRatio, b.UtilizationRatio),
			Lower: mix(a.Lower, b.Lower), Mean: mix(a.Mean, b.Mean), Upper: mixUpper(a.Upper, b.Upper, w), Model: near}, false, true
	}
	last := pts[len(pts)-1]
	return last, true, true
}

// readWhatIfCurve reads the file of `scorer whatif-curve`; without it, the
// string says why.
func readWhatIfCurve(path string) (*WhatIfCurve, string) {
	if path == "" {
		return nil, "not run"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err.Error()
	}
	var c WhatIfCurve
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Sprintf("%s: %v", path, err)
	}
	if len(c.Points) == 0 {
		return nil, fmt.Sprintf("%s: no what-if answers", path)
	}
	return &c, ""
}
