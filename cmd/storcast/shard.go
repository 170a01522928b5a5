package main

import (
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/storcast/storcast/exporter/collector"
	"github.com/storcast/storcast/exporter/config"
)

// shardFlags are the command-line shard settings. They are flags, not
// configuration keys, so that a reload of the configuration file cannot
// move a running process to another shard.
type shardFlags struct {
	total        int
	index        int
	fromHostname bool
	fromName     string
}

func addShardFlags(fs *pflag.FlagSet, s *shardFlags) {
	fs.IntVar(&s.total, "shard.total", 1, "Number of shards the configured clusters are split across; each cluster goes to shard FNV-1a-64(cluster name) mod this. 1: this process forecasts every cluster.")
	fs.IntVar(&s.index, "shard.index", 0, "This process's shard, 0 to --shard.total - 1. Excludes --shard.from-hostname and --shard.from-name.")
	fs.BoolVar(&s.fromHostname, "shard.from-hostname", false, "Take the shard index from the trailing -N of this host's name as the operating system reports it (os.Hostname; in a Kubernetes StatefulSet, the pod name, e.g. storcast-2 is shard 2).")
	fs.StringVar(&s.fromName, "shard.from-name", "", "Take the shard index from the trailing -N of this name (e.g. a StatefulSet pod name from the downward API: --shard.from-name=$(POD_NAME)).")
}

// shard is a validated shard: this process forecasts the clusters whose
// name hashes to index mod total.
type shard struct{ index, total int }

// ordinalSuffix is a StatefulSet pod name's ordinal: the digits after the
// last hyphen.
var ordinalSuffix = regexp.MustCompile(`-([0-9]+)$`)

// resolve validates the flags fs parsed into s and returns the shard.
func (s shardFlags) resolve(fs *pflag.FlagSet, hostname func() (string, error)) (shard, error) {
	if s.total < 1 {
		return shard{}, fmt.Errorf("--shard.total: %d is not a number of shards (at least 1)", s.total)
	}
	// A source is a flag given: --shard.from-name given empty (an unset
	// $(POD_NAME)) is one, refused below rather than read as shard 0;
	// --shard.from-hostname=false is none.
	sources := 0
	for _, f := range []string{"shard.index", "shard.from-name"} {
		if fs.Changed(f) {
			sources++
		}
	}
	if s.fromHostname {
		sources++
	}
	if sources > 1 {
		return shard{}, fmt.Errorf("--shard.index, --shard.from-hostname and --shard.from-name each give the shard index: use one")
	}
	index, flagName := s.index, "--shard.index"
	if s.fromHostname || fs.Changed("shard.from-name") {
		name := s.fromName
		flagName = fmt.Sprintf("--shard.from-name %q", name)
		if s.fromHostname {
			h, err := hostname()
			if err != nil {
				return shard{}, fmt.Errorf("--shard.from-hostname: reading the hostname: %w", err)
			}
			name, flagName = h, fmt.Sprintf("--shard.from-hostname (hostname %q)", h)
		}
		m := ordinalSuffix.FindStringSubmatch(name)
		if m == nil {
			return shard{}, fmt.Errorf("%s: the name does not end in -N, a StatefulSet pod ordinal", flagName)
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return shard{}, fmt.Errorf("%s: ordinal %q: %w", flagName, m[1], err)
		}
		index = n
	}
	if index < 0 || index >= s.total {
		return shard{}, fmt.Errorf("%s: shard index %d is not in 0 to %d (--shard.total %d)", flagName, index, s.total-1, s.total)
	}
	return shard{index: index, total: s.total}, nil
}

// shardOf is the shard of a cluster name among total: FNV-1a 64 of the
// name, mod total. It is part of storcast's behaviour across versions: two
// processes of different versions must agree on it, and TestShardOfIsPinned
// fails when it changes.
func shardOf(cluster string, total int) int {
	return int(clusterHash(cluster) % uint64(total))
}

// clusterHash is FNV-1a 64 of the cluster name's bytes.
func clusterHash(cluster string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(cluster))
	return h.Sum64()
}

// split returns cfg with only the clusters assigned to s (a shallow copy:
// the clusters are shared) and the shard's report for /metrics.
func (s shard) split(cfg *config.Config) (*config.Config, collector.Shard) {
	rep := collector.Shard{Index: s.index, Total: s.total}
	own := *cfg
	own.Clusters = nil
	for _, c := range cfg.Clusters {
		rep.Configured = append(rep.Configured, c.Name)
		if shardOf(c.Name, s.total) == s.index {
			own.Clusters = append(own.Clusters, c)
			rep.Assigned = append(rep.Assigned, c.Name)
		}
	}
	return &own, rep
}

// osHostname is os.Hostname, replaced in tests.
var osHostname = os.Hostname
