# The real-Ceph end-to-end suite: a single-host Ceph cluster, fio calibration and load,
# storcast against the cluster's Prometheus, and a scored table in e2e/ceph/results/latest.md.
# Needs root the first time (apt-get install ceph ceph-mgr fio); takes about 20 minutes.
.PHONY: e2e-ceph e2e-ceph-up e2e-ceph-down
e2e-ceph:
	e2e/ceph/run.sh

# Bring a cluster up (or down) by hand, for debugging: E2E_DIR=/tmp/storcast-e2e-ceph by default.
e2e-ceph-up:
	e2e/ceph/cluster.sh up

e2e-ceph-down:
	e2e/ceph/cluster.sh down
