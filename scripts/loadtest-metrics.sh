#!/usr/bin/env bash
# The real-process /metrics load test of docs/operations.md ("Scrape cost"): a
# storcast --demo-style process with 100 simulated clusters on 127.0.0.1, wrk
# (Debian's package) during the fit storm after start, then at 32 connections and
# at 1 connection once every cluster has fitted. Bounded (fixed wrk durations, at
# most 15 minutes of waiting), loopback only, the server stopped by PID at the end.
# Run it on a quiet machine: wrk shares the cores with the server.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk not found (apt-get install wrk)" >&2; exit 1; }
dir=$(mktemp -d)
go build -o "$dir/storcast" ./cmd/storcast
mkdir -p "$dir/state"
{
	echo "demo: true"
	echo "state_dir: $dir/state"
	echo "prometheus: {timeout: 2m}"
	echo "clusters:"
	for i in $(seq -w 0 99); do echo "  - {name: c0$i, kind: ceph, hosts: {roles: [{name: osd}, {name: mon}]}}"; done
} >"$dir/config.yml"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$dir/storcast" --config.file "$dir/config.yml" --web.listen-address "127.0.0.1:$port" >"$dir/storcast.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
url=http://127.0.0.1:$port/metrics
wrk_() { wrk "$@" --timeout 20s --latency -H 'Accept-Encoding: gzip' "$url" | grep -E '^ +(50|90|99)%|Requests/sec|requests in'; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
sleep 5
echo "== during the fit storm after start: 1 connection, 20 s"
wrk_ -t1 -c1 -d20s
for t in $(seq 1 180); do
	n=$(curl -s "$url" | grep -c '^storcast_saturation_eta_seconds{' || true)
	[ "$n" -ge 200 ] && break
	sleep 5
done
echo "every cluster fitted after about $((t * 5 + 25)) s ($n ETA series)"
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; } # clock ticks (1/100 s)
c0=$(cpu); sleep 20; c1=$(cpu)
echo "background CPU: $(((c1 - c0) * 10 / 20)) ms/s"
c0=$(cpu)
echo "== 32 connections, 30 s"
wrk_ -t2 -c32 -d30s
c1=$(cpu)
echo "server CPU over the run: $(((c1 - c0) * 10)) ms (subtract 30 s of the background, divide by the requests)"
echo "== 1 connection, 20 s"
wrk_ -t1 -c1 -d20s
echo "samples: $(curl -s "$url" | grep -vc '^#'), gzip bytes: $(curl -s -H 'Accept-Encoding: gzip' "$url" | wc -c)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
