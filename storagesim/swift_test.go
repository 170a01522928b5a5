package storagesim

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/statsd_exporter/pkg/mapper"
)

const swiftMapping = "../deploy/swift/statsd_exporter_mapping.yml"

func loadSwiftMapping(t *testing.T) *mapper.MetricMapper {
	t.Helper()
	m := &mapper.MetricMapper{}
	if err := m.InitFromFile(swiftMapping); err != nil {
		t.Fatalf("%s: %v", swiftMapping, err)
	}
	return m
}

// The shipped mapping, read by statsd_exporter's own mapper, turns Swift's
// StatsD names into the series the swift personality serves.
func TestSwiftMapping(t *testing.T) {
	m := loadSwiftMapping(t)
	for _, tc := range []struct {
		statsd string
		typ    mapper.MetricType
		name   string
		labels map[string]string
		obs    mapper.ObserverType
	}{
		{"swift.proxy-server.object.policy.0.GET.200.timing", mapper.MetricTypeObserver, "swift_proxy",
			map[string]string{"type": "object", "policy": "0", "method": "GET", "status": "200"}, mapper.ObserverTypeSummary},
		{"swift.proxy-server.object.PUT.201.timing", mapper.MetricTypeObserver, "swift_proxy",
			map[string]string{"type": "object", "policy": "all", "method": "PUT", "status": "201"}, mapper.ObserverTypeSummary},
		{"swift.proxy-server.object.policy.1.GET.200.first-byte.timing", mapper.MetricTypeObserver, "swift_proxy_firstbyte",
			map[string]string{"type": "object", "policy": "1", "status": "200"}, mapper.ObserverTypeHistogram},
		{"swift.proxy-server.object.GET.200.first-byte.timing", mapper.MetricTypeObserver, "swift_proxy_firstbyte",
			map[string]string{"type": "object", "policy": "all", "status": "200"}, mapper.ObserverTypeHistogram},
		{"swift.proxy-server.object.policy.0.GET.200.xfer", mapper.MetricTypeCounter, "swift_proxy_transfer",
			map[string]string{"type": "object", "policy": "0", "method": "GET", "status": "200"}, ""},
		{"swift.object-server.PUT.timing", mapper.MetricTypeObserver, "swift_storage_server",
			map[string]string{"type": "object", "method": "PUT", "status": "ok"}, mapper.ObserverTypeSummary},
		{"swift.object-server.GET.errors.timing", mapper.MetricTypeObserver, "swift_storage_server",
			map[string]string{"type": "object", "method": "GET", "status": "error"}, mapper.ObserverTypeSummary},
		{"swift.object-server.PUT.sdb1.timing", mapper.MetricTypeObserver, "swift_storage_server_by_device",
			map[string]string{"type": "object", "method": "PUT", "device": "sdb1", "status": "ok"}, mapper.ObserverTypeSummary},
	} {
		mp, labels, ok := m.GetMapping(tc.statsd, tc.typ)
		if !ok {
			t.Errorf("%s: no mapping", tc.statsd)
			continue
		}
		if mp.Name != tc.name || !reflect.DeepEqual(map[string]string(labels), tc.labels) {
			t.Errorf("%s: mapped to %s%v, want %s%v", tc.statsd, mp.Name, labels, tc.name, tc.labels)
		}
		if tc.obs != "" && mp.ObserverType != tc.obs {
			t.Errorf("%s: observer %q, want %q", tc.statsd, mp.ObserverType, tc.obs)
		}
		if tc.obs == mapper.ObserverTypeHistogram && !reflect.DeepEqual(mp.HistogramOptions.Buckets, firstByteBuckets) {
			t.Errorf("%s: buckets %v, want the simulator's %v", tc.statsd, mp.HistogramOptions.Buckets, firstByteBuckets)
		}
	}
}

// Every swift series the simulator serves is what the mapping makes of the
// StatsD metric Swift would send for it.
func TestSwiftSeriesMatchMapping(t *testing.T) {
	m := loadSwiftMapping(t)
	c := mustCluster(t, "swift", 1)
	s := c.Sample(testOrigin.Add(5 * time.Hour))
	seen := 0
	for _, tg := range s.Targets {
		if tg.Job != "swift" {
			continue
		}
		for _, se := range tg.Series {
			l := se.Labels
			var statsd string
			typ := mapper.MetricTypeObserver
			pol := ""
			if l["policy"] != "all" {
				pol = "policy." + l["policy"] + "."
			}
			switch se.Family {
			case "swift_proxy":
				statsd = "swift.proxy-server." + l["type"] + "." + pol + l["method"] + "." + l["status"] + ".timing"
			case "swift_proxy_firstbyte":
				statsd = "swift.proxy-server." + l["type"] + "." + pol + "GET." + l["status"] + ".first-byte.timing"
			case "swift_proxy_transfer":
				statsd = "swift.proxy-server." + l["type"] + "." + pol + l["method"] + "." + l["status"] + ".xfer"
				typ = mapper.MetricTypeCounter
			case "swift_storage_server":
				statsd = "swift." + l["type"] + "-server." + l["method"] + ".timing"
			default:
				t.Errorf("unexpected swift family %s", se.Family)
				continue
			}
			mp, labels, ok := m.GetMapping(statsd, typ)
			if !ok {
				t.Errorf("%s{%v}: %s has no mapping", se.Name, l, statsd)
				continue
			}
			want := map[string]string{}
			for k, v := range l {
				if k != "quantile" && k != "le" {
					want[k] = v
				}
			}
			if mp.Name != se.Family || !reflect.DeepEqual(map[string]string(labels), want) {
				t.Errorf("%s: mapping gives %s%v, simulator serves %s%v", statsd, mp.Name, labels, se.Family, want)
			}
			if obs := string(mp.ObserverType); typ == mapper.MetricTypeObserver && obs != se.Type {
				t.Errorf("%s: mapping observer %s, simulator type %s", statsd, obs, se.Type)
			}
			seen++
		}
	}
	if seen < 50 {
		t.Fatalf("only %d swift series checked", seen)
	}
}

// Object GETs and their latency follow the truth.
func TestSwiftFollowsTruth(t *testing.T) {
	c := mustCluster(t, "swift", 2)
	t0 := testOrigin.Add(30 * time.Hour)
	t1 := t0.Add(10 * time.Minute)
	s0, s1 := c.Sample(t0), c.Sample(t1)
	var reads, latOps float64
	for tt := t0; tt.Before(t1); tt = tt.Add(Tick) {
		tr := c.Truth(tt, 0)
		reads += tr.ServedIOPS.Read * tickSeconds
		latOps += tr.ServedIOPS.Read * tickSeconds * tr.Latency.Read
	}
	get := map[string]string{"type": "object", "policy": "all", "method": "GET", "status": "200"}
	n0, _ := seriesValue(s0, "statsd-exporter:9102", "swift_proxy_count", get)
	n1, _ := seriesValue(s1, "statsd-exporter:9102", "swift_proxy_count", get)
	l0, _ := seriesValue(s0, "statsd-exporter:9102", "swift_proxy_sum", get)
	l1, _ := seriesValue(s1, "statsd-exporter:9102", "swift_proxy_sum", get)
	if !near(n1-n0, reads, 0.01) {
		t.Errorf("object GETs over 10m: %v, truth %v", n1-n0, reads)
	}
	if got, want := (l1-l0)/(n1-n0), latOps/reads; !near(got, want, 0.02) {
		t.Errorf("GET latency: %v, truth %v", got, want)
	}
	// The first-byte histogram's +Inf bucket equals its count, and buckets
	// are cumulative.
	prev := -1.0
	for _, le := range []string{"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"} {
		v, ok := seriesValue(s1, "statsd-exporter:9102", "swift_proxy_firstbyte_bucket", map[string]string{"policy": "all", "le": le})
		if !ok || v < prev {
			t.Fatalf("bucket le=%s: %v (prev %v, found %v)", le, v, prev, ok)
		}
		prev = v
	}
	cnt, _ := seriesValue(s1, "statsd-exporter:9102", "swift_proxy_firstbyte_count", map[string]string{"policy": "all"})
	if cnt != prev {
		t.Errorf("+Inf bucket %v != count %v", prev, cnt)
	}
	if !strings.HasPrefix(c.Targets(t1)[1].Instance, "swift-node-") {
		t.Errorf("swift hosts named %s", c.Targets(t1)[1].Instance)
	}
}
