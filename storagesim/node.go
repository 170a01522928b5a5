package storagesim

import (
	"math"
	"strconv"
)

// cpuModes are node_exporter's cpu modes, in its order.
var cpuModes = []string{"idle", "iowait", "irq", "nice", "softirq", "steal", "system", "user"}

// Shares of the busy time per mode (the rest of the busy time is user).
var busyShare = map[string]float64{"iowait": 0.05, "irq": 0.02, "nice": 0, "softirq": 0.08, "system": 0.30, "user": 0.55}

// addNode declares node_exporter series for every host slot. The host's work
// is its share of the client ops plus the replica writes it stores: CPU time
// is idle_cpu + cpu_seconds_per_op·ops + cpu_seconds_per_mib·MiB per second,
// disks see their OSD's reads and replicated writes, the public network
// carries client bytes and the cluster network replication bytes.
func (c *Cluster) addNode() {
	sc := c.sc
	hn := sc.Noise.Host
	rep := float64(sc.Cluster.Replication)
	cpus := sc.Host.CPUs
	per := sc.Cluster.OSDsPerHost

	// Per-host work per second (noise-free).
	hostOps := func(st *state, h int) float64 {
		return st.hostShare[h] * (st.servedRead() + st.servedWrite()*rep)
	}
	hostMiB := func(st *state, h int) float64 {
		return st.hostShare[h] * (st.servedRead()*st.meanRdSize + st.servedWrite()*st.meanWrSize*rep) / mib
	}
	// demand is the CPU share the host's work asks for (may exceed 1).
	demand := func(st *state, h int) float64 {
		return sc.Host.IdleCPU + (sc.Host.CPUSecondsPerOp*hostOps(st, h)+sc.Host.CPUSecondsPerMiB*hostMiB(st, h))/float64(cpus)
	}
	saturating := sc.Host.CPUModel == "saturating"
	busy := func(st *state, h int) float64 {
		if saturating {
			// A CPU-bound host: busy follows demand while it is small and
			// bends toward 1 as it nears the CPUs (a soft minimum of demand
			// and 1: 0.84 at demand 1, 0.98 at demand 2); the unmet demand
			// queues and shows in the load average only.
			d := demand(st, h)
			return math.Min(d/math.Sqrt(math.Sqrt(1+d*d*d*d)), 0.98)
		}
		return math.Min(demand(st, h), 0.98)
	}
	// iowait (saturating only) is idle time with disk requests pending: a
	// power of the cluster's frontier utilization, not of the CPU time.
	iowait := func(st *state) float64 {
		return sc.Host.IOWaitMax * math.Pow(math.Min(st.fr.util(st.served), 1), sc.Host.IOWaitExponent)
	}
	// Shares of the busy time per mode when iowait is not part of it.
	const nonIOWait = 1 - 0.05

	fCPU := c.addFamily("node_cpu_seconds_total", "Seconds the CPUs spent in each mode.", typeCounter, 0, "cpu", "mode")
	fMemTotal := c.addFamily("node_memory_MemTotal_bytes", "Memory information field MemTotal_bytes.", typeGauge, 0)
	fMemAvail := c.addFamily("node_memory_MemAvailable_bytes", "Memory information field MemAvailable_bytes.", typeGauge, 0)
	fMemFree := c.addFamily("node_memory_MemFree_bytes", "Memory information field MemFree_bytes.", typeGauge, 0)
	fMemCached := c.addFamily("node_memory_Cached_bytes", "Memory information field Cached_bytes.", typeGauge, 0)
	fMemBuf := c.addFamily("node_memory_Buffers_bytes", "Memory information field Buffers_bytes.", typeGauge, 0)
	fReads := c.addFamily("node_disk_reads_completed_total", "The total number of reads completed successfully.", typeCounter, 0, "device")
	fWrites := c.addFamily("node_disk_writes_completed_total", "The total number of writes completed successfully.", typeCounter, 0, "device")
	fReadsMerged := c.addFamily("node_disk_reads_merged_total", "The total number of reads merged.", typeCounter, 0, "device")
	fWritesMerged := c.addFamily("node_disk_writes_merged_total", "The number of writes merged.", typeCounter, 0, "device")
	fReadB := c.addFamily("node_disk_read_bytes_total", "The total number of bytes read successfully.", typeCounter, 0, "device")
	fWriteB := c.addFamily("node_disk_written_bytes_total", "The total number of bytes written successfully.", typeCounter, 0, "device")
	fIOTime := c.addFamily("node_disk_io_time_seconds_total", "Total seconds spent doing I/Os.", typeCounter, 0, "device")
	fIOW := c.addFamily("node_disk_io_time_weighted_seconds_total", "The weighted # of seconds spent doing I/Os.", typeCounter, 0, "device")
	fRxB := c.addFamily("node_network_receive_bytes_total", "Network device statistic receive_bytes.", typeCounter, 0, "device")
	fTxB := c.addFamily("node_network_transmit_bytes_total", "Network device statistic transmit_bytes.", typeCounter, 0, "device")
	fRxP := c.addFamily("node_network_receive_packets_total", "Network device statistic receive_packets.", typeCounter, 0, "device")
	fTxP := c.addFamily("node_network_transmit_packets_total", "Network device statistic transmit_packets.", typeCounter, 0, "device")
	fLoad1 := c.addFamily("node_load1", "1m load average.", typeGauge, 0)
	fLoad5 := c.addFamily("node_load5", "5m load average.", typeGauge, 0)
	fLoad15 := c.addFamily("node_load15", "15m load average.", typeGauge, 0)
	fCtx := c.addFamily("node_context_switches_total", "Total number of context switches.", typeCounter, 0)
	fIntr := c.addFamily("node_intr_total", "Total number of interrupts serviced.", typeCounter, 0)
	fProcs := c.addFamily("node_procs_running", "Number of processes in runnable state.", typeGauge, 0)
	fPgIn := c.addFamily("node_vmstat_pgpgin", "/proc/vmstat information field pgpgin.", typeUntyped, 0)
	fPgOut := c.addFamily("node_vmstat_pgpgout", "/proc/vmstat information field pgpgout.", typeUntyped, 0)
	fInSegs := c.addFamily("node_netstat_Tcp_InSegs", "Statistic TcpInSegs.", typeUntyped, 0)
	fOutSegs := c.addFamily("node_netstat_Tcp_OutSegs", "Statistic TcpOutSegs.", typeUntyped, 0)
	fBoot := c.addFamily("node_boot_time_seconds", "Node boot time, in unixtime.", typeGauge, 0)

	for h := range c.hosts {
		// Each family above belongs to this host's target; the target index
		// is per series, so set it below.
		tgt := c.hosts[h].target
		h := h
		cnt := seriesOpt{accum: true, resetOSD: -1, host: h}
		cntSec := seriesOpt{accum: true, frac: true, resetOSD: -1, host: h}
		gauge := seriesOpt{resetOSD: -1, host: h}
		add := func(fam int, o seriesOpt, fn func(*state, int64) float64, lv ...string) {
			i := c.addSeries(fam, o, fn, lv...)
			c.series[i].target = tgt
		}
		hk := "host" + strconv.Itoa(h) + ":"

		for cpu := 0; cpu < cpus; cpu++ {
			ck := c.key(hk + "cpu" + strconv.Itoa(cpu))
			for _, mode := range cpuModes {
				mode := mode
				if saturating {
					add(fCPU, cntSec, func(st *state, k int64) float64 {
						b := math.Min(busy(st, h)*positive(1+hn*noise(ck, k)), 0.99)
						steal := 0.5 * st.nnLoss
						if b+steal > 1 {
							b = 1 - steal
						}
						iw := math.Min(iowait(st)*positive(1+hn*noise(ck^1, k)), 1-b-steal)
						switch mode {
						case "idle":
							return (1 - b - steal - iw) * tickSeconds
						case "steal":
							return steal * tickSeconds
						case "iowait":
							return iw * tickSeconds
						default:
							return b * busyShare[mode] / nonIOWait * tickSeconds
						}
					}, strconv.Itoa(cpu), mode)
					continue
				}
				add(fCPU, cntSec, func(st *state, k int64) float64 {
					b := math.Min(busy(st, h)*positive(1+hn*noise(ck, k)), 0.99)
					steal := 0.5 * st.nnLoss
					if b+steal > 1 {
						b = 1 - steal
					}
					switch mode {
					case "idle":
						return (1 - b - steal) * tickSeconds
					case "steal":
						return steal * tickSeconds
					default:
						return b * busyShare[mode] * tickSeconds
					}
				}, strconv.Itoa(cpu), mode)
			}
		}

		mem := float64(sc.Host.MemoryBytes)
		mk := c.key(hk + "mem")
		avail := func(st *state, k int64) float64 {
			return math.Round(mem * (0.6 - 0.25*math.Min(st.served/st.capacity, 1)) * positive(1+0.2*hn*noise(mk, k)))
		}
		add(fMemTotal, gauge, func(*state, int64) float64 { return mem })
		add(fMemAvail, gauge, avail)
		add(fMemFree, gauge, func(st *state, k int64) float64 { return math.Round(avail(st, k) * 0.3) })
		add(fMemCached, gauge, func(st *state, k int64) float64 { return math.Round(avail(st, k) * 0.6) })
		add(fMemBuf, gauge, func(*state, int64) float64 { return math.Round(mem * 0.01) })

		// Disks: sda is the system disk, then one disk per OSD.
		sysKey := c.key(hk + "sda")
		add(fReads, cnt, func(st *state, k int64) float64 { return 0.5 * tickSeconds * positive(1+hn*noise(sysKey, k)) }, "sda")
		add(fWrites, cnt, func(st *state, k int64) float64 { return 3 * tickSeconds * positive(1+hn*noise(sysKey, k)) }, "sda")
		// The system disk's merges are not the workload's (and not
		// counted in the truth): few, as of a log being appended to.
		add(fReadsMerged, cnt, func(st *state, k int64) float64 { return 0 }, "sda")
		add(fWritesMerged, cnt, func(st *state, k int64) float64 { return 0.3 * tickSeconds }, "sda")
		add(fReadB, cnt, func(st *state, k int64) float64 { return 0.5 * 4096 * tickSeconds * positive(1+hn*noise(sysKey, k)) }, "sda")
		add(fWriteB, cnt, func(st *state, k int64) float64 { return 3 * 16384 * tickSeconds * positive(1+hn*noise(sysKey, k)) }, "sda")
		add(fIOTime, cntSec, func(st *state, k int64) float64 { return 0.01 * tickSeconds }, "sda")
		add(fIOW, cntSec, func(st *state, k int64) float64 { return 0.02 * tickSeconds }, "sda")
		for j := 0; j < per; j++ {
			o := h*per + j
			dev := c.osds[o].device
			dk := c.key(hk + dev)
			rd := func(st *state, k int64) float64 {
				return st.servedRead() * st.osdShare[o] * tickSeconds * positive(1+hn*noise(dk, k))
			}
			wr := func(st *state, k int64) float64 {
				return st.servedWrite() * rep * st.osdShare[o] * tickSeconds * positive(1+hn*noise(dk^1, k))
			}
			add(fReads, cnt, rd, dev)
			add(fWrites, cnt, wr, dev)
			merged := sc.Load.SequentialShare / (1 - sc.Load.SequentialShare)
			add(fReadsMerged, cnt, func(st *state, k int64) float64 { return rd(st, k) * merged }, dev)
			add(fWritesMerged, cnt, func(st *state, k int64) float64 { return wr(st, k) * merged }, dev)
			add(fReadB, cnt, func(st *state, k int64) float64 { return rd(st, k) * st.meanRdSize }, dev)
			add(fWriteB, cnt, func(st *state, k int64) float64 { return wr(st, k) * st.meanWrSize }, dev)
			add(fIOTime, cntSec, func(st *state, k int64) float64 {
				return math.Min(0.95*st.served/st.capacity*positive(1+hn*noise(dk^2, k)), 1) * tickSeconds
			}, dev)
			add(fIOW, cntSec, func(st *state, k int64) float64 {
				return (rd(st, k)*st.latRead() + wr(st, k)*st.latWrite()/rep)
			}, dev)
		}

		// Network: eth0 public (client), eth1 cluster (replication).
		nk := c.key(hk + "net")
		clientIn := func(st *state, k int64) float64 {
			return st.hostShare[h] * (st.servedWrite()*st.meanWrSize + st.served*200) * tickSeconds * positive(1+hn*noise(nk, k))
		}
		clientOut := func(st *state, k int64) float64 {
			return st.hostShare[h] * (st.servedRead()*st.meanRdSize + st.served*200) * tickSeconds * positive(1+hn*noise(nk^1, k))
		}
		repl := func(st *state, k int64) float64 {
			return st.hostShare[h] * st.servedWrite() * st.meanWrSize * (rep - 1) * tickSeconds * positive(1+hn*noise(nk^2, k))
		}
		const mtu = 8948
		pk := func(f func(*state, int64) float64) func(*state, int64) float64 {
			return func(st *state, k int64) float64 {
				return math.Ceil(f(st, k)/mtu + st.hostShare[h]*st.served*tickSeconds)
			}
		}
		add(fRxB, cnt, clientIn, "eth0")
		add(fTxB, cnt, clientOut, "eth0")
		add(fRxB, cnt, repl, "eth1")
		add(fTxB, cnt, repl, "eth1")
		add(fRxP, cnt, pk(clientIn), "eth0")
		add(fTxP, cnt, pk(clientOut), "eth0")
		add(fRxP, cnt, pk(repl), "eth1")
		add(fTxP, cnt, pk(repl), "eth1")

		lk := c.key(hk + "load")
		load := func(sd float64) func(st *state, k int64) float64 {
			return func(st *state, k int64) float64 {
				var v float64
				if saturating {
					// Linux counts runnable tasks and tasks in
					// uninterruptible sleep: all the CPU demand, served or
					// queued, plus a thread blocked on each request the
					// host holds, its share of the requests in flight
					// (served × latency, Little's law; the outstanding
					// count of a closed loop). The latter keeps growing
					// past saturation while busy bends toward 1.
					v = float64(cpus)*(demand(st, h)+0.5*st.nnLoss) + st.hostShare[h]*st.served*st.latAll()
				} else {
					v = float64(cpus) * (busy(st, h) + 0.5*st.nnLoss)
				}
				v *= positive(1 + sd*hn*noise(lk, k))
				return math.Round(v*100) / 100
			}
		}
		add(fLoad1, gauge, load(2))
		add(fLoad5, gauge, load(1))
		add(fLoad15, gauge, load(0.5))
		add(fCtx, cnt, func(st *state, k int64) float64 {
			return math.Round((2000 + 3*hostOps(st, h)) * tickSeconds * positive(1+hn*noise(lk^1, k)))
		})
		add(fIntr, cnt, func(st *state, k int64) float64 {
			return math.Round((1000 + 2*hostOps(st, h)) * tickSeconds * positive(1+hn*noise(lk^2, k)))
		})
		add(fProcs, gauge, func(st *state, k int64) float64 {
			return math.Round(1 + float64(cpus)*busy(st, h)*positive(1+hn*noise(lk^3, k)))
		})
		add(fPgIn, cnt, func(st *state, k int64) float64 {
			return math.Round(st.hostShare[h] * st.servedRead() * st.meanRdSize / 1024 * tickSeconds)
		})
		add(fPgOut, cnt, func(st *state, k int64) float64 {
			return math.Round(st.hostShare[h] * st.servedWrite() * st.meanWrSize * rep / 1024 * tickSeconds)
		})
		add(fInSegs, cnt, func(st *state, k int64) float64 {
			return math.Ceil((clientIn(st, k)+repl(st, k))/mtu + hostOps(st, h)*tickSeconds)
		})
		add(fOutSegs, cnt, func(st *state, k int64) float64 {
			return math.Ceil((clientOut(st, k)+repl(st, k))/mtu + hostOps(st, h)*tickSeconds)
		})
		boot := float64(c.origin.Unix() - 86400*int64(3+h))
		add(fBoot, gauge, func(*state, int64) float64 { return boot })
	}
}
