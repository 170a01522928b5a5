#!/usr/bin/env bash
# cluster.sh up|down|status: a Swift all-in-one on 127.0.0.1 from Debian's packages (Swift 2.30):
# one proxy (tempauth, memcached), one account, one container and one object server, 3 replicas
# over 3 directory-backed devices (mount_check = false), rings built with swift-ring-builder; every
# server sends StatsD to statsd_exporter (github.com/prometheus/statsd_exporter at the version in
# go.mod, with deploy/swift/statsd_exporter_mapping.yml), and Debian's Prometheus scrapes it,
# node_exporter and storcast every 5 s. No systemd, nothing in /etc/swift touched (the servers read
# Debian's /etc/swift/swift.conf for the hash suffix and policy 0), private free ports, and "down"
# kills exactly the recorded PIDs.
#
# Knobs (environment): E2E_DIR, SWIFT_DEVICES, PART_POWER (8), STATSD_EXPORTER (binary path).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

PART_POWER=${PART_POWER:-8}
GO=${GO:-go}
STATSD_EXPORTER=${STATSD_EXPORTER:-$ROOT/bin/e2e-swift/statsd_exporter}
MAPPING=$ROOT/deploy/swift/statsd_exporter_mapping.yml

install_missing() {
	local need=()
	command -v swift-proxy-server >/dev/null || need+=(swift swift-proxy)
	command -v swift-account-server >/dev/null || need+=(swift-account)
	command -v swift-container-server >/dev/null || need+=(swift-container)
	command -v swift-object-server >/dev/null || need+=(swift-object)
	command -v memcached >/dev/null || need+=(memcached)
	command -v swift >/dev/null || need+=(python3-swiftclient) # the swift CLI
	command -v prometheus >/dev/null || need+=(prometheus)
	command -v prometheus-node-exporter >/dev/null || need+=(prometheus-node-exporter)
	install_packages "${need[@]}"
	# statsd_exporter: the Go module the project already depends on, at go.mod's version.
	local ver
	ver=$(cd "$ROOT" && $GO list -m -f '{{.Version}}' github.com/prometheus/statsd_exporter)
	if [ ! -x "$STATSD_EXPORTER" ] || ! $GO version -m "$STATSD_EXPORTER" 2>/dev/null | grep -qE "^\s+mod\s+github.com/prometheus/statsd_exporter\s+$ver\s"; then
		log "go install github.com/prometheus/statsd_exporter@$ver"
		mkdir -p "$(dirname "$STATSD_EXPORTER")"
		(cd "$ROOT" && GOBIN=$(dirname "$STATSD_EXPORTER") $GO install "github.com/prometheus/statsd_exporter@$ver")
	fi
}

# server_port KIND prints the port of the account, container or object server.
server_port() {
	case $1 in
	account) echo "$ACCOUNT_PORT" ;;
	container) echo "$CONTAINER_PORT" ;;
	object) echo "$OBJECT_PORT" ;;
	esac
}

# server_conf NAME PORT: the [DEFAULT] section every server shares. StatsD goes to statsd_exporter
# with a per-server prefix setting, as an operator's config management writes it.
server_conf() {
	cat <<CONF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $2
# One process per server (no forked worker): its CPU and RSS are the recorded PID's, which is what
# the harness accounts per step.
workers = 0
user = $(id -un)
swift_dir = $E2E_DIR/etc
devices = $SWIFT_DEVICES
mount_check = false
log_name = $1
log_level = WARNING
log_statsd_host = 127.0.0.1
log_statsd_port = $STATSD_PORT
log_statsd_metric_prefix = swift
CONF
}

write_confs() {
	local etc=$E2E_DIR/etc
	mkdir -p "$etc"
	{
		server_conf proxy-server "$PROXY_PORT"
		cat <<CONF

[pipeline:main]
# proxy-logging is what emits the proxy's StatsD request metrics.
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats tempauth proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$MEMCACHE_PORT
# Swift's defaults (0.3 s connect, 1 s pool) are for dedicated proxies; on a CPU shared with other
# work, memcached answers late and tempauth answers 503 to a login.
connect_timeout = 2.0
pool_timeout = 2.0
io_timeout = 5.0

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:listing_formats]
use = egg:swift#listing_formats
CONF
	} >"$etc/proxy-server.conf"
	local kind port
	for kind in account container object; do
		port=$(server_port "$kind")
		{
			server_conf "$kind-server" "$port"
			cat <<CONF

[pipeline:main]
pipeline = $kind-server

[app:$kind-server]
use = egg:swift#$kind
CONF
		} >"$etc/$kind-server.conf"
	done
}

# build_rings: account, container and object (policy 0) rings over the 3 devices d1..d3, one zone
# each, 3 replicas.
build_rings() {
	local etc=$E2E_DIR/etc kind port pids=()
	for kind in account container object; do
		port=$(server_port "$kind")
		# The three rings in parallel: swift-ring-builder is a Python start-up per call.
		(
			quiet swift-ring-builder "$etc/$kind.builder" create "$PART_POWER" 3 1 &&
				quiet swift-ring-builder "$etc/$kind.builder" add "r1z1-127.0.0.1:$port/d1" 100 \
					"r1z2-127.0.0.1:$port/d2" 100 "r1z3-127.0.0.1:$port/d3" 100 &&
				quiet swift-ring-builder "$etc/$kind.builder" rebalance
		) &
		pids+=($!)
	done
	local p
	for p in "${pids[@]}"; do wait "$p" || die "swift-ring-builder failed"; done
	for kind in account container object; do
		[ -s "$etc/$kind.ring.gz" ] || die "no $kind ring"
	done
}

up() {
	install_missing
	down quiet
	mkdir -p "$E2E_DIR"/{run,log,pids} "$SWIFT_DEVICES"/{d1,d2,d3}
	local ports=(PROXY_PORT ACCOUNT_PORT CONTAINER_PORT OBJECT_PORT MEMCACHE_PORT STATSD_PORT STATSD_WEB_PORT
		NODE_PORT PROM_PORT STORCAST_PORT)
	alloc_ports "${ports[@]}"
	write_env "${ports[@]}" "ST_AUTH=http://127.0.0.1:$PROXY_PORT/auth/v1.0" ST_USER=test:tester ST_KEY=testing
	local t0=$SECONDS
	# A failed bring-up shows why, then leaves nothing running.
	trap 'rc=$?; if [ $rc != 0 ]; then dump_state; down; fi' EXIT

	log "statsd_exporter (StatsD :$STATSD_PORT, metrics :$STATSD_WEB_PORT)"
	start_daemon statsd_exporter "$STATSD_EXPORTER" --statsd.mapping-config="$MAPPING" \
		--statsd.listen-udp="127.0.0.1:$STATSD_PORT" --statsd.listen-tcp="127.0.0.1:$STATSD_PORT" \
		--web.listen-address="127.0.0.1:$STATSD_WEB_PORT"
	wait_http "http://127.0.0.1:$STATSD_WEB_PORT/metrics" 30 || die "statsd_exporter not serving"

	log "memcached :$MEMCACHE_PORT"
	start_daemon memcached memcached -l 127.0.0.1 -p "$MEMCACHE_PORT" -U 0 -m 64 -u "$(id -un)"

	log "rings (2^$PART_POWER partitions, 3 replicas over d1..d3 in $SWIFT_DEVICES)"
	write_confs
	build_rings

	local kind
	for kind in account container object proxy; do
		start_daemon "$kind-server" "swift-$kind-server" "$E2E_DIR/etc/$kind-server.conf"
	done
	log "proxy :$PROXY_PORT, account :$ACCOUNT_PORT, container :$CONTAINER_PORT, object :$OBJECT_PORT"
	wait_http "http://127.0.0.1:$PROXY_PORT/healthcheck" 60 || die "swift proxy not serving"
	for kind in account container object; do
		pid_alive "$(cat "$E2E_DIR/pids/$kind-server.pid")" || die "swift $kind-server exited (log/$kind-server.out)"
	done
	# A tempauth login and a container round trip through python3-swiftclient prove the path.
	local i
	for i in $(seq 1 30); do
		timeout 20 swift -A "http://127.0.0.1:$PROXY_PORT/auth/v1.0" -U test:tester -K testing stat >/dev/null 2>&1 && break
		[ "$i" = 30 ] && { timeout 20 swift -A "http://127.0.0.1:$PROXY_PORT/auth/v1.0" -U test:tester -K testing stat || true; die "swift stat failed"; }
		sleep 1
	done

	log "node_exporter :$NODE_PORT, prometheus :$PROM_PORT"
	start_daemon node_exporter prometheus-node-exporter --web.listen-address="127.0.0.1:$NODE_PORT" --no-collector.systemd
	write_prom_conf swift "$STATSD_WEB_PORT"
	start_prometheus
	wait_http "http://127.0.0.1:$NODE_PORT/metrics" 30 || die "node_exporter not serving"
	wait_http "http://127.0.0.1:$PROM_PORT/-/ready" 60 || die "prometheus not ready"
	log "cluster up in $((SECONDS - t0)) s"
	trap - EXIT
}

down() {
	[ -d "$E2E_DIR" ] || [ -d "$SWIFT_DEVICES" ] || return 0
	[ -d "$E2E_DIR" ] && stop_all "$E2E_DIR"
	[ "${1:-}" = quiet ] || log "stopped every daemon under $E2E_DIR"
	rm -rf "$E2E_DIR" "$SWIFT_DEVICES"
}

status() {
	[ -f "$E2E_DIR/env" ] || { echo "no cluster under $E2E_DIR"; return 1; }
	list_daemons
}

cluster_main "$@"
