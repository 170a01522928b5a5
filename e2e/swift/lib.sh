# shellcheck shell=bash
# Helpers of the Swift end-to-end harness, sourced by cluster.sh and run.sh. The process, port and
# CPU helpers (free_port, start_daemon, stop_all, stop_one, wait_http, rss_mb, cpu_ticks,
# daemon_ticks) are the Ceph harness's: e2e/ceph/lib.sh is sourced and only what names Ceph is
# replaced here.
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

log() { printf '%s [e2e-swift] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# dump_state prints the daemons' state and the tail of every log: called on failure.
dump_state() {
	log "----- processes -----"
	local f n pid
	for f in "$E2E_DIR"/pids/*.pid; do
		[ -e "$f" ] || continue
		n=$(basename "$f" .pid)
		pid=$(cat "$f")
		if pid_alive "$pid"; then echo "$n pid=$pid running rss=$(rss_mb "$n")MB"; else echo "$n pid=$pid DEAD"; fi
	done
	if [ -f "$E2E_DIR/env" ]; then
		# shellcheck disable=SC1091
		. "$E2E_DIR/env"
		log "----- proxy healthcheck, statsd_exporter swift series -----"
		curl -sS --max-time 5 "http://127.0.0.1:$PROXY_PORT/healthcheck" 2>&1 || true
		echo
		curl -sS --max-time 5 "http://127.0.0.1:$STATSD_WEB_PORT/metrics" 2>/dev/null | grep -c '^swift_' || true
	fi
	log "----- daemon logs (last 40 lines each) -----"
	for f in "$E2E_DIR"/log/*; do
		[ -s "$f" ] || continue
		echo "==> $f <=="
		tail -n 40 "$f"
	done
}
