package ui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/ui"
)

// oneCluster is a Provider with one cluster at 21,500 of 37,500 IOPS,
// whose demand reaches the capacity in 40 days.
type oneCluster struct{}

func (oneCluster) Clusters(context.Context) []apiv1.Cluster {
	eta := 40 * 86400.0
	asOf := float64(time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC).Unix())
	return []apiv1.Cluster{{Name: "ceph-prod", Kind: "ceph", DataAsOfUnix: asOf,
		SaturationETAs: []apiv1.SaturationETA{{Limit: "max_iops", Seconds: &eta}}}}
}

func (oneCluster) CapacityCurve(_ context.Context, c string, _ float64, _ int) (apiv1.CapacityCurve, error) {
	return apiv1.CapacityCurve{Cluster: c, Current: apiv1.CurrentMix{ReadRatio: 0.7, IOSizeBytes: 16384,
		ReadSizeBytes: 4096, WriteSizeBytes: 45056, IOPS: 21500, MaxIOPS: 37500}}, nil
}

func (oneCluster) LatencyCurve(context.Context, string) (apiv1.LatencyCurve, error) {
	return apiv1.LatencyCurve{}, fmt.Errorf("no latency model fitted yet")
}

func (oneCluster) Forecast(context.Context, string, string, float64, float64, float64) (apiv1.Forecast, error) {
	return apiv1.Forecast{}, fmt.Errorf("no demand trend fitted yet")
}

func (oneCluster) RuleSets(context.Context, string) (apiv1.RuleSets, error) {
	return apiv1.RuleSets{}, fmt.Errorf("no rule-set catalog configured")
}

func ExampleNewHandler() {
	rec := httptest.NewRecorder()
	ui.NewHandler(oneCluster{}).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	figure := regexp.MustCompile(`<dd class="fig-([a-z-]+)"[^>]*>(.*?)</dd>`)
	tag := regexp.MustCompile(`<[^>]*>`)
	for _, m := range figure.FindAllStringSubmatch(rec.Body.String(), -1) {
		fmt.Printf("%s: %s\n", m[1], tag.ReplaceAllString(m[2], ""))
	}
	fmt.Println(regexp.MustCompile(`latency model: [^<]*`).FindString(rec.Body.String()))
	// Output:
	// iops: 21.5k
	// max-iops: 37.5k
	// headroom: 16k IOPS 42.7%
	// read-ratio: 70.0%
	// io-size: reads 4 KiB writes 44 KiB
	// eta: in 40 days 2027-01-03 00:00 UTC
	// latency model: no latency model fitted yet
}
