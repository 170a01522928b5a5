#!/usr/bin/env bash
# catalog.sh measure|check: the rule-set advisor's catalog on the real Ceph of e2e/ceph.
#
#   measure  runs every common and derived workload of catalog/workloads.txt without a rule set
#            (baseline) and with each rule set of catalog/rulesets.txt (librbd QoS limits set on
#            the image with `rbd config image set`), RUNS times each, interleaved (repeat, then
#            workload, then baseline and each rule set), and writes the catalog
#            (catalog/ceph-catalog.yml, via `scorer catalog`) and the leave-one-out figures
#            (results/catalog.md, via `scorer catalog-loo`). Uses the cluster under $E2E_DIR when
#            one is up (its env file), else brings one up (cluster.sh) and fills the image, and
#            takes it down at the end unless KEEP=1.
#   check    the CI phase (run.sh): the held-back workload(s), CHECK_RUNS times each way, on the
#            cluster under $E2E_DIR; `scorer catalog-check` trains the advisor on the committed
#            catalog, predicts each rule set's boost and fails when one is grossly off
#            (CATALOG_BOUNDS; docs/e2e.md "Rule-set advisor").
#
# Each run: fio through librbd (--ioengine=rbd), a random-read and a random-write job at once,
# RAMP s of ramp then RUNTIME s measured. The sequential share is not a feature: the OSDs are
# memstore, so no disk counter sees their IO and the live source could not measure it.
#
# Knobs: E2E_DIR, RUNS (3), CHECK_RUNS (2), RAMP (2), RUNTIME (8), BIN, CATALOG, CATALOG_BOUNDS,
# OUT (results/catalog.md), KEEP.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

RUNS=${RUNS:-3}
CHECK_RUNS=${CHECK_RUNS:-2}
RAMP=${RAMP:-2}
RUNTIME=${RUNTIME:-8}
BIN=${BIN:-$ROOT/bin/e2e-ceph}
CATALOG=${CATALOG:-$HERE/catalog/ceph-catalog.yml}
OUT=${OUT:-$HERE/results/catalog.md}
# Set from the catalog's repeated runs: see docs/e2e.md "Rule-set advisor".
CATALOG_BOUNDS=${CATALOG_BOUNDS:--max-error 0.75 -sign-margin 0.15}
WORKLOADS=$HERE/catalog/workloads.txt
RULESETS=$HERE/catalog/rulesets.txt

rule_sets() { grep -v '^#' "$RULESETS" | awk 'NF {print $1}'; }
settings_of() { awk -v n="$1" '!/^#/ && $1 == n {print $2}' "$RULESETS"; }
# workloads ROLE...: the lines of workloads.txt with one of the roles.
workloads() { grep -v '^#' "$WORKLOADS" | awk -v roles=" $* " 'NF && index(roles, " " $6 " ")'; }

# clear_rule_sets removes every rule set's settings from the image (those that are set).
clear_rule_sets() {
	local rs
	for rs in $(rule_sets); do unset_rule_set "$rs" quiet; done
}

# set_rule_set NAME sets NAME's settings on the image and reads them back; baseline sets nothing.
set_rule_set() {
	local kv
	[ "$1" = baseline ] && return 0
	for kv in $(settings_of "$1" | tr , ' '); do
		rbdc config image set "$POOL/$IMAGE" "${kv%%=*}" "${kv#*=}"
		[ "$(rbdc config image get "$POOL/$IMAGE" "${kv%%=*}")" = "${kv#*=}" ] || die "rule set $1: ${kv%%=*} did not take"
	done
}

# unset_rule_set NAME [quiet] removes NAME's settings (quiet: those not set are no error).
unset_rule_set() {
	local kv
	[ "$1" = baseline ] && return 0
	for kv in $(settings_of "$1" | tr , ' '); do
		if [ "${2:-}" = quiet ]; then
			rbdc config image remove "$POOL/$IMAGE" "${kv%%=*}" >/dev/null 2>&1 || true
		else
			rbdc config image remove "$POOL/$IMAGE" "${kv%%=*}"
		fi
	done
}

bytes_of() { numfmt --from=iec "${1^^}"; }

# run_one RUNSFILE NAME BS READ_DEPTH WRITE_DEPTH RATE RULESET RUN
run_one() {
	local runs=$1 name=$2 bs=$3 rd=$4 wd=$5 rate=$6 rs=$7 k=$8 rr=0 rw=0 out args
	if [ "$rate" != 0 ]; then
		[ "$name" != common ] || die "the common workload cannot be rate-limited: the rates come from it"
		read -r rr rw < <("$BIN/scorer" catalog-rate -runs "$runs" -workload common -fraction "$rate")
	fi
	out=$RUN_DIR/$name-$rs-$k.json
	set_rule_set "$rs"
	args=(--ioengine=rbd --clientname=admin --pool="$POOL" --rbdname="$IMAGE" --direct=1 --time_based
		--ramp_time="$RAMP" --runtime="$RUNTIME" --randrepeat=0 --bs="$bs" --output-format=json)
	if [ "$rd" != 0 ]; then
		args+=(--name=read --rw=randread --iodepth="$rd")
		[ "$rr" = 0 ] || args+=(--rate_iops="$rr")
	fi
	if [ "$wd" != 0 ]; then
		args+=(--name=write --rw=randwrite --iodepth="$wd")
		[ "$rw" = 0 ] || args+=(--rate_iops="$rw")
	fi
	fio_within $((RAMP + RUNTIME + 120)) "${args[@]}" >"$out" </dev/null
	unset_rule_set "$rs"
	printf '{"workload":"%s","ruleSet":"%s","run":%d,"bs":%s,"fio":"%s","load1":%s}\n' \
		"$name" "$rs" "$k" "$(bytes_of "$bs")" "$out" "$(cut -d' ' -f1 /proc/loadavg)" >>"$runs"
	log "$name $rs run $k (rate $rr/$rw): $(tail -n1 "$runs" | cut -c1-60)... load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# measure_all RUNSFILE REPEATS ROLE...
measure_all() {
	local runs=$1 n=$2 k name bs rd wd rate _role rs
	shift 2
	clear_rule_sets
	for k in $(seq 1 "$n"); do
		while read -r name bs rd wd rate _role; do
			for rs in baseline $(rule_sets); do
				run_one "$runs" "$name" "$bs" "$rd" "$wd" "$rate" "$rs" "$k"
			done
		done < <(workloads "$@")
	done
}

build_scorer() { mkdir -p "$BIN" && (cd "$ROOT" && ${GO:-go} build -o "$BIN/scorer" ./e2e/ceph/scorer); }

measure() {
	local started=0
	build_scorer
	if [ ! -f "$E2E_DIR/env" ]; then
		"$HERE/cluster.sh" up
		started=1
		# shellcheck disable=SC2064
		[ "${KEEP:-0}" = 1 ] || trap "\"$HERE/cluster.sh\" down" EXIT
	fi
	# shellcheck disable=SC1091
	. "$E2E_DIR/env"
	export CEPH_CONF=$CONF
	if [ $started = 1 ]; then
		fio_within 600 --name=fill --ioengine=rbd --clientname=admin --pool="$POOL" --rbdname="$IMAGE" --rw=write --bs=4M \
			--iodepth=8 --direct=1 --output-format=json >"$E2E_DIR/fill.json"
	fi
	RUN_DIR=$E2E_DIR/catalog
	mkdir -p "$RUN_DIR"
	local runs=$RUN_DIR/runs.jsonl t0=$SECONDS up0
	: >"$runs"
	up0=$(uptime)
	# The common workload first in every repeat: the offered-throughput workloads take their rates
	# from its baseline runs.
	measure_all "$runs" "$RUNS" common derived
	log "measured in $((SECONDS - t0)) s; load before: $up0; after: $(uptime)"
	"$BIN/scorer" catalog -runs "$runs" -rulesets "$RULESETS" -out "$CATALOG" -header "$(catalog_header "$up0")"
	# shellcheck disable=SC2016 # backquotes are Markdown here
	{
		printf '# Rule-set advisor on real Ceph: leave-one-out over the derived workloads\n\n'
		printf 'Measured by `e2e/ceph/catalog.sh measure` (RUNS=%s, %s s ramp + %s s per run) on %s UTC: every point\n' "$RUNS" "$RAMP" "$RUNTIME" "$(date -u '+%Y-%m-%d %H:%M')"
		printf 'is %s baseline runs and %s runs with the rule set of one workload on the real cluster (evidence, noisy);\n' "$RUNS" "$RUNS"
		printf 'reproduce the figures from the committed catalog with\n`go run ./e2e/ceph/scorer catalog-loo -catalog e2e/ceph/catalog/ceph-catalog.yml`.\n'
		printf 'Machine: shared 2-core VM; load before: `%s`, after: `%s`.\n\n' "$up0" "$(uptime)"
		"$BIN/scorer" catalog-loo -catalog "$CATALOG"
	} >"$OUT"
	log "catalog $CATALOG, figures $OUT"
}

catalog_header() {
	cat <<EOF
The rule-set advisor's catalog measured on the real Ceph of e2e/ceph (Ceph $(ceph --version | awk '{print $3}'), 3 memstore
OSDs, size-3 pool, one 256 MiB image; one host, a shared 2-core VM) by e2e/ceph/catalog.sh measure:
$(workloads common derived | wc -l) workloads x (baseline + $(rule_sets | wc -l) rule sets) x $RUNS runs of ${RAMP} s ramp + ${RUNTIME} s, fio through librbd,
a random-read and a random-write job at once (catalog/workloads.txt; rule sets: catalog/rulesets.txt).
Features: request_bytes (fio's block size), read_share (read bytes / all bytes, mean of the baseline
runs), original_throughput (mean baseline). No sequential_share: memstore OSDs do no disk IO, so
node_exporter cannot measure it on this cluster. Throughputs in bytes/s. Load at the start: $1
EOF
}

check() {
	# shellcheck disable=SC1091
	. "$E2E_DIR/env"
	export CEPH_CONF=$CONF
	RUN_DIR=$E2E_DIR/catalog-check
	mkdir -p "$RUN_DIR"
	local runs=$RUN_DIR/runs.jsonl
	: >"$runs"
	[ -x "$BIN/scorer" ] || build_scorer
	measure_all "$runs" "$CHECK_RUNS" held-back
	# shellcheck disable=SC2086
	"$BIN/scorer" catalog-check -catalog "$CATALOG" -runs "$runs" -out "${CHECK_OUT:-$RUN_DIR/check.md}" $CATALOG_BOUNDS
}

case ${1:-} in
measure) measure ;;
check) check ;;
*) die "usage: catalog.sh measure|check" ;;
esac
