# shellcheck shell=bash
# Helpers of the Swift end-to-end harness, sourced by cluster.sh and run.sh. The process, port,
# CPU, package and phase helpers are the Ceph harness's: e2e/ceph/lib.sh is sourced and only what
# names Ceph (dump_state) is replaced here.
#
# Everything lives under $E2E_DIR: configs, rings, logs, PID files (pids/<name>.pid) and the chosen
# ports (env). The object, container and account devices are directories under $SWIFT_DEVICES
# (tmpfs by default: like the Ceph suite's memstore, the cluster measures the software, not the
# shared disk). Teardown kills exactly the PIDs in pids/.

E2E_DIR=${E2E_DIR:-/tmp/storcast-e2e-swift}
SWIFT_DEVICES=${SWIFT_DEVICES:-/dev/shm/storcast-e2e-swift}
_SWIFT_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../ceph/lib.sh
. "$_SWIFT_LIB_DIR/../ceph/lib.sh"
E2E_SUITE=swift

# dump_state prints the daemons' state and the tail of every log: called on failure.
dump_state() {
	daemon_state
	if [ -f "$E2E_DIR/env" ]; then
		# shellcheck disable=SC1091
		. "$E2E_DIR/env"
		log "----- proxy healthcheck, statsd_exporter swift series -----"
		curl -sS --max-time 5 "http://127.0.0.1:$PROXY_PORT/healthcheck" 2>&1 || true
		echo
		curl -sS --max-time 5 "http://127.0.0.1:$STATSD_WEB_PORT/metrics" 2>/dev/null | grep -c '^swift_' || true
	fi
	tail_logs
}
