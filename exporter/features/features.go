package features

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

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
	if !finite(r) || !finite(w) || !finite(rb) || !finite(wb) || r < 0 || w < 0 || r+w <= 0 {
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
	if o.IOSizeBytes <= 0 {
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
	for i := len(times) - 1; i >= 0 && i >= len(times)-maxAge; i-- {
		if o, ok := point(f, i); ok {
			o.Time = times[i]
			return o, nil
		}
		if idle(f, i) {
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
	step := f.Range.Step
	if last < 0 || step <= 0 {
		return false
	}
	k := int((window + step - 1) / step)
	if last-k < 0 {
		return false
	}
	r, w := f.Signals[source.ReadOps], f.Signals[source.WriteOps]
	for j := last - k; j <= last; j++ {
		if j >= len(r) || j >= len(w) || math.IsNaN(r[j]) || math.IsNaN(w[j]) {
			return true
		}
	}
	return false
}

// idle reports whether grid point i has both ops series present and zero.
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

// CapacityWindows returns one conservation.Window per usable grid point.
func CapacityWindows(f *source.Frame) []conservation.Window {
	n := f.Range.N()
	out := make([]conservation.Window, 0, n)
	for i := 0; i < n; i++ {
		o, ok := point(f, i)
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
// frame's grid (NaN = missing), the first two being ColIOPS and ColLatency.
func LatencyColumns(f *source.Frame) (names []string, cols [][]float64) {
	n := f.Range.N()
	iops := make([]float64, n)
	lat := make([]float64, n)
	for i := 0; i < n; i++ {
		iops[i], lat[i] = math.NaN(), math.NaN()
		if o, ok := point(f, i); ok {
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
	for _, role := range sortedKeys(f.Hosts) {
		metrics := f.Hosts[role]
		for _, m := range sortedKeys(metrics) {
			col := make([]float64, n)
			// Hosts in name order: a float sum in map order differs in its
			// last bits from run to run, and M-LISP's fit with it (two HA
			// replicas fitting one window must agree).
			hosts := sortedKeys(metrics[m])
			for i := range col {
				var sum float64
				var k int
				for _, h := range hosts {
					v := metrics[m][h]
					if i < len(v) && finite(v[i]) {
						sum += v[i]
						k++
					}
				}
				col[i] = math.NaN()
				if k > 0 {
					col[i] = sum / float64(k)
				}
			}
			names = append(names, role+"/"+m+"/mean")
			cols = append(cols, col)
		}
	}
	return names, cols
}

// HostWindows returns the Inside-Out windows of the frame (host metrics
// smoothed over smoothSeconds by insideout.MovingAverage) and the measured
// targets at the same grid points. Points where a target is missing or no
// host reports are dropped. At most maxWindows points are returned, evenly
// spaced over the frame and always including the last (0: no limit); a week
// at one-minute steps for 100 hosts would otherwise be 13 million values in
// maps.
func HostWindows(f *source.Frame, smoothSeconds float64, maxWindows int) ([]insideout.Window, map[insideout.Target][]float64, error) {
	if len(f.Hosts) == 0 {
		return nil, nil, fmt.Errorf("%w: no host metrics (configure hosts)", ErrNoData)
	}
	n := f.Range.N()
	times := f.Times()
	smoothed := map[string]map[string]map[string][]float64{} // role, metric, host
	kept, _ := HostMetrics(f)
	for role, metrics := range f.Hosts {
		smoothed[role] = map[string]map[string][]float64{}
		for m, hosts := range metrics {
			if !kept[role][m] {
				continue
			}
			smoothed[role][m] = map[string][]float64{}
			for h, v := range hosts {
				sv, err := insideout.MovingAverage(times, v, smoothSeconds)
				if err != nil {
					return nil, nil, fmt.Errorf("%s/%s/%s: %w", role, m, h, err)
				}
				smoothed[role][m][h] = sv
			}
		}
		if len(smoothed[role]) == 0 {
			delete(smoothed, role) // every metric left out: the role has nothing to say
		}
	}
	var windows []insideout.Window
	targets := map[insideout.Target][]float64{}
	stride := 1.0
	if maxWindows > 0 && n > maxWindows {
		stride = float64(n) / float64(maxWindows)
	}
	for k := 0; ; k++ {
		i := n - 1 - int(float64(k)*stride)
		if i < 0 {
			break
		}
		o, ok := point(f, i)
		if !ok {
			continue
		}
		w := insideout.Window{}
		for role, metrics := range smoothed {
			hosts := map[string]map[string]float64{}
			for m, byHost := range metrics {
				for h, v := range byHost {
					if !finite(v[i]) {
						continue
					}
					if hosts[h] == nil {
						hosts[h] = map[string]float64{}
					}
					hosts[h][m] = v[i]
				}
			}
			// A host must report every metric of its role in the window.
			for h, ms := range hosts {
				if len(ms) != len(metrics) {
					delete(hosts, h)
				}
			}
			if len(hosts) > 0 {
				w[role] = hosts
			}
		}
		if len(w) != len(smoothed) {
			continue
		}
		rb := f.Signals[source.ReadBytes][i]
		wb := f.Signals[source.WriteBytes][i]
		windows = append(windows, w)
		targets[insideout.ReadIOPS] = append(targets[insideout.ReadIOPS], o.ReadIOPS)
		targets[insideout.WriteIOPS] = append(targets[insideout.WriteIOPS], o.WriteIOPS)
		targets[insideout.ReadBytes] = append(targets[insideout.ReadBytes], rb)
		targets[insideout.WriteBytes] = append(targets[insideout.WriteBytes], wb)
	}
	// Collected newest first; the models want time order.
	for a, b := 0, len(windows)-1; a < b; a, b = a+1, b-1 {
		windows[a], windows[b] = windows[b], windows[a]
		for _, t := range targets {
			t[a], t[b] = t[b], t[a]
		}
	}
	if len(windows) == 0 {
		return nil, nil, fmt.Errorf("%w: no grid point with both host metrics and cluster signals", ErrNoData)
	}
	return windows, targets, nil
}

// HostMetrics decides which host metrics Inside-Out uses: per role, those
// that every host of the role reports (some sample in the frame). A metric
// that some host lacks altogether (a node_exporter without that collector,
// a host without the device) is left out rather than the hosts, so the
// model degrades to the metrics present instead of losing every window;
// leftOut names each one with the hosts that lack it, sorted.
func HostMetrics(f *source.Frame) (kept map[string]map[string]bool, leftOut []string) {
	kept = map[string]map[string]bool{}
	for _, role := range sortedKeys(f.Hosts) {
		metrics := f.Hosts[role]
		has := map[string]map[string]bool{} // metric -> hosts with a sample
		all := map[string]bool{}
		for m, byHost := range metrics {
			has[m] = map[string]bool{}
			for h, v := range byHost {
				for _, x := range v {
					if finite(x) {
						has[m][h], all[h] = true, true
						break
					}
				}
			}
		}
		kept[role] = map[string]bool{}
		for _, m := range sortedKeys(metrics) {
			var missing []string
			for _, h := range sortedKeys(all) {
				if !has[m][h] {
					missing = append(missing, h)
				}
			}
			switch {
			case len(all) == 0:
				leftOut = append(leftOut, fmt.Sprintf("%s/%s (no host of the role reports any metric)", role, m))
				continue
			case len(missing) == 0:
				kept[role][m] = true
				continue
			}
			if len(missing) > 3 {
				missing = append(missing[:3], fmt.Sprintf("%d more", len(missing)-3))
			}
			leftOut = append(leftOut, fmt.Sprintf("%s/%s (missing on %s)", role, m, strings.Join(missing, ", ")))
		}
	}
	return kept, leftOut
}

// Demand returns (time, total IOPS) at the usable grid points.
func Demand(f *source.Frame) (t, iops []float64) {
	times := f.Times()
	for i := range times {
		if o, ok := point(f, i); ok {
			t = append(t, times[i])
			iops = append(iops, o.IOPS)
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
// time), in time order.
func Observations(f *source.Frame) []Observed {
	times := f.Times()
	out := make([]Observed, 0, len(times))
	for i := range times {
		if o, ok := point(f, i); ok {
			o.Time = times[i]
			out = append(out, o)
		}
	}
	return out
}
