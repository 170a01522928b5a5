package insideout

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Window is the host metrics of one aligned time step (already smoothed,
// see MovingAverage): Window[role][host][metric] = value. Roles are host
// groups such as "osd" or "mon"; hosts may come and go between windows.
type Window map[string]map[string]map[string]float64

// Stats are the per-(role, metric) aggregates across the hosts of a role, in
// feature order: mean, population standard deviation, sum and the 95th
// percentile (the paper's "top 5 percentile").
var Stats = []string{"mean", "std", "sum", "p95"}

// RoleMetrics lists the metrics aggregated for one role.
type RoleMetrics struct {
	Role    string   `json:"role"`
	Metrics []string `json:"metrics"`
}

// Schema fixes the layout of the feature vector: for each role in order, for
// each of its metrics in order, the four Stats. The vector's length depends
// only on the schema, never on the number of hosts.
type Schema struct {
	Roles []RoleMetrics `json:"roles"`
}

// SchemaOf returns the schema of every role and metric seen in windows,
// sorted by name.
func SchemaOf(windows []Window) Schema {
	seen := map[string]map[string]bool{}
	for _, w := range windows {
		for role, hosts := range w {
			if seen[role] == nil {
				seen[role] = map[string]bool{}
			}
			for _, metrics := range hosts {
				for m := range metrics {
					seen[role][m] = true
				}
			}
		}
	}
	var s Schema
	for role, ms := range seen {
		rm := RoleMetrics{Role: role}
		for m := range ms {
			rm.Metrics = append(rm.Metrics, m)
		}
		sort.Strings(rm.Metrics)
		if len(rm.Metrics) > 0 {
			s.Roles = append(s.Roles, rm)
		}
	}
	sort.Slice(s.Roles, func(i, j int) bool { return s.Roles[i].Role < s.Roles[j].Role })
	return s
}

// NumFeatures is 4 × the number of (role, metric) pairs.
func (s Schema) NumFeatures() int {
	n := 0
	for _, r := range s.Roles {
		n += len(r.Metrics) * len(Stats)
	}
	return n
}

// FeatureNames returns "role/metric/stat" for each feature, e.g.
// "osd/node_cpu_busy/p95".
func (s Schema) FeatureNames() []string {
	names := make([]string, 0, s.NumFeatures())
	for _, r := range s.Roles {
		for _, m := range r.Metrics {
			for _, st := range Stats {
				names = append(names, r.Role+"/"+m+"/"+st)
			}
		}
	}
	return names
}

// Validate reports an empty schema or an empty or duplicate name.
func (s Schema) Validate() error {
	if len(s.Roles) == 0 {
		return fmt.Errorf("insideout: schema: no roles")
	}
	roles := map[string]bool{}
	for _, r := range s.Roles {
		if r.Role == "" || roles[r.Role] {
			return fmt.Errorf("insideout: schema: empty or duplicate role %q", r.Role)
		}
		roles[r.Role] = true
		if len(r.Metrics) == 0 {
			return fmt.Errorf("insideout: schema: role %q has no metrics", r.Role)
		}
		ms := map[string]bool{}
		for _, m := range r.Metrics {
			if m == "" || ms[m] {
				return fmt.Errorf("insideout: schema: role %q: empty or duplicate metric %q", r.Role, m)
			}
			ms[m] = true
		}
	}
	return nil
}

// Aggregate turns one window into the feature vector of the schema. A host
// that lacks a metric, or reports NaN or ±Inf for it, is left out of that
// metric's aggregates (Prometheus gaps); a (role, metric) with no finite
// value on any host is an error naming it. Extra roles and metrics in the
// window are ignored.
func (s Schema) Aggregate(w Window) ([]float64, error) {
	return s.aggregateInto(make([]float64, 0, s.NumFeatures()), w, nil)
}

func (s Schema) aggregateInto(out []float64, w Window, buf []float64) ([]float64, error) {
	for _, r := range s.Roles {
		hosts := w[r.Role]
		if len(hosts) == 0 {
			return nil, fmt.Errorf("insideout: window: role %q has no hosts", r.Role)
		}
		for _, m := range r.Metrics {
			buf = buf[:0]
			for _, metrics := range hosts {
				v, ok := metrics[m]
				if ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
					buf = append(buf, v)
				}
			}
			if len(buf) == 0 {
				return nil, fmt.Errorf("insideout: window: role %q: metric %q has no finite value on any of %d hosts", r.Role, m, len(hosts))
			}
			mean, std, sum, p95 := aggregate(buf)
			for _, v := range [...]float64{mean, std, sum, p95} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("insideout: window: role %q: metric %q: aggregates overflow float64", r.Role, m)
				}
			}
			out = append(out, mean, std, sum, p95)
		}
	}
	return out, nil
}

// AggregateAll aggregates every window into the rows of an n×p matrix.
func (s Schema) AggregateAll(windows []Window) (*mat.Dense, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if len(windows) == 0 {
		return nil, fmt.Errorf("insideout: windows: empty")
	}
	p := s.NumFeatures()
	X := mat.NewDense(len(windows), p, nil)
	var buf []float64
	for i, w := range windows {
		row, err := s.aggregateInto(X.RawRowView(i)[:0], w, buf)
		if err != nil {
			return nil, fmt.Errorf("window %d: %w", i, err)
		}
		_ = row
	}
	return X, nil
}

// aggregate returns mean, population std, sum and the 95th percentile of v
// (linear interpolation between order statistics, numpy's default). v is
// reordered.
func aggregate(v []float64) (mean, std, sum, p95 float64) {
	// Sorting first also fixes the summation order, so the result does not
	// depend on map iteration order.
	sort.Float64s(v)
	for _, x := range v {
		sum += x
	}
	n := float64(len(v))
	mean = sum / n
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	std = math.Sqrt(ss / n)
	h := 0.95 * (n - 1)
	lo := math.Floor(h)
	hi := math.Min(lo+1, n-1)
	p95 = v[int(lo)] + (h-lo)*(v[int(hi)]-v[int(lo)])
	return
}

// MovingAverage smooths a series on aligned timestamps (seconds, strictly
// increasing) with a trailing window: out[i] is the mean of the finite
// values[j] with times[i] − window < times[j] ≤ times[i]. The paper uses a
// one-minute window (window = 60). An output with no finite input in its
// window is NaN.
func MovingAverage(times, values []float64, window float64) ([]float64, error) {
	if len(times) != len(values) {
		return nil, fmt.Errorf("insideout: values: length %d does not match %d timestamps", len(values), len(times))
	}
	if !(window > 0) || math.IsInf(window, 0) {
		return nil, fmt.Errorf("insideout: window: %v; must be finite and > 0", window)
	}
	for i := range times {
		if math.IsNaN(times[i]) || math.IsInf(times[i], 0) {
			return nil, fmt.Errorf("insideout: times: element %d is %v", i, times[i])
		}
		if i > 0 && times[i] <= times[i-1] {
			return nil, fmt.Errorf("insideout: times: not strictly increasing at element %d (%v after %v)", i, times[i], times[i-1])
		}
	}
	out := make([]float64, len(values))
	var sum float64
	var cnt int
	lo := 0
	for i, t := range times {
		if v := values[i]; !math.IsNaN(v) && !math.IsInf(v, 0) {
			sum += v
			cnt++
		}
		// lo < i: the current sample is always in its own window, also where
		// window is below the timestamps' resolution (t − window == t).
		for lo < i && times[lo] <= t-window {
			if v := values[lo]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum -= v
				cnt--
			}
			lo++
		}
		if cnt == 0 {
			out[i] = math.NaN()
			sum = 0 // drop accumulated rounding
		} else {
			out[i] = sum / float64(cnt)
		}
	}
	return out, nil
}
