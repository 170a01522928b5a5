#!/usr/bin/env bash
# cluster.sh up|down|status: a real single-host Ceph cluster (1 mon, 1 mgr with the prometheus
# module, 3 memstore OSDs, a size-3 pool "rbd" with an image "img") plus Debian's node_exporter
# and Prometheus scraping the mgr, the node and storcast every 5 s. All on 127.0.0.1, under
# $E2E_DIR, with private ports; nothing in /etc/ceph. "down" kills exactly the recorded PIDs.
#
# Knobs (environment): E2E_DIR, MEMSTORE_BYTES (per OSD), IMAGE_MB, PG_NUM.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

MEMSTORE_BYTES=${MEMSTORE_BYTES:-1073741824}
IMAGE_MB=${IMAGE_MB:-256}
PG_NUM=${PG_NUM:-32}

install_missing() {
	local need=()
	command -v ceph-mon >/dev/null || need+=(ceph)
	command -v ceph-mgr >/dev/null || need+=(ceph-mgr)
	command -v fio >/dev/null || need+=(fio)
	command -v prometheus >/dev/null || need+=(prometheus)
	command -v prometheus-node-exporter >/dev/null || need+=(prometheus-node-exporter)
	install_packages "${need[@]}"
}

write_conf() {
	cat >"$CONF" <<CONF
[global]
fsid = $FSID
mon host = v2:127.0.0.1:$MON_PORT
mon initial members = a
public network = 127.0.0.0/8
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
run dir = $E2E_DIR/run
admin socket = $E2E_DIR/run/\$name.asok
log file = $E2E_DIR/log/\$name.log
pid file = $E2E_DIR/run/\$name.pid
crash dir = $E2E_DIR/crash
# One host: replicas go to different OSDs, not hosts.
osd crush chooseleaf type = 0
osd pool default size = 3
osd pool default min size = 2
osd pool default pg autoscale mode = off
mon warn on pool no redundancy = false
auth allow insecure global id reclaim = false
mon allow pool delete = true
mon data avail warn = 2
mon data avail crit = 1
ms bind msgr1 = false
debug ms = 0
debug osd = 0
debug mon = 1
debug mgr = 1
# The mgr's view of OSD counters (and thus Prometheus's) refreshes every mgr stats period.
mgr stats period = 2

[mon]
mon data = $E2E_DIR/mon.\$id
keyring = $E2E_DIR/mon.\$id/keyring

[mgr]
mgr data = $E2E_DIR/mgr.\$id
keyring = $E2E_DIR/mgr.\$id/keyring

[osd]
osd data = $E2E_DIR/osd.\$id
keyring = $E2E_DIR/osd.\$id/keyring
osd objectstore = memstore
memstore device bytes = $MEMSTORE_BYTES
# Without the page set, small random overwrites fragment memory and RSS grows without bound.
memstore page set = true
osd op num shards = 2
osd op num threads per shard = 2
# Short PG logs: memstore keeps them in RAM with the data.
osd min pg log entries = 500
osd max pg log entries = 500
osd pg log dups tracked = 500

[client]
keyring = $E2E_DIR/admin.keyring
# fio must measure the cluster, not librbd's cache.
rbd cache = false
CONF
}

wait_pgs_clean() {
	local t=${1:-120} st
	for _ in $(seq 1 "$t"); do
		st=$(cephc pg stat 2>/dev/null || true)
		# "32 pgs: 32 active+clean; ..." -- all PGs in exactly one state, active+clean.
		if [[ $st =~ ^([0-9]+)\ pgs:\ ([0-9]+)\ active\+clean\; ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
			return 0
		fi
		sleep 1
	done
	log "PGs not clean after ${t}s: $st"
	return 1
}

up() {
	install_missing
	down quiet
	mkdir -p "$E2E_DIR"/{run,log,pids,crash}
	FSID=$(uuidgen)
	local ports=(MON_PORT MGR_PROM_PORT NODE_PORT PROM_PORT STORCAST_PORT)
	alloc_ports "${ports[@]}"
	write_env FSID "${ports[@]}" IMAGE_MB POOL=rbd IMAGE=img
	write_conf
	local t0=$SECONDS
	# A failed bring-up shows why, then leaves nothing running.
	trap 'rc=$?; if [ $rc != 0 ]; then dump_state; down; fi' EXIT

	log "mon: keyrings, monmap, mkfs (port $MON_PORT)"
	ceph-authtool --create-keyring "$E2E_DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
	ceph-authtool --create-keyring "$E2E_DIR/admin.keyring" --gen-key -n client.admin \
		--cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
	ceph-authtool "$E2E_DIR/mon.keyring" --import-keyring "$E2E_DIR/admin.keyring" >/dev/null
	monmaptool --create --fsid "$FSID" --addv a "[v2:127.0.0.1:$MON_PORT]" "$E2E_DIR/monmap" >/dev/null
	ceph-mon --conf "$CONF" --mkfs -i a --monmap "$E2E_DIR/monmap" --keyring "$E2E_DIR/mon.keyring"
	start_daemon mon.a ceph-mon --conf "$CONF" -i a -f
	for _ in $(seq 1 60); do cephc -s >/dev/null 2>&1 && break; sleep 0.5; done
	cephc -s >/dev/null || die "mon did not come up"

	log "mgr (prometheus module on 127.0.0.1:$MGR_PROM_PORT)"
	mkdir -p "$E2E_DIR/mgr.x"
	cephc auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' mds 'allow *' -o "$E2E_DIR/mgr.x/keyring"
	# --force: the mon learns module options only once a mgr has reported them.
	cephc config set mgr mgr/prometheus/server_addr 127.0.0.1 --force
	cephc config set mgr mgr/prometheus/server_port "$MGR_PROM_PORT" --force
	cephc config set mgr mgr/prometheus/scrape_interval 5 --force
	cephc mgr module enable prometheus --force
	start_daemon mgr.x ceph-mgr --conf "$CONF" -i x -f

	log "3 memstore OSDs ($((MEMSTORE_BYTES >> 20)) MiB each)"
	local i uuid id
	for i in 0 1 2; do
		uuid=$(uuidgen)
		id=$(cephc osd new "$uuid")
		mkdir -p "$E2E_DIR/osd.$id"
		ceph-osd --conf "$CONF" -i "$id" --no-mon-config --mkfs --mkkey --osd-uuid "$uuid" >"$E2E_DIR/log/osd.$id.mkfs" 2>&1 ||
			{ cat "$E2E_DIR/log/osd.$id.mkfs"; die "osd.$id mkfs failed"; }
		quiet cephc auth add "osd.$id" osd 'allow *' mon 'allow profile osd' mgr 'allow profile osd' \
			-i "$E2E_DIR/osd.$id/keyring"
		start_daemon "osd.$id" ceph-osd --conf "$CONF" -i "$id" -f
	done
	for _ in $(seq 1 60); do
		[ "$(cephc osd stat -f json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["num_up_osds"])' 2>/dev/null)" = 3 ] && break
		sleep 1
	done

	log "pool rbd (size 3, $PG_NUM PGs), image img (${IMAGE_MB} MiB)"
	quiet cephc osd pool create rbd "$PG_NUM" "$PG_NUM"
	quiet cephc osd pool set rbd size 3
	quiet cephc osd pool application enable rbd rbd
	wait_pgs_clean 120 || { dump_state; die "pool did not become active+clean"; }
	rbdc create --size "$IMAGE_MB" rbd/img

	log "node_exporter :$NODE_PORT, prometheus :$PROM_PORT"
	start_daemon node_exporter prometheus-node-exporter --web.listen-address="127.0.0.1:$NODE_PORT"
	write_prom_conf ceph "$MGR_PROM_PORT" honor_labels
	start_prometheus
	wait_http "http://127.0.0.1:$MGR_PROM_PORT/metrics" 90 || { dump_state; die "mgr prometheus module not serving"; }
	wait_http "http://127.0.0.1:$NODE_PORT/metrics" 30 || die "node_exporter not serving"
	wait_http "http://127.0.0.1:$PROM_PORT/-/ready" 60 || die "prometheus not ready"
	log "cluster up in $((SECONDS - t0)) s"
	cephc -s
	trap - EXIT
}

down() {
	[ -d "$E2E_DIR" ] || return 0
	stop_all "$E2E_DIR"
	[ "${1:-}" = quiet ] || log "stopped every daemon under $E2E_DIR"
	# memstore cannot survive an unclean stop, and the data is in RAM anyway: nothing to keep.
	rm -rf "$E2E_DIR"
}

status() {
	[ -f "$E2E_DIR/env" ] || { echo "no cluster under $E2E_DIR"; return 1; }
	cephc -s
	cephc osd tree
	list_daemons
}

cluster_main "$@"
