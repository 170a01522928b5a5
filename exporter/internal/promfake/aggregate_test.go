package promfake

import (
	"math"
	"sort"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/insideout"
)

// TestHostAggregateIsInsideOutsAggregation: the fake's answer to the host
// statistics query source sends at a 15 s step (each host smoothed over
// the minute by a subquery, then aggregated) equals insideout's
// MovingAverage and Schema.Aggregate applied to the same per-host series,
// with a host that has a gap.
func TestHostAggregateIsInsideOutsAggregation(t *testing.T) {
	step := 15 * time.Second
	cl := &config.Cluster{Name: "a", Hosts: config.Hosts{Roles: []config.Role{{Name: "osd"}}}}
	q := source.HostQueries(cl, step)["osd"]["disk_reads"]
	per := func(h int) func(time.Time) float64 {
		return func(t time.Time) float64 {
			if h == 2 && t.Unix()%300 < 40 {
				return math.NaN() // a gap of 3 scrapes every 5 minutes
			}
			return float64(h+1) * (1 + math.Sin(float64(t.Unix())/97+float64(h)))
		}
	}
	var inner string
	out, ok := HostAggregate(q, func(in string) []Series {
		inner = in
		s := make([]Series, 5)
		for h := range s {
			s[h] = Series{Value: per(h)}
		}
		return s
	})
	if !ok || len(out) != 6 {
		t.Fatalf("%d series (ok %v), want 6 (five statistics and the raw mean)", len(out), ok)
	}
	if inner != "sum by (instance) (rate(node_disk_reads_completed_total{device!~\"dm-.*|md.*\",instance=~\".+\"}[1m]))" {
		t.Errorf("inner query %q", inner)
	}
	// A grid on multiples of the step, as the engine's (a subquery's
	// points are on multiples of its step).
	start := time.Unix(1.79e9, 0).Truncate(step)
	n := 80
	times := make([]float64, n)
	for i := range times {
		times[i] = float64(start.Add(time.Duration(i) * step).Unix())
	}
	smoothed := make([][]float64, 5)
	for h := range smoothed {
		v := make([]float64, n)
		for i := range v {
			v[i] = per(h)(time.Unix(int64(times[i]), 0))
		}
		var err error
		if smoothed[h], err = insideout.MovingAverage(times, v, 60); err != nil {
			t.Fatal(err)
		}
	}
	schema := insideout.Schema{Roles: []insideout.RoleMetrics{{Role: "osd", Metrics: []string{"m"}}}}
	byStat := map[string]func(time.Time) float64{}
	for _, s := range out {
		byStat[s.Labels["stat"]] = s.Value
	}
	for i := 3; i < n; i++ { // from the first point whose minute lies in the grid
		w := insideout.Window{"osd": {}}
		for h := range smoothed {
			if !math.IsNaN(smoothed[h][i]) {
				w["osd"][string(rune('a'+h))] = map[string]float64{"m": smoothed[h][i]}
			}
		}
		want, err := schema.Aggregate(w)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Unix(int64(times[i]), 0)
		for k, st := range insideout.Stats {
			if got := byStat[st](at); math.Abs(got-want[k]) > 1e-12*math.Abs(want[0]) {
				t.Errorf("point %d %s: %v, want %v", i, st, got, want[k])
			}
		}
		if got := byStat[source.StatCount](at); got != float64(len(w["osd"])) {
			t.Errorf("point %d count %v, want %d", i, got, len(w["osd"]))
		}
	}
	keys := make([]string, 0, len(byStat))
	for k := range byStat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if _, ok := byStat[source.StatRawMean]; !ok {
		t.Errorf("stats %v lack %s", keys, source.StatRawMean)
	}
}
