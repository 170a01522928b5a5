# shellcheck shell=bash
# Shared helpers of the Ceph end-to-end harness. Sourced by cluster.sh and run.sh.
#
# Everything lives under $E2E_DIR (a temp dir): ceph.conf, keyrings, daemon data, logs, PID files
# (pids/<name>.pid) and the chosen ports (env). Teardown kills exactly the PIDs in pids/, so it is
# safe on a machine shared with other work and idempotent.

E2E_DIR=${E2E_DIR:-/tmp/storcast-e2e-ceph}
CONF=$E2E_DIR/ceph.conf

log() { printf '%s [e2e-ceph] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "FATAL: $*"; exit 1; }

# ceph CLI against the private cluster, with a timeout so a dead mon cannot hang the run.
cephc() { timeout 30 ceph --conf "$CONF" "$@"; }
rbdc() { timeout 60 rbd --conf "$CONF" "$@"; }

# free_port prints a TCP port that nothing listens on, from a range outside the ephemeral one and
# away from Ceph's own daemon range (6800-7300).
free_port() {
	local p used
	used=$(ss -Htln 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
	for _ in $(seq 1 200); do
		p=$((20000 + RANDOM % 10000))
		if ! grep -qx "$p" <<<"$used" && ! grep -qx "$p" "$E2E_DIR/ports.used" 2>/dev/null; then
			echo "$p" >>"$E2E_DIR/ports.used"
			echo "$p"
			return 0
		fi
	done
	die "no free port found"
}

# start_daemon NAME CMD... runs CMD in the background with output to log/NAME.out and records its PID.
start_daemon() {
	local name=$1
	shift
	mkdir -p "$E2E_DIR/pids" "$E2E_DIR/log"
	"$@" >"$E2E_DIR/log/$name.out" 2>&1 &
	echo $! >"$E2E_DIR/pids/$name.pid"
}

# quiet CMD... runs CMD silently, showing its output only when it fails.
quiet() {
	local out
	out=$("$@" 2>&1) || { echo "$out" >&2; return 1; }
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# stop_all kills every recorded PID (TERM, then KILL after a grace period) and removes the PID files.
stop_all() {
	local dir=${1:-$E2E_DIR} f pid pids=()
	[ -d "$dir/pids" ] || return 0
	for f in "$dir"/pids/*.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f")
		if pid_alive "$pid"; then
			kill -TERM "$pid" 2>/dev/null || true
			pids+=("$pid")
		fi
	done
	for _ in $(seq 1 50); do
		local alive=0
		for pid in "${pids[@]}"; do pid_alive "$pid" && alive=1; done
		[ $alive = 0 ] && break
		sleep 0.2
	done
	for pid in "${pids[@]}"; do
		pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
	done
	rm -f "$dir"/pids/*.pid
}

# wait_http URL SECONDS waits until URL answers 200.
wait_http() {
	local url=$1 t=${2:-60}
	for _ in $(seq 1 $((t * 2))); do
		curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}

# rss_mb NAME prints the resident set size in MB of the daemon NAME (0 when not running).
rss_mb() {
	local pid
	pid=$(cat "$E2E_DIR/pids/$1.pid" 2>/dev/null) || { echo 0; return; }
	ps -o rss= -p "$pid" 2>/dev/null | awk '{printf "%d", $1/1024} END {if (NR==0) print 0}'
}

# cpu_ticks prints cumulative "steal total busy" ticks (USER_HZ) of all CPUs, from /proc/stat
# (busy excludes idle, iowait and steal).
cpu_ticks() { awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9, $2+$3+$4+$7+$8}' /proc/stat; }

# daemon_ticks prints the CPU ticks (user+system) used so far by every recorded daemon.
daemon_ticks() {
	local f pid t=0 v
	for f in "$E2E_DIR"/pids/*.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f")
		v=$(awk '{print $14+$15}' "/proc/$pid/stat" 2>/dev/null) || continue
		t=$((t + v))
	done
	echo $t
}

# dump_state prints the cluster's state and the tail of every daemon log: called on failure.
dump_state() {
	log "----- cluster state -----"
	cephc -s 2>&1 || true
	cephc osd tree 2>&1 || true
	cephc health detail 2>&1 || true
	cephc osd pool ls detail 2>&1 || true
	log "----- processes -----"
	local f
	for f in "$E2E_DIR"/pids/*.pid; do
		[ -e "$f" ] || continue
		local n pid
		n=$(basename "$f" .pid)
		pid=$(cat "$f")
		if pid_alive "$pid"; then echo "$n pid=$pid running rss=$(rss_mb "$n")MB"; else echo "$n pid=$pid DEAD"; fi
	done
	log "----- daemon logs (last 40 lines each) -----"
	for f in "$E2E_DIR"/log/*; do
		[ -s "$f" ] || continue
		echo "==> $f <=="
		tail -n 40 "$f"
	done
}

# stop_one NAME stops one recorded daemon (TERM, then KILL) and forgets its PID.
stop_one() {
	local f=$E2E_DIR/pids/$1.pid pid
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if pid_alive "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 50); do pid_alive "$pid" || break; sleep 0.2; done
		pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$f"
}
