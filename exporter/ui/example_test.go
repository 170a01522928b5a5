package ui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/ui"
)

// oneCluster is a Provider with one cluster at 21,500 of 37,500 IOPS.
type oneCluster struct{}

func (oneCluster) Clusters(context.Context) []apiv1.Cluster {
	return []apiv1.Cluster{{Name: "ceph-prod", Kind: "ceph"}}
}

func (oneCluster) CapacityCurve(_ context.Context, c string, _ float64, _ int) (apiv1.CapacityCurve, error) {
	return apiv1.CapacityCurve{Cluster: c, Current: apiv1.CurrentMix{ReadRatio: 0.7, IOSizeBytes: 16384, IOPS: 21500, MaxIOPS: 37500}}, nil
}

func (oneCluster) LatencyCurve(context.Context, string) (apiv1.LatencyCurve, error) {
	return apiv1.LatencyCurve{}, fmt.Errorf("no latency model fitted yet")
}

func ExampleNewHandler() {
	rec := httptest.NewRecorder()
	ui.NewHandler(oneCluster{}).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	figure := regexp.MustCompile(`<dd class="fig-([a-z-]+)">([^<]*)</dd>`)
	for _, m := range figure.FindAllStringSubmatch(rec.Body.String(), -1) {
		fmt.Printf("%s: %s\n", m[1], m[2])
	}
	fmt.Println(regexp.MustCompile(`latency model: [^<]*`).FindString(rec.Body.String()))
	// Output:
	// iops: 21.5k
	// max-iops: 37.5k
	// headroom: 42.7%
	// read-ratio: 70.0%
	// io-size: 16 KiB
	// latency model: no latency model fitted yet
}
