# The real-Swift end-to-end suite: a Swift 2.30 all-in-one from Debian's packages, StatsD into
# statsd_exporter, Prometheus, loadgen calibration and load, storcast against the cluster's
# Prometheus, and a scored table in e2e/swift/results/latest.md (see docs/e2e.md, Swift section).
# Needs root the first time (apt-get install swift-* memcached ...); takes about 19 minutes (65 s load steps, a three-round calibration).
.PHONY: e2e-swift e2e-swift-up e2e-swift-down
e2e-swift:
	e2e/swift/run.sh

# Bring a cluster up (or down) by hand, for debugging: E2E_DIR=/tmp/storcast-e2e-swift by default.
e2e-swift-up:
	e2e/swift/cluster.sh up

e2e-swift-down:
	e2e/swift/cluster.sh down
