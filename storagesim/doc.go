// Package storagesim simulates a Ceph (or Swift) cluster that Prometheus
// scrapes exactly as it would scrape a real one, driven by a ground-truth
// performance model, so that Storcast's demo, tests and accuracy figures have
// something realistic to run on and a truth to be scored against.
//
// # The Go API (stable; the exporter's demo mode uses it in-process)
//
//	sc, err := storagesim.LoadScenario("steady")          // shipped name or YAML path
//	c, err := storagesim.New(sc, seed, origin)            // origin: the scenario's t=0
//	s := c.Sample(t)                                      // every series of every target at t
//	tr := c.Truth(t, sloSeconds)                          // the ground truth at t
//	http.ListenAndServe(addr, c.Handler())                // /metrics, /hosts/<h>/metrics, /truth, /sd
//	err = storagesim.WriteHistory(w, c, start, end, step) // OpenMetrics for promtool
//
// Everything is a pure function of (scenario, seed, origin, t): a history
// written for [origin, T] and a server started with the same origin agree at
// every instant, so a live server continues a backfilled history seamlessly.
//
// # The ground-truth model
//
// Time is cut into ticks of 5 s (Tick); the state is computed at the start of
// each tick and held for the tick. Counters integrate their per-tick
// increments from the origin and interpolate linearly within a tick.
//
// Capacity (conservation of processing capability, with a deviation). The
// scenario gives, per IO size S, the saturated client IOPS of the origin
// cluster at 100% read, R(S), and at 100% write, W(S). At read share r and op
// shares p(S) of the sizes, an op of class (read, S) uses 1/R(S) of the
// capacity and (write, S) 1/W(S), bent by the conservation deviation d:
//
//	work = (Σ_S p(S)·(r/R(S) + (1−r)/W(S))) · (1 + 4·d·r·(1−r))
//	C    = (OSDs up / OSDs at origin) · (1 − noisy-neighbour loss) / work
//
// C is the maximum client IOPS at the current mix (Truth.MaxIOPS). With d = 0
// this is exactly the harmonic (op-share) form of the conservation law.
//
// Load. Offered IOPS λ(t) = base · growth(t) · diurnal(t) · steps(t), with
// growth linear (1 + g·days) or exponential ((1+g)^days), diurnal
// 1 + a·cos(2π(h − peak)/24) on the UTC hour h, and load_step events (ramped
// linearly when ramp is set). Read ratio and mix change with events (ramped
// linearly). Served IOPS X = min(λ, C); ρ = λ/C is the utilization.
//
// Latency (a queueing curve with a knee at ρ = 1). A class at size S has
// zero-load latency L0 = base + S/MiB·per_mib (read_base or write_base); the
// mean over the mix, weighted by op share, is L0 of reads, writes and all
// ops. With k = knee_factor and s = 1 − 1/k:
//
//	L(ρ) = L0 / (1 − s·ρ)   for ρ ≤ 1   (so L(1) = k·L0, the knee)
//	L(ρ) = k·L0·ρ           for ρ > 1   (closed-loop clients queue: Little's law)
//
// The load at which mean latency crosses an SLO follows in closed form
// (Truth.SLOCrossingIOPS): ρ* = (1 − L0/SLO)/s below the knee, SLO/(k·L0)
// above it.
//
// Noise. Each series' increment in each tick is multiplied by
// 1 + σ·ε, ε a zero-mean unit-variance triangular variate drawn by hashing
// (seed, series, tick); σ is noise.rate for op counts, noise.latency for
// latency sums and noise.host for node_exporter series. The truth is
// noise-free.
//
// Hosts. A host's work is its OSDs' share of client ops plus the replica
// writes it stores (writes × replication). CPU busy = idle_cpu +
// (cpu_seconds_per_op · ops + cpu_seconds_per_mib · MiB)/cpus, split over
// node_exporter's modes; a noisy neighbour shows as steal. OSD disks see
// their reads and replicated writes; eth0 carries client bytes, eth1
// replication bytes.
//
// Faults. An OSD restarts (its perf counters reset to 0) with probability
// restarts_per_osd_per_day per day; a target has a scrape gap (HTTP 503,
// samples missing from the history) in an hour with probability
// scrape_gaps_per_day/24.
//
// # Personalities
//
// Ceph: the series of the ceph-mgr prometheus module (Pacific and later) with
// its names, types, HELP and labels: perf counters such as ceph_osd_op_r are
// counters without a _total suffix with label ceph_daemon; long-running
// averages are _sum/_count counter pairs (seconds); ceph_osd_metadata,
// ceph_pool_metadata are untyped info series; ceph_pool_* carry pool_id.
//
// Swift: the series statsd_exporter produces from Swift's StatsD metrics with
// the mapping shipped in deploy/swift/statsd_exporter_mapping.yml.
//
// Hosts: node_exporter series, one target per host.
package storagesim
