package storagesim

import (
	"embed"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/internal/duration"
	"github.com/storcast/storcast/internal/yamlstrict"
)

//go:embed scenarios/*.yml
var shippedScenarios embed.FS

// Personality says which storage system's exporter the simulator imitates.
const (
	PersonalityCeph  = "ceph"
	PersonalitySwift = "swift"
)

// Scenario is one simulated cluster and its workload over time. It is read
// from YAML (see scenarios/*.yml); every field is documented there and in the
// README. Durations are read by ParseDuration; sizes are bytes or
// "4KiB"/"1MiB".
type Scenario struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Personality is "ceph" (ceph-mgr prometheus module) or "swift"
	// (statsd_exporter fed by Swift's StatsD metrics).
	Personality string       `yaml:"personality"`
	Cluster     ClusterSpec  `yaml:"cluster"`
	Capacity    CapacitySpec `yaml:"capacity"`
	Latency     LatencySpec  `yaml:"latency"`
	Load        LoadSpec     `yaml:"load"`
	Events      []Event      `yaml:"events"`
	Noise       NoiseSpec    `yaml:"noise"`
	Faults      FaultSpec    `yaml:"faults"`
	Host        HostSpec     `yaml:"host"`
	Clients     ClientSpec   `yaml:"clients"`
	SLOSeconds  float64      `yaml:"slo_seconds"`
	source      string       // file name or "shipped:<name>", for error messages
	sizes       []float64    // capacity sizes in bytes, ascending
	events      []timedEvent // Events, sorted and resolved
	mix0        []float64    // initial op share per size index
	gamma       []float64    // read/write interference per size index (nil: none)
}

// ClusterSpec is the topology at the scenario's origin.
type ClusterSpec struct {
	Hosts       int    `yaml:"hosts"`
	OSDsPerHost int    `yaml:"osds_per_host"`
	DeviceClass string `yaml:"device_class"`
	Replication int    `yaml:"replication"`
	Pools       []Pool `yaml:"pools"`
	// HostPrefix names the hosts: prefix + 1, 2, ... (default
	// "<personality>-node-").
	HostPrefix string `yaml:"host_prefix"`
}

// Pool is a Ceph pool (or a Swift storage policy) and its share of the ops.
type Pool struct {
	ID    int     `yaml:"id"`
	Name  string  `yaml:"name"`
	Share float64 `yaml:"share"`
	// StoredBytes at the origin; grows with written bytes.
	StoredBytes ByteSize `yaml:"stored_bytes"`
}

// CapacitySpec is the ground truth: saturated IOPS of the cluster at its
// origin topology, per IO size, at 100% read and at 100% write.
type CapacitySpec struct {
	Points []CapacityPoint `yaml:"points"`
	// ConservationDeviation d bends the conservation law: at read share r the
	// work per op is (1 + 4·d·r·(1−r)) times what conservation predicts, so
	// pure read and pure write points stay exact and a 50/50 mix loses the
	// most. 0 means conservation holds exactly.
	ConservationDeviation float64 `yaml:"conservation_deviation"`
	// OSDCapacitySpread is the relative spread of per-OSD weight (share of
	// placement groups); 0 gives identical OSDs.
	OSDWeightSpread float64 `yaml:"osd_weight_spread"`
	// Interference, when set, replaces the conservation law by a frontier
	// with read/write and between-size interaction terms (see doc.go).
	Interference *InterferenceSpec `yaml:"interference"`
}

// InterferenceSpec bends the conservation law the way mixed workloads do on
// real clusters. With a_S = read IOPS of size S / read_iops(S) and b_S =
// write IOPS of size S / write_iops(S), the capacity utilization is
//
//	U = Σ_S (a_S + b_S + 4·γ_S·a_S·b_S) + 4·η·Σ_{S<S'} (a_S + b_S)(a_S' + b_S')
//
// with γ_S = read_write[S] and η = between_sizes; the cluster saturates at
// U = 1. Pure-read and pure-write single-size points stay exact; a 50/50
// mix loses the most.
type InterferenceSpec struct {
	// ReadWrite maps IO size to γ, in [0, 1]; sizes left out have γ = 0.
	ReadWrite map[string]float64 `yaml:"read_write"`
	// BetweenSizes is η, in [0, 1].
	BetweenSizes float64 `yaml:"between_sizes"`
}

// ClientSpec chooses how clients offer load and so how latency grows with
// it. Left out, the legacy curve of LatencySpec applies.
type ClientSpec struct {
	// Loop is "open" (requests arrive regardless of completions: load is
	// load.base_iops) or "closed" (each of count clients keeps queue_depth
	// requests outstanding: the load is the number outstanding).
	Loop string `yaml:"loop"`
	// Shape of an open loop's latency multiplier against frontier
	// utilization U: "md1" is the M/D/1 mean response 1 + U/(2(1−U));
	// "hockey_stick" is 1 + U^exponent/(1−U), flat longer and steeper at
	// the end. Default md1. A closed loop refuses both: its latency is the
	// exact MVA of the OSDs' queueing network (mva.go).
	Shape    string  `yaml:"shape"`
	Exponent float64 `yaml:"exponent"`
	// Count clients with QueueDepth outstanding requests each (closed loop
	// only); growth, diurnal and load_step events scale the count.
	Count      float64 `yaml:"count"`
	QueueDepth float64 `yaml:"queue_depth"`
}

// CapacityPoint is the saturated IOPS of one IO size.
type CapacityPoint struct {
	Size      ByteSize `yaml:"size"`
	ReadIOPS  float64  `yaml:"read_iops"`
	WriteIOPS float64  `yaml:"write_iops"`
}

// LatencySpec is the queueing curve. An op class (read or write at size S)
// has a zero-load latency L0 = base + S/MiB·per_mib. At offered utilization
// ρ the latency is L0/(1 − sρ) up to ρ = 1, with s = 1 − 1/knee_factor so
// that L(1) = knee_factor·L0 (the knee); beyond saturation closed-loop
// clients queue and L grows linearly: L = knee_factor·L0·ρ.
type LatencySpec struct {
	ReadBase   Duration `yaml:"read_base"`
	WriteBase  Duration `yaml:"write_base"`
	PerMiB     Duration `yaml:"per_mib"`
	KneeFactor float64  `yaml:"knee_factor"`
}

// LoadSpec is the offered load at the origin and its shape over time.
type LoadSpec struct {
	// BaseIOPS is the offered client IOPS at the origin (before diurnal).
	BaseIOPS  float64 `yaml:"base_iops"`
	ReadRatio float64 `yaml:"read_ratio"`
	// Mix maps IO size to share of operations; sizes must be capacity points.
	Mix    map[string]float64 `yaml:"mix"`
	Growth GrowthSpec         `yaml:"growth"`
	// Diurnal is a daily cycle of demand: the offered load is multiplied
	// by 1 + amplitude·level(h).
	Diurnal DailyCycle `yaml:"diurnal"`
	// ReadRatioDiurnal is a daily cycle of the mix, amplitude·level(h)
	// added to the read ratio that events set (the sum clamped to [0, 1]):
	// real clusters' mix moves with the hour (nightly ingest, daytime
	// reads), which a trend of the mix must not take for a drift.
	ReadRatioDiurnal DailyCycle `yaml:"read_ratio_diurnal"`
	// SequentialShare is the share of the OSD disks' block requests that
	// continue where the previous one ended, which the kernel merges:
	// node_exporter's merged counters are merged = completed·q/(1−q), so
	// merged/(merged+completed) = q, the access-type proxy storcast reads.
	SequentialShare float64 `yaml:"sequential_share"`
}

// GrowthSpec is a trend on the offered load: linear multiplies by
// 1 + per_day·days, exponential by (1 + per_day)^days.
type GrowthSpec struct {
	Kind   string  `yaml:"kind"`
	PerDay float64 `yaml:"per_day"`
}

// DailyCycle is a daily cycle of demand or of the read ratio, by the UTC
// hour of day h. Its level is cos(2π(h − peak_hour)/24) (shape cosine, the
// default), or, shape square, +1 for a window of `hours` hours centred on
// peak_hour (default 12: the cosine's sign) and −1 for the rest of the day,
// switching at once: business hours, a nightly batch or backup window,
// which a fit of a few daily harmonics does not hold (a narrow window's
// top least of all).
type DailyCycle struct {
	Amplitude float64 `yaml:"amplitude"`
	PeakHour  float64 `yaml:"peak_hour"`
	Shape     string  `yaml:"shape"`
	Hours     float64 `yaml:"hours"`
}

// level is the cycle's level at hour of day h, in [−1, 1].
func (d DailyCycle) level(h float64) float64 {
	if d.Shape != "square" {
		return math.Cos(2 * math.Pi * (h - d.PeakHour) / 24)
	}
	width := d.Hours
	if width == 0 {
		width = 12
	}
	// the hour's distance from the peak hour around the clock, in [0, 12]
	if off := math.Abs(math.Mod(h-d.PeakHour+36, 24) - 12); off <= width/2 {
		return 1
	}
	return -1
}

// validate checks the cycle, naming its fields under name; amplitudes
// must lie in [0, most) ([0, most] when closed).
func (d DailyCycle) validate(name string, most float64, closed bool) error {
	if a := d.Amplitude; !(a >= 0 && (a < most || closed && a == most)) {
		bracket := ")"
		if closed {
			bracket = "]"
		}
		return fmt.Errorf("%s.amplitude: %g, must be in [0, %g%s", name, a, most, bracket)
	}
	if h := d.PeakHour; !(h >= 0 && h < 24) {
		return fmt.Errorf("%s.peak_hour: %g, must be in [0, 24)", name, h)
	}
	if sh := d.Shape; sh != "" && sh != "cosine" && sh != "square" {
		return fmt.Errorf("%s.shape: %q is not one of cosine, square", name, sh)
	}
	if d.Hours != 0 && d.Shape != "square" {
		return fmt.Errorf("%s.hours: %g set for a cosine cycle; only a square cycle has a window", name, d.Hours)
	}
	if h := d.Hours; !(h >= 0 && h < 24) {
		return fmt.Errorf("%s.hours: %g, must be in (0, 24)", name, h)
	}
	return nil
}

// Event changes the workload or the cluster at a time after the origin.
// Exactly one of the change fields is set.
type Event struct {
	// At is rounded up to a whole 5 s tick from the origin (the simulation's
	// resolution), and so is a noisy neighbour's duration.
	At Duration `yaml:"at"`
	// Ramp spreads a load_step, read_ratio or mix change linearly over this
	// duration (0: instant).
	Ramp           Duration           `yaml:"ramp"`
	LoadStep       float64            `yaml:"load_step"`
	ReadRatio      *float64           `yaml:"read_ratio"`
	Mix            map[string]float64 `yaml:"mix"`
	AddHosts       int                `yaml:"add_hosts"`
	RemoveHosts    int                `yaml:"remove_hosts"`
	NoisyNeighbour *NoisyNeighbour    `yaml:"noisy_neighbour"`
}

// NoisyNeighbour takes a fraction of the cluster's capacity (seen as CPU
// steal on the hosts) for a while.
type NoisyNeighbour struct {
	Duration     Duration `yaml:"duration"`
	CapacityLoss float64  `yaml:"capacity_loss"`
}

// NoiseSpec holds relative standard deviations of the measurement noise.
type NoiseSpec struct {
	Rate    float64 `yaml:"rate"`
	Latency float64 `yaml:"latency"`
	Host    float64 `yaml:"host"`
}

// FaultSpec sets the rate of daemon restarts (counter resets) and of scrape
// gaps (a target answers 503 for a while).
type FaultSpec struct {
	RestartsPerOSDPerDay float64  `yaml:"restarts_per_osd_per_day"`
	ScrapeGapsPerDay     float64  `yaml:"scrape_gaps_per_day"`
	ScrapeGapDuration    Duration `yaml:"scrape_gap_duration"`
}

// HostSpec shapes the node_exporter series.
type HostSpec struct {
	CPUs             int      `yaml:"cpus"`
	MemoryBytes      ByteSize `yaml:"memory_bytes"`
	CPUSecondsPerOp  float64  `yaml:"cpu_seconds_per_op"`
	CPUSecondsPerMiB float64  `yaml:"cpu_seconds_per_mib"`
	IdleCPU          float64  `yaml:"idle_cpu"`
	// CPUModel is "linear" (busy = demand, the default) or "saturating": a
	// CPU-bound host whose busy time bends toward 1 as demand grows, whose
	// load average keeps rising with the demand and whose iowait follows a
	// power of the cluster's utilization instead of the busy time.
	CPUModel string `yaml:"cpu_model"`
	// IOWaitMax is the iowait share of CPU time at utilization 1 and
	// IOWaitExponent its power (saturating only; defaults 0.2 and 3).
	IOWaitMax      float64 `yaml:"iowait_max"`
	IOWaitExponent float64 `yaml:"iowait_exponent"`
}

type timedEvent struct {
	at time.Duration
	Event
	mix []float64
}

// Duration is a time.Duration read from YAML as "90s", "6h" or "7d".
type Duration time.Duration

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := ParseDuration(s)
	if err != nil {
		return &valueError{line: n.Line, column: n.Column, err: err}
	}
	*d = Duration(v)
	return nil
}

// valueError is a bad scalar; ParseScenario turns its position into the
// field's path.
type valueError struct {
	line, column int
	err          error
}

func (e *valueError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }

// fieldPath finds the dotted path ("capacity.points[0].size") of the value at
// line:column in a YAML document.
func fieldPath(n *yaml.Node, line, column int, prefix string) (string, bool) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p, ok := fieldPath(c, line, column, prefix); ok {
				return p, true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if prefix != "" {
				p = prefix + "." + k.Value
			}
			if v.Line == line && v.Column == column {
				return p, true
			}
			if r, ok := fieldPath(v, line, column, p); ok {
				return r, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", prefix, i)
			if c.Line == line && c.Column == column {
				return p, true
			}
			if r, ok := fieldPath(c, line, column, p); ok {
				return r, true
			}
		}
	}
	return "", false
}

// ParseDuration reads storcast's one duration syntax (internal/duration):
// Prometheus's ("7d", "1d12h", "2w"), Go's ("90s", "1.5h") and a day count
// with a fraction ("1.5d", "1.5d6h").
func ParseDuration(s string) (time.Duration, error) {
	d, err := duration.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	return d, nil
}

// ByteSize is a size in bytes read from YAML as an integer or "4KiB", "1MiB",
// "2GiB", "1TiB".
type ByteSize float64

// UnmarshalYAML implements yaml.Unmarshaler.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := ParseByteSize(s)
	if err != nil {
		return &valueError{line: n.Line, column: n.Column, err: err}
	}
	*b = ByteSize(v)
	return nil
}

// ParseByteSize reads "4096", "4KiB", "1MiB", "2GiB" or "1TiB".
func ParseByteSize(s string) (float64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}}
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) { // !(v >= 0) also refuses NaN
		return 0, fmt.Errorf("invalid size %q (want bytes or a number with KiB, MiB, GiB, TiB)", s)
	}
	return v * mult, nil
}

// ScenarioNames lists the shipped scenarios.
func ScenarioNames() []string {
	ents, _ := shippedScenarios.ReadDir("scenarios")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".yml"))
	}
	sort.Strings(names)
	return names
}

// LoadScenario loads a shipped scenario by name ("steady") or a YAML file by
// path (anything containing a "/" or ending in .yml/.yaml).
func LoadScenario(nameOrPath string) (*Scenario, error) {
	if !strings.ContainsRune(nameOrPath, '/') && !strings.HasSuffix(nameOrPath, ".yml") && !strings.HasSuffix(nameOrPath, ".yaml") {
		data, err := shippedScenarios.ReadFile(path.Join("scenarios", nameOrPath+".yml"))
		if err != nil {
			return nil, fmt.Errorf("scenario %q: not a shipped scenario (have %s) and not a file path", nameOrPath, strings.Join(ScenarioNames(), ", "))
		}
		return ParseScenario(data, nameOrPath)
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", nameOrPath, err)
	}
	return ParseScenario(data, nameOrPath)
}

// ParseScenario decodes and validates a scenario. Decoding is strict
// (internal/yamlstrict): no document, a second document or an unknown field
// is an error. source names the input in error messages.
func ParseScenario(data []byte, source string) (*Scenario, error) {
	sc := &Scenario{}
	if err := yamlstrict.Decode(data, sc); err != nil {
		if errors.Is(err, yamlstrict.ErrEmpty) || errors.Is(err, yamlstrict.ErrMoreDocuments) {
			return nil, fmt.Errorf("scenario %s: %w", source, err)
		}
		var ve *valueError
		if errors.As(err, &ve) {
			var root yaml.Node
			if yaml.Unmarshal(data, &root) == nil {
				if p, ok := fieldPath(&root, ve.line, ve.column, ""); ok {
					return nil, fmt.Errorf("scenario %s: %s (line %d): %w", source, p, ve.line, ve.err)
				}
			}
		}
		return nil, fmt.Errorf("scenario %s: %s", source, yamlstrict.Message(err))
	}
	sc.source = source
	if err := sc.validate(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", source, err)
	}
	return sc, nil
}

func (sc *Scenario) defaults() {
	if sc.Personality == "" {
		sc.Personality = PersonalityCeph
	}
	if sc.Cluster.DeviceClass == "" {
		sc.Cluster.DeviceClass = "ssd"
	}
	if sc.Cluster.Replication == 0 {
		sc.Cluster.Replication = 3
	}
	if sc.Cluster.HostPrefix == "" {
		sc.Cluster.HostPrefix = sc.Personality + "-node-"
	}
	if len(sc.Cluster.Pools) == 0 {
		sc.Cluster.Pools = []Pool{{ID: 1, Name: "rbd", Share: 1}}
	}
	if sc.Latency.KneeFactor == 0 {
		sc.Latency.KneeFactor = 20
	}
	if sc.Latency.ReadBase == 0 {
		sc.Latency.ReadBase = Duration(time.Millisecond)
	}
	if sc.Latency.WriteBase == 0 {
		sc.Latency.WriteBase = Duration(3 * time.Millisecond)
	}
	if sc.Load.Growth.Kind == "" {
		sc.Load.Growth.Kind = "linear"
	}
	if sc.Faults.ScrapeGapDuration == 0 {
		sc.Faults.ScrapeGapDuration = Duration(2 * time.Minute)
	}
	if sc.Host.CPUs == 0 {
		sc.Host.CPUs = 4
	}
	if sc.Host.MemoryBytes == 0 {
		sc.Host.MemoryBytes = 64 << 30
	}
	if sc.Host.IdleCPU == 0 {
		sc.Host.IdleCPU = 0.03
	}
	if sc.SLOSeconds == 0 {
		sc.SLOSeconds = 0.02
	}
	if sc.Host.CPUModel == "" {
		sc.Host.CPUModel = "linear"
	}
	if sc.Host.CPUModel == "saturating" {
		if sc.Host.IOWaitMax == 0 {
			sc.Host.IOWaitMax = 0.2
		}
		if sc.Host.IOWaitExponent == 0 {
			sc.Host.IOWaitExponent = 3
		}
	}
	if sc.Clients.Loop == "open" && sc.Clients.Shape == "" {
		sc.Clients.Shape = "md1"
	}
}

func (sc *Scenario) validate() error {
	sc.defaults()
	if sc.Name == "" {
		return errors.New("name: must be set")
	}
	if sc.Personality != PersonalityCeph && sc.Personality != PersonalitySwift {
		return fmt.Errorf("personality: %q is not one of ceph, swift", sc.Personality)
	}
	for _, step := range []func() error{sc.validateCluster, sc.validateCapacity, sc.validateLatency, sc.validateLoad, sc.validateNoiseAndFaults, sc.validateHost} {
		if err := step(); err != nil {
			return err
		}
	}
	if !(sc.SLOSeconds > 0) {
		return fmt.Errorf("slo_seconds: %g, must be > 0", sc.SLOSeconds)
	}
	return sc.resolveEvents()
}

// validateCluster checks the topology and the pools.
func (sc *Scenario) validateCluster() error {
	c := &sc.Cluster
	if c.Hosts < 1 {
		return fmt.Errorf("cluster.hosts: %d, must be at least 1", c.Hosts)
	}
	if c.OSDsPerHost < 1 {
		return fmt.Errorf("cluster.osds_per_host: %d, must be at least 1", c.OSDsPerHost)
	}
	if c.Replication < 1 {
		return fmt.Errorf("cluster.replication: %d, must be at least 1", c.Replication)
	}
	var shareSum float64
	seen := map[int]bool{}
	for i, p := range c.Pools {
		if p.Name == "" {
			return fmt.Errorf("cluster.pools[%d].name: must be set", i)
		}
		if seen[p.ID] {
			return fmt.Errorf("cluster.pools[%d].id: %d is used twice", i, p.ID)
		}
		seen[p.ID] = true
		if !(p.Share > 0) {
			return fmt.Errorf("cluster.pools[%d].share: %g, must be > 0", i, p.Share)
		}
		shareSum += p.Share
	}
	if math.Abs(shareSum-1) > 1e-6 {
		return fmt.Errorf("cluster.pools: shares sum to %g, must sum to 1", shareSum)
	}
	return nil
}

// validateCapacity checks the capacity points and the interference, and
// records the calibrated sizes.
func (sc *Scenario) validateCapacity() error {
	if len(sc.Capacity.Points) == 0 {
		return errors.New("capacity.points: at least one point is required")
	}
	sort.SliceStable(sc.Capacity.Points, func(i, j int) bool { return sc.Capacity.Points[i].Size < sc.Capacity.Points[j].Size })
	sc.sizes = sc.sizes[:0]
	for i, p := range sc.Capacity.Points {
		if !(p.Size > 0) {
			return fmt.Errorf("capacity.points[%d].size: must be > 0", i)
		}
		if i > 0 && sc.Capacity.Points[i-1].Size == p.Size {
			return fmt.Errorf("capacity.points[%d].size: %s is listed twice", i, fmtSize(float64(p.Size)))
		}
		if !(p.ReadIOPS > 0) || math.IsInf(p.ReadIOPS, 0) {
			return fmt.Errorf("capacity.points[%d].read_iops: %g, must be > 0", i, p.ReadIOPS)
		}
		if !(p.WriteIOPS > 0) || math.IsInf(p.WriteIOPS, 0) {
			return fmt.Errorf("capacity.points[%d].write_iops: %g, must be > 0", i, p.WriteIOPS)
		}
		sc.sizes = append(sc.sizes, float64(p.Size))
	}
	if d := sc.Capacity.ConservationDeviation; d < 0 || d > 1 {
		return fmt.Errorf("capacity.conservation_deviation: %g, must be in [0, 1]", d)
	}
	if err := sc.validateInterference(); err != nil {
		return err
	}
	if s := sc.Capacity.OSDWeightSpread; s < 0 || s >= 1 {
		return fmt.Errorf("capacity.osd_weight_spread: %g, must be in [0, 1)", s)
	}
	return nil
}

// validateLatency checks the latency curve and the client model.
func (sc *Scenario) validateLatency() error {
	if sc.Latency.KneeFactor <= 1 {
		return fmt.Errorf("latency.knee_factor: %g, must be > 1", sc.Latency.KneeFactor)
	}
	if sc.Latency.ReadBase < 0 || sc.Latency.WriteBase < 0 || sc.Latency.PerMiB < 0 {
		return errors.New("latency: durations must not be negative")
	}
	if err := sc.validateClients(); err != nil {
		return err
	}
	return nil
}

// validateLoad checks the offered load: level, mix, growth, daily cycle.
func (sc *Scenario) validateLoad() error {
	l := &sc.Load
	if sc.Clients.Loop == "closed" {
		if l.BaseIOPS != 0 {
			return fmt.Errorf("load.base_iops: %g, must not be set when clients.loop is closed (the load is clients.count × clients.queue_depth outstanding requests)", l.BaseIOPS)
		}
	} else if !(l.BaseIOPS > 0) {
		return fmt.Errorf("load.base_iops: %g, must be > 0", l.BaseIOPS)
	}
	if l.ReadRatio < 0 || l.ReadRatio > 1 {
		return fmt.Errorf("load.read_ratio: %g, must be in [0, 1]", l.ReadRatio)
	}
	if !(l.SequentialShare >= 0 && l.SequentialShare < 1) {
		return fmt.Errorf("load.sequential_share: %g, must be in [0, 1) (1 would be requests merged without end)", l.SequentialShare)
	}
	mix, err := sc.parseMix(l.Mix, "load.mix")
	if err != nil {
		return err
	}
	sc.mix0 = mix
	if l.Growth.Kind != "linear" && l.Growth.Kind != "exponential" {
		return fmt.Errorf("load.growth.kind: %q is not one of linear, exponential", l.Growth.Kind)
	}
	if l.Growth.PerDay <= -1 {
		return fmt.Errorf("load.growth.per_day: %g, must be > -1", l.Growth.PerDay)
	}
	if err := l.Diurnal.validate("load.diurnal", 1, false); err != nil {
		return err
	}
	return l.ReadRatioDiurnal.validate("load.read_ratio_diurnal", 0.5, true)
}

// validateNoiseAndFaults checks the noise levels and the fault rates.
func (sc *Scenario) validateNoiseAndFaults() error {
	for _, n := range []struct {
		name string
		v    float64
	}{{"noise.rate", sc.Noise.Rate}, {"noise.latency", sc.Noise.Latency}, {"noise.host", sc.Noise.Host}} {
		if n.v < 0 || n.v > 0.5 {
			return fmt.Errorf("%s: %g, must be in [0, 0.5]", n.name, n.v)
		}
	}
	if sc.Faults.RestartsPerOSDPerDay < 0 {
		return fmt.Errorf("faults.restarts_per_osd_per_day: %g, must be >= 0", sc.Faults.RestartsPerOSDPerDay)
	}
	if sc.Faults.ScrapeGapsPerDay < 0 {
		return fmt.Errorf("faults.scrape_gaps_per_day: %g, must be >= 0", sc.Faults.ScrapeGapsPerDay)
	}
	if g := time.Duration(sc.Faults.ScrapeGapDuration); g < 0 || g > time.Hour {
		return fmt.Errorf("faults.scrape_gap_duration: %s, must be in [0, 1h]", g)
	}
	return nil
}

// validateHost checks the hosts' CPU model.
func (sc *Scenario) validateHost() error {
	if sc.Host.CPUs < 1 || sc.Host.CPUs > 256 {
		return fmt.Errorf("host.cpus: %d, must be in [1, 256]", sc.Host.CPUs)
	}
	if sc.Host.CPUSecondsPerOp < 0 || sc.Host.CPUSecondsPerMiB < 0 {
		return errors.New("host: cpu_seconds_per_op and cpu_seconds_per_mib must not be negative")
	}
	if sc.Host.IdleCPU < 0 || sc.Host.IdleCPU >= 1 {
		return fmt.Errorf("host.idle_cpu: %g, must be in [0, 1)", sc.Host.IdleCPU)
	}
	switch sc.Host.CPUModel {
	case "linear":
		if sc.Host.IOWaitMax != 0 || sc.Host.IOWaitExponent != 0 {
			return errors.New("host: iowait_max and iowait_exponent apply only to cpu_model saturating")
		}
	case "saturating":
		if w := sc.Host.IOWaitMax; w < 0 || w >= 1 {
			return fmt.Errorf("host.iowait_max: %g, must be in [0, 1)", w)
		}
		if e := sc.Host.IOWaitExponent; !(e >= 1) || e > 10 {
			return fmt.Errorf("host.iowait_exponent: %g, must be in [1, 10]", e)
		}
	default:
		return fmt.Errorf("host.cpu_model: %q is not one of linear, saturating", sc.Host.CPUModel)
	}
	return nil
}

// validateInterference checks capacity.interference and resolves its sizes.
func (sc *Scenario) validateInterference() error {
	sc.gamma = nil
	in := sc.Capacity.Interference
	if in == nil {
		return nil
	}
	if sc.Capacity.ConservationDeviation != 0 {
		return fmt.Errorf("capacity.conservation_deviation: %g, must be 0 when capacity.interference is set (the interference terms replace it)", sc.Capacity.ConservationDeviation)
	}
	if len(in.ReadWrite) == 0 && in.BetweenSizes == 0 {
		return errors.New("capacity.interference: set read_write, between_sizes or both (or leave interference out)")
	}
	sc.gamma = make([]float64, len(sc.sizes))
	keys := make([]string, 0, len(in.ReadWrite))
	for k := range in.ReadWrite {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := in.ReadWrite[k]
		size, err := ParseByteSize(k)
		if err != nil {
			return fmt.Errorf("capacity.interference.read_write: %w", err)
		}
		idx := -1
		for i, s := range sc.sizes {
			if s == size {
				idx = i
			}
		}
		if idx < 0 {
			return fmt.Errorf("capacity.interference.read_write: size %s has no capacity point", k)
		}
		if !(g >= 0 && g <= 1) {
			return fmt.Errorf("capacity.interference.read_write: γ of %s is %g, must be in [0, 1]", k, g)
		}
		sc.gamma[idx] = g
	}
	if e := in.BetweenSizes; !(e >= 0 && e <= 1) {
		return fmt.Errorf("capacity.interference.between_sizes: %g, must be in [0, 1]", e)
	}
	return nil
}

// validateClients checks the client model.
func (sc *Scenario) validateClients() error {
	cl := &sc.Clients
	switch cl.Loop {
	case "":
		if cl.Shape != "" || cl.Exponent != 0 || cl.Count != 0 || cl.QueueDepth != 0 {
			return errors.New("clients.loop: must be set (open or closed) when other clients fields are")
		}
		return nil
	case "open":
		if cl.Count != 0 || cl.QueueDepth != 0 {
			return errors.New("clients: count and queue_depth apply only to loop closed")
		}
	case "closed":
		if !(cl.Count > 0) || math.IsInf(cl.Count, 0) {
			return fmt.Errorf("clients.count: %g, must be > 0 for loop closed", cl.Count)
		}
		if !(cl.QueueDepth >= 1) || cl.QueueDepth > 4096 {
			return fmt.Errorf("clients.queue_depth: %g, must be in [1, 4096] for loop closed", cl.QueueDepth)
		}
		// A closed loop's latency is the MVA of the OSDs' network
		// (mva.go), not a shape of U.
		if cl.Shape != "" || cl.Exponent != 0 {
			return fmt.Errorf("clients.shape %q, clients.exponent %g: must not be set for loop closed (its latency is the exact MVA of the OSDs' queueing network; shape and exponent apply to loop open)", cl.Shape, cl.Exponent)
		}
		return nil
	default:
		return fmt.Errorf("clients.loop: %q is not one of open, closed", cl.Loop)
	}
	switch cl.Shape {
	case "md1":
		if cl.Exponent != 0 {
			return errors.New("clients.exponent: applies only to shape hockey_stick")
		}
	case "hockey_stick":
		if !(cl.Exponent >= 1) || cl.Exponent > 20 {
			return fmt.Errorf("clients.exponent: %g, must be in [1, 20] for shape hockey_stick", cl.Exponent)
		}
	default:
		return fmt.Errorf("clients.shape: %q is not one of md1, hockey_stick", cl.Shape)
	}
	return nil
}

func (sc *Scenario) parseMix(m map[string]float64, field string) ([]float64, error) {
	if len(m) == 0 {
		return nil, fmt.Errorf("%s: at least one size is required", field)
	}
	mix := make([]float64, len(sc.sizes))
	var sum float64
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		size, err := ParseByteSize(k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		idx := -1
		for i, s := range sc.sizes {
			if s == size {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("%s: size %s has no capacity point", field, k)
		}
		if v < 0 {
			return nil, fmt.Errorf("%s: share of %s is %g, must be >= 0", field, k, v)
		}
		mix[idx] += v
		sum += v
	}
	if math.Abs(sum-1) > 1e-6 {
		return nil, fmt.Errorf("%s: shares sum to %g, must sum to 1", field, sum)
	}
	return mix, nil
}

func (sc *Scenario) resolveEvents() error {
	sc.events = sc.events[:0]
	hosts := sc.Cluster.Hosts
	for i, e := range sc.Events {
		field := fmt.Sprintf("events[%d]", i)
		if e.At < 0 {
			return fmt.Errorf("%s.at: must not be negative", field)
		}
		if e.Ramp < 0 {
			return fmt.Errorf("%s.ramp: must not be negative", field)
		}
		n := 0
		// Events take effect at the start of a tick (rounded up): the
		// counters hold each tick's state for the whole tick, so /truth,
		// /sd and the scrapes then agree on when the change happened.
		te := timedEvent{at: ceilTick(time.Duration(e.At)), Event: e}
		if e.LoadStep != 0 {
			n++
			if e.LoadStep < 0 {
				return fmt.Errorf("%s.load_step: %g, must be > 0", field, e.LoadStep)
			}
		}
		if e.ReadRatio != nil {
			n++
			if *e.ReadRatio < 0 || *e.ReadRatio > 1 {
				return fmt.Errorf("%s.read_ratio: %g, must be in [0, 1]", field, *e.ReadRatio)
			}
		}
		if e.Mix != nil {
			n++
			mix, err := sc.parseMix(e.Mix, field+".mix")
			if err != nil {
				return err
			}
			te.mix = mix
		}
		if e.AddHosts != 0 {
			n++
			if e.AddHosts < 0 {
				return fmt.Errorf("%s.add_hosts: %d, must be > 0", field, e.AddHosts)
			}
			hosts += e.AddHosts
		}
		if e.RemoveHosts != 0 {
			n++
			if e.RemoveHosts < 0 {
				return fmt.Errorf("%s.remove_hosts: %d, must be > 0", field, e.RemoveHosts)
			}
			hosts -= e.RemoveHosts
			if hosts < 1 {
				return fmt.Errorf("%s.remove_hosts: would leave %d hosts, at least 1 must remain", field, hosts)
			}
		}
		if e.NoisyNeighbour != nil {
			n++
			nn := e.NoisyNeighbour
			if nn.Duration <= 0 {
				return fmt.Errorf("%s.noisy_neighbour.duration: must be > 0", field)
			}
			if nn.CapacityLoss <= 0 || nn.CapacityLoss >= 1 {
				return fmt.Errorf("%s.noisy_neighbour.capacity_loss: %g, must be in (0, 1)", field, nn.CapacityLoss)
			}
			// It ends at the start of a tick too (the copy leaves the
			// caller's Events as written).
			r := *nn
			r.Duration = Duration(ceilTick(time.Duration(nn.Duration)))
			te.NoisyNeighbour = &r
		}
		if n != 1 {
			return fmt.Errorf("%s: exactly one of load_step, read_ratio, mix, add_hosts, remove_hosts, noisy_neighbour must be set, found %d", field, n)
		}
		if i > 0 && e.At < sc.Events[i-1].At {
			return fmt.Errorf("%s.at: %s is before the previous event; list events in time order", field, time.Duration(e.At))
		}
		sc.events = append(sc.events, te)
	}
	if hosts > 64 || sc.maxHosts() > 64 {
		return fmt.Errorf("cluster.hosts: at most 64 hosts may exist at once")
	}
	return nil
}

// ceilTick rounds a non-negative offset from the origin up to a whole Tick.
func ceilTick(d time.Duration) time.Duration {
	if r := d % Tick; r != 0 {
		return d + Tick - r
	}
	return d
}

// eventInstants lists the seconds after the origin in (from, to] at which an
// event starts, a ramp ends or a noisy neighbour leaves: where load or
// capacity change abruptly or stop changing (unsorted, maybe repeated).
func (sc *Scenario) eventInstants(from, to float64) []float64 {
	var out []float64
	add := func(d time.Duration) {
		if s := d.Seconds(); s > from && s <= to {
			out = append(out, s)
		}
	}
	for _, e := range sc.events {
		add(e.at)
		if e.Ramp > 0 {
			add(e.at + time.Duration(e.Ramp))
		}
		if e.NoisyNeighbour != nil {
			add(e.at + time.Duration(e.NoisyNeighbour.Duration))
		}
	}
	return out
}

// maxHosts is the number of distinct host slots the scenario ever uses.
func (sc *Scenario) maxHosts() int {
	n := sc.Cluster.Hosts
	for _, e := range sc.Events {
		n += e.AddHosts
	}
	return n
}

// Source names where the scenario came from.
func (sc *Scenario) Source() string { return sc.source }

func fmtSize(b float64) string {
	switch {
	case b >= 1<<30 && math.Mod(b, 1<<30) == 0:
		return strconv.FormatFloat(b/(1<<30), 'f', -1, 64) + "GiB"
	case b >= 1<<20 && math.Mod(b, 1<<20) == 0:
		return strconv.FormatFloat(b/(1<<20), 'f', -1, 64) + "MiB"
	case b >= 1<<10 && math.Mod(b, 1<<10) == 0:
		return strconv.FormatFloat(b/(1<<10), 'f', -1, 64) + "KiB"
	}
	return strconv.FormatFloat(b, 'f', -1, 64) + "B"
}
