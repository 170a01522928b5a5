package features

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/insideout"
)

// ErrNoData is returned when a frame has no usable point.
var ErrNoData = errors.New("no data")

// Observed is the cluster's workload at one instant.
type Observed struct {
	Time           float64 `json:"time"` // Unix seconds of the grid point used
	ReadIOPS       float64 `json:"readIops"`
	WriteIOPS      float64 `json:"writeIops"`
	IOPS           float64 `json:"iops"`
	ReadRatio      float64 `json:"readRatio"` // by operations
	ReadSizeBytes  float64 `json:"readSizeBytes"`
	WriteSizeBytes float64 `json:"writeSizeBytes"`
	IOSizeBytes    float64 `json:"ioSizeBytes"`    // op-weighted mean
	LatencySeconds float64 `json:"latencySeconds"` // NaN when unknown
	// Idle is an observation with the ops series present and zero: no
	// demand. Its mix (ratio and sizes) is the last busy one's, zero when
	// none is known.
	Idle bool `json:"idle,omitempty"`
	// DiskMerged and DiskCompleted are the hosts' block requests per
	// second merged and completed (source.DiskMerged, DiskCompleted), the
	// workload's access type; HasDiskRequests says they were measured.
	DiskMerged      float64 `json:"diskMerged,omitempty"`
	DiskCompleted   float64 `json:"diskCompleted,omitempty"`
	HasDiskRequests bool    `json:"hasDiskRequests,omitempty"`
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// point computes the observation at grid index i; ok is false when the
// ops or bytes are missing or there is no load.
func point(f *source.Frame, i int) (Observed, bool) {
	s := f.Signals
	at := func(name string) float64 {
		v := s[name]
		if i < len(v) {
			return v[i]
		}
		return math.NaN()
	}
	r, w, rb, wb := at(source.ReadOps), at(source.WriteOps), at(source.ReadBytes), at(source.WriteBytes)
	if !finite(r) || !finite(w) || !finite(rb) || !finite(wb) || r < 0 || w < 0 || rb < 0 || wb < 0 || r+w <= 0 || !finite(r+w) {
		return Observed{}, false
	}
	o := Observed{ReadIOPS: r, WriteIOPS: w, IOPS: r + w, ReadRatio: r / (r + w), IOSizeBytes: (rb + wb) / (r + w), LatencySeconds: at(source.Latency)}
	if m, c := at(source.DiskMerged), at(source.DiskCompleted); finite(m) && finite(c) && m >= 0 && c >= 0 {
		o.DiskMerged, o.DiskCompleted, o.HasDiskRequests = m, c, true
	}
	if r > 0 {
		o.ReadSizeBytes = rb / r
	}
	if w > 0 {
		o.WriteSizeBytes = wb / w
	}
	// Sums and ratios of finite values can still overflow (1e308 ops, a
	// byte count over a vanishing op rate): such a window is no measurement,
	// and a non-finite size would reach the saved state, which JSON cannot
	// encode.
	if !(o.IOSizeBytes > 0) || !finite(o.IOSizeBytes) || !finite(o.ReadSizeBytes) || !finite(o.WriteSizeBytes) {
		return Observed{}, false
	}
	return o, true
}

// Current returns the latest observation within the last maxAge grid
// points: a busy one, or an idle one (ops present and zero) carrying the mix
// of the latest busy point of the frame. No sample within them is ErrNoData
// (a stale or absent series), naming the signals and their queries.
func Current(f *source.Frame, maxAge int) (Observed, error) {
	times := f.Times()
	// loaded: a newer point had operations whose mix cannot be measured
	// (no byte rates): the cluster is busy, and an older idle point is
	// not what it does now.
	loaded := false
	for i := len(times) - 1; i >= 0 && i >= len(times)-maxAge; i-- {
		if o, ok := point(f, i); ok {
			o.Time = times[i]
			return o, nil
		}
		if busy(f, i) {
			loaded = true
			continue
		}
		if idle(f, i) && !loaded {
			o := Observed{Time: times[i], Idle: true, LatencySeconds: math.NaN()}
			for j := i - 1; j >= 0; j-- {
				if b, ok := point(f, j); ok {
					o.WithMixOf(b)
					break
				}
			}
			return o, nil
		}
	}
	if loaded {
		return Observed{}, fmt.Errorf("%w: operations in the last %d steps but no byte rates to measure their mix (%s (%s), %s (%s))", ErrNoData, maxAge,
			source.ReadBytes, f.Queries[source.ReadBytes], source.WriteBytes, f.Queries[source.WriteBytes])
	}
	var missing []string
	for _, sig := range []string{source.ReadOps, source.WriteOps, source.ReadBytes, source.WriteBytes} {
		if _, ok := f.Last(sig, maxAge); !ok {
			missing = append(missing, fmt.Sprintf("%s (%s)", sig, f.Queries[sig]))
		}
	}
	return Observed{}, fmt.Errorf("%w: no sample in the last %d steps of %s", ErrNoData, maxAge, strings.Join(missing, ", "))
}

// WarmingUp reports whether the observation at time t was computed over a
// rate window that was not full: a grid point within window before t
// (rate()'s window, source.RateWindowOf) lacks an ops sample, because the
// counters began or resumed after a scrape gap inside that window. Such a
// rate is Prometheus' extrapolation from a part of the window (observed
// 6.0k IOPS for a true 9.6k in the minutes after a gap), so forecasts from
// it are marked and kept out of alerts. A frame that does not reach back
// a whole window cannot tell, and says no.
func WarmingUp(f *source.Frame, t float64, window time.Duration) bool {
	times := f.Times()
	last := -1
	for i, ti := range times {
		if ti == t {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	full, known := rateWindowFull(f, last, window)
	return known && !full
}

// rateWindowFull reports whether grid point i's rate window (window before
// it) holds an ops sample at every grid point; known is false when the frame
// does not reach back a whole window (or has no step), and cannot tell.
func rateWindowFull(f *source.Frame, i int, window time.Duration) (full, known bool) {
	step := f.Range.Step
	if step <= 0 {
		return false, false
	}
	k := int((window + step - 1) / step)
	if i-k < 0 {
		return false, false
	}
	r, w := f.Signals[source.ReadOps], f.Signals[source.WriteOps]
	for j := i - k; j <= i; j++ {
		if j >= len(r) || j >= len(w) || math.IsNaN(r[j]) || math.IsNaN(w[j]) {
			return false, true
		}
	}
	return true, true
}

// fitPoint is point for the models to learn from: a busy grid point whose
// rate is not known to come from part of its rate window
// (source.RateWindowOf: the counters began, or resumed after a gap, and
// Prometheus extrapolated). Such a rate reads low (6.0k IOPS for a true
// 9.6k), a low load at the latency of the real one. A point the frame
// cannot tell of (its first window) is kept.
func fitPoint(f *source.Frame, i int) (Observed, bool) {
	o, ok := point(f, i)
	if !ok {
		return o, false
	}
	full, known := rateWindowFull(f, i, source.RateWindowOf(f.Range.Step))
	return o, !known || full
}

// MeasuredLoad returns the observations with load whose rate window
// (window, source.RateWindowOf) was full: what the cluster is known to have
// served. A window whose rate Prometheus extrapolated from part of it (the
// counters began, or resumed after a gap) is left out, and so is one the
// frame cannot tell of (its first window).
func MeasuredLoad(f *source.Frame, window time.Duration) []Observed {
	times := f.Times()
	var out []Observed
	for i := range times {
		if full, _ := rateWindowFull(f, i, window); !full {
			continue
		}
		if o, ok := point(f, i); ok {
			o.Time = times[i]
			out = append(out, o)
		}
	}
	return out
}

// idle reports whether grid point i has both ops series present and zero.
// busy says whether point i has operations (finite, not negative, some).
func busy(f *source.Frame, i int) bool {
	r, w := f.Signals[source.ReadOps], f.Signals[source.WriteOps]
	return i < len(r) && i < len(w) && finite(r[i]) && finite(w[i]) && r[i] >= 0 && w[i] >= 0 && r[i]+w[i] > 0
}

func idle(f *source.Frame, i int) bool {
	r, w := f.Signals[source.ReadOps], f.Signals[source.WriteOps]
	return i < len(r) && i < len(w) && r[i] == 0 && w[i] == 0
}

// WithMixOf copies the read ratio and sizes of b (a busy observation) into
// o, keeping o's rates.
func (o *Observed) WithMixOf(b Observed) {
	o.ReadRatio, o.ReadSizeBytes, o.WriteSizeBytes, o.IOSizeBytes = b.ReadRatio, b.ReadSizeBytes, b.WriteSizeBytes, b.IOSizeBytes
}

// MixClasses returns the op classes of o's mix at a total of one op per
// second (the rates of an idle observation are zero); ok is false when the
// mix is unknown.
func MixClasses(o Observed) ([]conservation.OpClass, bool) {
	if !(o.IOSizeBytes > 0) {
		return nil, false
	}
	unit := o
	unit.ReadIOPS, unit.WriteIOPS = o.ReadRatio, 1-o.ReadRatio
	return OpClasses(unit), true
}

// OpClasses returns the read and write classes of o for conservation.
// A direction without size (no ops of it) takes the other's size: its rate is
// zero, so the size only matters for what-ifs that add that direction.
func OpClasses(o Observed) []conservation.OpClass {
	rs, ws := o.ReadSizeBytes, o.WriteSizeBytes
	if rs <= 0 {
		rs = o.IOSizeBytes
	}
	if ws <= 0 {
		ws = o.IOSizeBytes
	}
	return []conservation.OpClass{
		{Op: conservation.Read, IOSizeBytes: rs, Rate: o.ReadIOPS},
		{Op: conservation.Write, IOSizeBytes: ws, Rate: o.WriteIOPS},
	}
}

// CapacityWindows returns one conservation.Window per usable grid point
// (busy, its rate not extrapolated).
func CapacityWindows(f *source.Frame) []conservation.Window {
	n := f.Range.N()
	out := make([]conservation.Window, 0, n)
	for i := 0; i < n; i++ {
		o, ok := fitPoint(f, i)
		if !ok {
			continue
		}
		lat := o.LatencySeconds
		if !finite(lat) || lat < 0 {
			lat = 0
		}
		out = append(out, conservation.Window{IOSizeBytes: o.IOSizeBytes, ReadIOPS: o.ReadIOPS, WriteIOPS: o.WriteIOPS, LatencySeconds: lat})
	}
	return out
}

// Column names of LatencyColumns.
const (
	ColIOPS    = "iops"
	ColLatency = "latency_seconds"
)

// LatencyColumns returns M-LISP's counter table: names and columns over the
// frame's grid (NaN = missing), the first two being ColIOPS and ColLatency
// (missing where the rate was extrapolated).
func LatencyColumns(f *source.Frame) (names []string, cols [][]float64) {
	n := f.Range.N()
	iops := make([]float64, n)
	lat := make([]float64, n)
	for i := 0; i < n; i++ {
		iops[i], lat[i] = math.NaN(), math.NaN()
		if o, ok := fitPoint(f, i); ok {
			iops[i] = o.IOPS
			if finite(o.LatencySeconds) && o.LatencySeconds > 0 {
				lat[i] = o.LatencySeconds
			}
		}
	}
	names = []string{ColIOPS, ColLatency}
	cols = [][]float64{iops, lat}
	for _, s := range []string{source.ReadOps, source.WriteOps, source.ReadBytes, source.WriteBytes} {
		if v, ok := f.Signals[s]; ok {
			names = append(names, s)
			cols = append(cols, v)
		}
	}
	for _, role := range sortedKeys(f.HostStats) {
		metrics := f.HostStats[role]
		for _, m := range sortedKeys(metrics) {
			// The mean across the role's hosts of the unsmoothed values:
			// StatRawMean when the source smoothed StatMean, else StatMean.
			col, ok := metrics[m][source.StatRawMean]
			if !ok {
				col = metrics[m][source.StatMean]
			}
			if len(col) != n {
				continue
			}
			names = append(names, role+"/"+m+"/mean")
			cols = append(cols, col)
		}
	}
	return names, cols
}

// HostRows are Inside-Out's samples from a frame: feature rows laid out as
// a schema (insideout.Schema.FeatureNames) and the measured targets at the
// same grid points, in time order.
type HostRows struct {
	X       *mat.Dense
	Targets map[insideout.Target][]float64
	// Times are the rows' grid times (Unix seconds), Hosts the largest
	// role's host count at each (the most hosts reporting one of the
	// schema's metrics).
	Times []float64
	Hosts []int
}

// HostFeatures returns the Inside-Out rows of the frame under schema: at
// each grid point where the cluster's ops and bytes are known and every
// (role, metric) of the schema has its four statistics (mean, std, sum,
// p95 across the role's hosts of the host values smoothed over
// source.SmoothWindow, computed by the query engine; see
// source.HostQueries). At most maxWindows rows are returned, evenly spaced
// over the frame counting back from its last point (0: no limit); a row's
// host values are those of its grid point, never filled from a neighbour.
func HostFeatures(f *source.Frame, schema insideout.Schema, maxWindows int) (HostRows, error) {
	if len(f.HostStats) == 0 {
		return HostRows{}, fmt.Errorf("%w: no host metrics (configure hosts)", ErrNoData)
	}
	if err := schema.Validate(); err != nil {
		return HostRows{}, err
	}
	n := f.Range.N()
	times := f.Times()
	type column struct {
		stats [4][]float64
		count []float64
	}
	var cols []column
	for _, r := range schema.Roles {
		for _, m := range r.Metrics {
			st := f.HostStats[r.Role][m]
			var c column
			for k, name := range insideout.Stats {
				c.stats[k] = st[name]
				if len(c.stats[k]) != n {
					return HostRows{}, fmt.Errorf("%w: host metric %s/%s has no %s across hosts", ErrNoData, r.Role, m, name)
				}
			}
			c.count = st[source.StatCount]
			cols = append(cols, c)
		}
	}
	p := schema.NumFeatures()
	stride := 1.0
	if maxWindows > 0 && n > maxWindows {
		stride = float64(n) / float64(maxWindows)
	}
	var rows []int
	for k := 0; ; k++ {
		i := n - 1 - int(float64(k)*stride)
		if i < 0 {
			break
		}
		if _, ok := fitPoint(f, i); !ok {
			continue
		}
		usable := true
		for _, c := range cols {
			for _, v := range c.stats {
				if !finite(v[i]) {
					usable = false
				}
			}
		}
		if usable {
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 {
		return HostRows{}, fmt.Errorf("%w: no grid point with both host metrics and cluster signals", ErrNoData)
	}
	// Collected newest first; the models want time order.
	slices.Reverse(rows)
	out := HostRows{X: mat.NewDense(len(rows), p, nil), Targets: map[insideout.Target][]float64{},
		Times: make([]float64, len(rows)), Hosts: make([]int, len(rows))}
	for r, i := range rows {
		row := out.X.RawRowView(r)[:0]
		hosts := 0
		for _, c := range cols {
			for _, v := range c.stats {
				row = append(row, v[i])
			}
			if c.count != nil && finite(c.count[i]) {
				hosts = max(hosts, int(c.count[i]))
			}
		}
		o, _ := point(f, i)
		out.Times[r], out.Hosts[r] = times[i], hosts
		out.Targets[insideout.ReadIOPS] = append(out.Targets[insideout.ReadIOPS], o.ReadIOPS)
		out.Targets[insideout.WriteIOPS] = append(out.Targets[insideout.WriteIOPS], o.WriteIOPS)
		out.Targets[insideout.ReadBytes] = append(out.Targets[insideout.ReadBytes], f.Signals[source.ReadBytes][i])
		out.Targets[insideout.WriteBytes] = append(out.Targets[insideout.WriteBytes], f.Signals[source.WriteBytes][i])
	}
	return out, nil
}

// HostSchema decides which host metrics Inside-Out uses: per role, those
// that every host of the role reports at some grid point of the frame. A
// role's host count at a point is the most hosts reporting any of its
// metrics there (StatCount of each metric, from the query engine); a
// metric whose count never reaches it (a node_exporter without that
// collector, a host without the device) is left out rather than the
// hosts, so the model degrades to the metrics present instead of
// aggregating a metric over fewer hosts than its neighbours. leftOut names
// each one with how many hosts report it, sorted. Schema is empty (and
// fails Validate) when no metric is kept.
func HostSchema(f *source.Frame) (schema insideout.Schema, leftOut []string) {
	n := f.Range.N()
	for _, role := range sortedKeys(f.HostStats) {
		metrics := f.HostStats[role]
		names := sortedKeys(metrics)
		hosts := make([]float64, n) // the role's host count per point
		for _, m := range names {
			c := metrics[m][source.StatCount]
			for i := 0; i < n && i < len(c); i++ {
				if finite(c[i]) && c[i] > hosts[i] {
					hosts[i] = c[i]
				}
			}
		}
		rm := insideout.RoleMetrics{Role: role}
		for _, m := range names {
			c := metrics[m][source.StatCount]
			everyHost, most, roleMost := false, 0.0, 0.0
			for i := 0; i < n; i++ {
				roleMost = math.Max(roleMost, hosts[i])
				if i < len(c) && finite(c[i]) {
					most = math.Max(most, c[i])
					if hosts[i] > 0 && c[i] == hosts[i] {
						everyHost = true
					}
				}
			}
			switch {
			case roleMost == 0:
				leftOut = append(leftOut, fmt.Sprintf("%s/%s (no host of the role reports any metric)", role, m))
			case everyHost:
				rm.Metrics = append(rm.Metrics, m)
			default:
				leftOut = append(leftOut, fmt.Sprintf("%s/%s (reported by at most %d of %d hosts)", role, m, int(most), int(roleMost)))
			}
		}
		if len(rm.Metrics) > 0 {
			schema.Roles = append(schema.Roles, rm)
		}
	}
	return schema, leftOut
}

// Demand returns (time, total IOPS) at the usable grid points: the busy
// ones (their rate not extrapolated) and the idle ones (ops present and
// zero), whose demand is 0 — a cluster idle at night has a demand of 0 at
// night, and a trend fitted on its busy hours alone would forecast load
// there.
func Demand(f *source.Frame) (t, iops []float64) {
	times := f.Times()
	for i := range times {
		if o, ok := fitPoint(f, i); ok {
			t = append(t, times[i])
			iops = append(iops, o.IOPS)
		} else if idle(f, i) {
			t = append(t, times[i])
			iops = append(iops, 0)
		}
	}
	return t, iops
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MarshalJSON encodes an unknown (NaN) latency as null: JSON has no NaN,
// and a saved state must never fail on one.
func (o Observed) MarshalJSON() ([]byte, error) {
	type plain Observed
	v := struct {
		plain
		LatencySeconds *float64 `json:"latencySeconds"`
	}{plain: plain(o)}
	if finite(o.LatencySeconds) {
		v.LatencySeconds = &o.LatencySeconds
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads null (or an absent field) as an unknown latency.
func (o *Observed) UnmarshalJSON(data []byte) error {
	type plain Observed
	v := struct {
		*plain
		LatencySeconds *float64 `json:"latencySeconds"`
	}{plain: (*plain)(o)}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	o.LatencySeconds = math.NaN()
	if v.LatencySeconds != nil {
		o.LatencySeconds = *v.LatencySeconds
	}
	return nil
}

// Observations returns the busy observations of the frame (each with its
// time), in time order, those of an extrapolated rate left out.
func Observations(f *source.Frame) []Observed {
	times := f.Times()
	out := make([]Observed, 0, len(times))
	for i := range times {
		if o, ok := fitPoint(f, i); ok {
			o.Time = times[i]
			out = append(out, o)
		}
	}
	return out
}
