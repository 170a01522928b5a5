package storagesim

import (
	"math"
	"strconv"
)

// cephVersion is what ceph_osd_metadata reports.
const cephVersion = "ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)"

// osdBytes is the raw size of one simulated OSD.
const osdBytes = 4 << 40

// addCeph declares the series of the ceph-mgr prometheus module (Pacific and
// later): names, types, HELP texts and labels as the module exports them.
// Perf counters keep the module's names without a _total suffix.
func (c *Cluster) addCeph() {
	sc := c.sc
	rn, ln := sc.Noise.Rate, sc.Noise.Latency
	const t0 = 0 // the ceph-mgr target

	// Per-OSD client op increments over one tick; shared by the op,
	// bytes and latency _count series so that they agree exactly.
	readInc := func(o int) func(st *state, k int64) float64 {
		key := c.key("osd-read:" + strconv.Itoa(o))
		return func(st *state, k int64) float64 {
			return st.servedRead() * st.osdShare[o] * tickSeconds * positive(1+rn*noise(key, k))
		}
	}
	writeInc := func(o int) func(st *state, k int64) float64 {
		key := c.key("osd-write:" + strconv.Itoa(o))
		return func(st *state, k int64) float64 {
			return st.servedWrite() * st.osdShare[o] * tickSeconds * positive(1+rn*noise(key, k))
		}
	}
	latSum := func(o int, count func(*state, int64) float64, lat func(*state) float64, name string) func(st *state, k int64) float64 {
		key := c.key(name + strconv.Itoa(o))
		return func(st *state, k int64) float64 {
			return count(st, k) * lat(st) * positive(1+ln*noise(key, k))
		}
	}

	fOp := c.addFamily("ceph_osd_op", "Client operations", typeCounter, t0, "ceph_daemon")
	fR := c.addFamily("ceph_osd_op_r", "Client read operations", typeCounter, t0, "ceph_daemon")
	fW := c.addFamily("ceph_osd_op_w", "Client write operations", typeCounter, t0, "ceph_daemon")
	fRW := c.addFamily("ceph_osd_op_rw", "Client read-modify-write operations", typeCounter, t0, "ceph_daemon")
	fInB := c.addFamily("ceph_osd_op_in_bytes", "Client operations total write size", typeCounter, t0, "ceph_daemon")
	fOutB := c.addFamily("ceph_osd_op_out_bytes", "Client operations total read size", typeCounter, t0, "ceph_daemon")
	fROut := c.addFamily("ceph_osd_op_r_out_bytes", "Client data read", typeCounter, t0, "ceph_daemon")
	fWIn := c.addFamily("ceph_osd_op_w_in_bytes", "Client data written", typeCounter, t0, "ceph_daemon")
	fLatSum := c.addFamily("ceph_osd_op_latency_sum", "Latency of client operations (including queue time) Total", typeCounter, t0, "ceph_daemon")
	fLatCnt := c.addFamily("ceph_osd_op_latency_count", "Latency of client operations (including queue time) Count", typeCounter, t0, "ceph_daemon")
	fRLatSum := c.addFamily("ceph_osd_op_r_latency_sum", "Latency of read operation (including queue time) Total", typeCounter, t0, "ceph_daemon")
	fRLatCnt := c.addFamily("ceph_osd_op_r_latency_count", "Latency of read operation (including queue time) Count", typeCounter, t0, "ceph_daemon")
	fWLatSum := c.addFamily("ceph_osd_op_w_latency_sum", "Latency of write operation (including queue time) Total", typeCounter, t0, "ceph_daemon")
	fWLatCnt := c.addFamily("ceph_osd_op_w_latency_count", "Latency of write operation (including queue time) Count", typeCounter, t0, "ceph_daemon")
	fWip := c.addFamily("ceph_osd_op_wip", "Replication operations currently being processed (primary)", typeGauge, t0, "ceph_daemon")
	fApply := c.addFamily("ceph_osd_apply_latency_ms", "OSD stat apply_latency_ms", typeGauge, t0, "ceph_daemon")
	fCommit := c.addFamily("ceph_osd_commit_latency_ms", "OSD stat commit_latency_ms", typeGauge, t0, "ceph_daemon")
	fUp := c.addFamily("ceph_osd_up", "OSD status up", typeUntyped, t0, "ceph_daemon")
	fIn := c.addFamily("ceph_osd_in", "OSD status in", typeUntyped, t0, "ceph_daemon")
	fWeight := c.addFamily("ceph_osd_weight", "OSD status weight", typeUntyped, t0, "ceph_daemon")
	fMeta := c.addFamily("ceph_osd_metadata", "OSD Metadata", typeUntyped, t0,
		"back_iface", "ceph_daemon", "cluster_addr", "device_class", "front_iface", "hostname", "objectstore", "public_addr", "ceph_version")

	one := func(*state, int64) float64 { return 1 }
	for o := range c.osds {
		osd := c.osds[o]
		d := "osd." + strconv.Itoa(osd.id)
		h := osd.host
		cnt := seriesOpt{accum: true, resetOSD: o, host: h}
		cntSec := seriesOpt{accum: true, frac: true, resetOSD: o, host: h}
		gauge := seriesOpt{resetOSD: -1, host: h}
		r, w := readInc(o), writeInc(o)
		rSum := latSum(o, r, (*state).latRead, "osd-rlat:")
		wSum := latSum(o, w, (*state).latWrite, "osd-wlat:")
		c.addSeries(fOp, cnt, func(st *state, k int64) float64 { return r(st, k) + w(st, k) }, d)
		c.addSeries(fR, cnt, r, d)
		c.addSeries(fW, cnt, w, d)
		c.addSeries(fRW, cnt, func(*state, int64) float64 { return 0 }, d)
		c.addSeries(fInB, cnt, func(st *state, k int64) float64 { return w(st, k) * st.meanWrSize }, d)
		c.addSeries(fOutB, cnt, func(st *state, k int64) float64 { return r(st, k) * st.meanRdSize }, d)
		c.addSeries(fROut, cnt, func(st *state, k int64) float64 { return r(st, k) * st.meanRdSize }, d)
		c.addSeries(fWIn, cnt, func(st *state, k int64) float64 { return w(st, k) * st.meanWrSize }, d)
		c.addSeries(fLatSum, cntSec, func(st *state, k int64) float64 { return rSum(st, k) + wSum(st, k) }, d)
		c.addSeries(fLatCnt, cnt, func(st *state, k int64) float64 { return r(st, k) + w(st, k) }, d)
		c.addSeries(fRLatSum, cntSec, rSum, d)
		c.addSeries(fRLatCnt, cnt, r, d)
		c.addSeries(fWLatSum, cntSec, wSum, d)
		c.addSeries(fWLatCnt, cnt, w, d)
		wipKey := c.key("osd-wip:" + d)
		c.addSeries(fWip, gauge, func(st *state, k int64) float64 {
			// Little's law: ops in flight = throughput × latency.
			return math.Round(st.served * st.osdShare[o] * st.latAll() * positive(1+ln*noise(wipKey, k)))
		}, d)
		applyKey, commitKey := c.key("osd-apply:"+d), c.key("osd-commit:"+d)
		c.addSeries(fApply, gauge, func(st *state, k int64) float64 {
			return math.Round(1000 * 0.3 * st.latWrite() * positive(1+ln*noise(applyKey, k)))
		}, d)
		c.addSeries(fCommit, gauge, func(st *state, k int64) float64 {
			return math.Round(1000 * 0.6 * st.latWrite() * positive(1+ln*noise(commitKey, k)))
		}, d)
		c.addSeries(fUp, gauge, one, d)
		c.addSeries(fIn, gauge, one, d)
		c.addSeries(fWeight, gauge, one, d)
		hi := c.hosts[h]
		c.addSeries(fMeta, gauge, one, "eth1", d, "10.1.0."+strconv.Itoa(h+11)+":680"+strconv.Itoa(osd.id%10), sc.Cluster.DeviceClass,
			"eth0", hi.name, "bluestore", hi.publicAddr+":680"+strconv.Itoa(osd.id%10), cephVersion)
	}

	// Pools.
	fRd := c.addFamily("ceph_pool_rd", "DF pool rd", typeCounter, t0, "pool_id")
	fWr := c.addFamily("ceph_pool_wr", "DF pool wr", typeCounter, t0, "pool_id")
	fRdB := c.addFamily("ceph_pool_rd_bytes", "DF pool rd_bytes", typeCounter, t0, "pool_id")
	fWrB := c.addFamily("ceph_pool_wr_bytes", "DF pool wr_bytes", typeCounter, t0, "pool_id")
	fStored := c.addFamily("ceph_pool_stored", "DF pool stored", typeGauge, t0, "pool_id")
	fStoredRaw := c.addFamily("ceph_pool_stored_raw", "DF pool stored_raw", typeGauge, t0, "pool_id")
	fObjects := c.addFamily("ceph_pool_objects", "DF pool objects", typeGauge, t0, "pool_id")
	fMaxAvail := c.addFamily("ceph_pool_max_avail", "DF pool max_avail", typeGauge, t0, "pool_id")
	fPoolMeta := c.addFamily("ceph_pool_metadata", "POOL Metadata", typeUntyped, t0, "pool_id", "name", "type", "description", "compression_mode")
	rep := float64(sc.Cluster.Replication)
	const newDataFraction = 0.02 // share of written bytes that is new data
	const objectSize = 4 << 20
	for _, p := range sc.Cluster.Pools {
		id := strconv.Itoa(p.ID)
		share := p.Share
		rk, wk := c.key("pool-rd:"+id), c.key("pool-wr:"+id)
		rd := func(st *state, k int64) float64 {
			return st.servedRead() * share * tickSeconds * positive(1+rn*noise(rk, k))
		}
		wr := func(st *state, k int64) float64 {
			return st.servedWrite() * share * tickSeconds * positive(1+rn*noise(wk, k))
		}
		cnt := seriesOpt{accum: true, resetOSD: -1, host: -1}
		c.addSeries(fRd, cnt, rd, id)
		c.addSeries(fWr, cnt, wr, id)
		c.addSeries(fRdB, cnt, func(st *state, k int64) float64 { return rd(st, k) * st.meanRdSize }, id)
		c.addSeries(fWrB, cnt, func(st *state, k int64) float64 { return wr(st, k) * st.meanWrSize }, id)
		stored0 := float64(p.StoredBytes)
		grow := func(st *state, k int64) float64 { return wr(st, k) * st.meanWrSize * newDataFraction }
		c.addSeries(fStored, seriesOpt{accum: true, base: stored0, resetOSD: -1, host: -1}, grow, id)
		c.addSeries(fStoredRaw, seriesOpt{accum: true, base: stored0 * rep, resetOSD: -1, host: -1},
			func(st *state, k int64) float64 { return grow(st, k) * rep }, id)
		c.addSeries(fObjects, seriesOpt{accum: true, base: math.Round(stored0 / objectSize), resetOSD: -1, host: -1},
			func(st *state, k int64) float64 { return grow(st, k) / objectSize }, id)
		c.addSeries(fMaxAvail, seriesOpt{resetOSD: -1, host: -1}, func(st *state, k int64) float64 {
			return math.Round(float64(st.osdsUp) * osdBytes * 0.85 / rep * share)
		}, id)
		c.addSeries(fPoolMeta, seriesOpt{resetOSD: -1, host: -1}, one, id, p.Name, "replicated", "replica:"+strconv.Itoa(sc.Cluster.Replication), "none")
	}

	// Cluster-wide.
	slowOps := func(st *state) float64 {
		// Heavy-tailed queues: beyond saturation the excess share of the
		// ops in flight exceeds the 30 s complaint time.
		return math.Floor(st.served * st.latAll() * math.Max(0, st.rho-1))
	}
	fHealth := c.addFamily("ceph_health_status", "Cluster health status", typeUntyped, t0)
	c.addSeries(fHealth, seriesOpt{resetOSD: -1, host: -1}, func(st *state, k int64) float64 {
		if slowOps(st) > 0 {
			return 1
		}
		return 0
	})
	fSlow := c.addFamily("ceph_healthcheck_slow_ops", "OSD or Monitor requests taking a long time to process", typeGauge, t0)
	c.addSeries(fSlow, seriesOpt{resetOSD: -1, host: -1}, func(st *state, k int64) float64 { return slowOps(st) })
	fTotal := c.addFamily("ceph_cluster_total_bytes", "DF total_bytes", typeGauge, t0)
	c.addSeries(fTotal, seriesOpt{resetOSD: -1, host: -1}, func(st *state, k int64) float64 { return float64(st.osdsUp) * osdBytes })
	fQuorum := c.addFamily("ceph_mon_quorum_status", "Monitors in quorum", typeGauge, t0, "ceph_daemon")
	c.addSeries(fQuorum, seriesOpt{resetOSD: -1, host: -1}, one, "mon.a")
}
