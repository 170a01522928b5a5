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
// increments from the origin and interpolate linearly within a tick. Event
// times (and a noisy neighbour's duration) are rounded up to a whole tick, so
// the truth, the targets and the scrapes see each change at the same instant.
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
// 1 + a·level(h) on the UTC hour h, and load_step events (ramped linearly
// when ramp is set). Read ratio and mix change with events (ramped
// linearly); the read ratio may add its own daily cycle, a_r·level_r(h)
// (load.read_ratio_diurnal), clamped to [0, 1]. A cycle's level is
// cos(2π(h − peak)/24) or, shape square, +1 for the `hours` hours (default
// 12) centred on the peak hour and −1 for the rest of the day.
// Served IOPS X = min(λ, C); ρ = λ/C is the utilization.
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
// # Breaking the models' assumptions (opt-in)
//
// The curves above are exactly what Storcast's models assume, so the models
// score near 0% error on them: a plumbing check, not evidence. Three opt-in
// parts of a scenario depart from those assumptions the way real clusters
// do; a scenario without them is computed by the code paths above, bit for
// bit (testdata/legacy-digests.txt holds the scrapes of the scenarios that
// predate them).
//
// Interference (capacity.interference). With a_S and b_S the read and write
// IOPS of size S over its pure-read and pure-write capacity (scaled by
// topology and noisy neighbours), the capacity utilization is
//
//	U = Σ_S (a_S + b_S + 4·γ_S·a_S·b_S) + 4·η·Σ_{S<S'} (a_S + b_S)(a_S' + b_S')
//
// γ_S = read_write[S] (a real single-host Ceph lab fitted γ ≈ 0.3 at 4 KiB),
// η = between_sizes. At a fixed mix U(X) = a·X + b·X² in the total rate X,
// and the capacity (Truth.MaxIOPS) is the root of U = 1,
// X = 2/(a + √(a² + 4b)). Served IOPS are min(offered, capacity), so a
// saturated cluster serves exactly the frontier. Truth.FrontierUtilization
// is U of the offered load; it is below offered/capacity (U is convex).
//
// Client models (clients). An open loop offers load.base_iops (shaped as
// above) whatever the completions. Its latency is L0 · shape(U) on the
// frontier utilization of the offered load, with shape "md1", the M/D/1
// mean response 1 + U/(2(1−U)), or "hockey_stick", 1 + U^p/(1−U)
// (p = exponent; p = 1 would be M/M/1); beyond U = 0.99 latency grows in
// proportion to the load instead (a steady mean cannot express an unbounded
// backlog), so the SLO crossing (Truth.SLOCrossingIOPS, the knee) lies below
// capacity for any SLO under the latency at capacity (Truth.Latency.Knee).
//
// A closed loop keeps N = count × queue_depth requests outstanding (scaled
// by growth, diurnal and load_step) and resubmits on completion, into a
// closed queueing network solved by exact single-class mean-value analysis
// (mva.go): one queue per OSD up, visited in proportion to its share of
// client ops (the shares the per-OSD counters carry; for a closed loop the
// OSD weights are drawn independently of the seed, since they are part of
// the truth), with service demand D_k = share_k/(max_j share_j · C) so that
// the busiest OSD saturates exactly at the frontier's capacity C, behind a
// delay station Z = L0 (client and network time). R(N) is linear between
// integer populations and X = N/R (Little's law); U = U(X) on the frontier;
// read and write latencies keep the ratio of their L0. A lone request takes
// Z + one OSD's service time (Truth.Latency.ZeroLoad); X < C always and
// bends toward it, latency grows toward N/C; there is no saturation time,
// and Truth.Clients carries N, N* = C × Latency.ZeroLoad (where the
// asymptotes meet) and the SLO crossing in requests outstanding (the
// population whose R reaches the SLO). forecaster/queueing's closed class
// is the MVA of one queue behind a delay: this network of nearly balanced
// queues bends more slowly, so the model only approximates it. shape and
// exponent are refused for a closed loop.
//
// A CPU-bound host (host.cpu_model: saturating). With the CPU demand d (the
// linear busy share above, uncapped) CPU busy is d/(1 + d⁴)^¼, a soft
// minimum of d and 1; node_load1/5/15 carry the whole demand (cpus · d)
// plus the host's share of the requests in flight (served × latency, by
// Little's law: the outstanding count of a closed loop), as Linux counts
// tasks blocked on IO, so load keeps rising after busy has flattened; iowait is
// iowait_max · U^iowait_exponent of the served load, taken from idle time,
// not a fixed share of busy time.
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
