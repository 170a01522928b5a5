package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var (
	shardIndexDesc = newDesc("storcast_shard_index",
		"This process's shard: the clusters whose name hashes to it (FNV-1a 64 mod storcast_total_shards) are the ones it forecasts.", nil)
	shardTotalDesc = newDesc("storcast_total_shards", // not storcast_shard_total: a gauge may not end in _total (promtool); kube-state-metrics says total_shards too
		"Number of shards the configured clusters are split across (1: unsharded).", nil)
	clustersAssignedDesc = newDesc("storcast_clusters_assigned",
		"Number of configured clusters assigned to this shard (the ones it fetches, fits and exports).", nil)
	clusterConfiguredDesc = newDesc("storcast_cluster_configured",
		"1 for every cluster of the configuration, whichever shard it is assigned to (the set the shard mismatch alert checks the forecast clusters against).", []string{"cluster"})
	clusterShardDesc = newDesc("storcast_cluster_shard_index",
		"Shard index of the process forecasting the cluster: present only for the clusters assigned to this shard.", []string{"cluster"})
)

// Shard is the shard a process is and the clusters it knows of.
type Shard struct {
	Index, Total int
	Configured   []string // every configured cluster, in configuration order
	Assigned     []string // the configured clusters this shard forecasts
}

// ShardReporter gives the shard settings and cluster sets in force (they
// change with a reload of the configuration's cluster list).
type ShardReporter interface {
	Shard() Shard
}

// shardCollector exports which shard this process is and which clusters it
// forecasts, so that the clusters of all shards can be checked against the
// configured set across processes.
type shardCollector struct{ src ShardReporter }

func (c shardCollector) Update(ch chan<- prometheus.Metric, _ []*engine.Snapshot) error {
	if c.src == nil {
		return nil
	}
	s := c.src.Shard()
	gauge(ch, shardIndexDesc, float64(s.Index))
	gauge(ch, shardTotalDesc, float64(s.Total))
	gauge(ch, clustersAssignedDesc, float64(len(s.Assigned)))
	for _, name := range s.Configured {
		gauge(ch, clusterConfiguredDesc, 1, name)
	}
	for _, name := range s.Assigned {
		gauge(ch, clusterShardDesc, float64(s.Index), name)
	}
	return nil
}
