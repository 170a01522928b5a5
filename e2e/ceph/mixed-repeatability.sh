#!/usr/bin/env bash
# mixed-repeatability.sh: how far apart does the same saturated 50/50 point land on the e2e
# cluster, over one session, and does a rate-limited ramp before it (as the load phase runs one)
# move it? On a fresh cluster (cluster.sh up, the image filled as run.sh fills it), at 4 KiB,
# librbd, iodepth 32:
#   ROUNDS calibration rounds as calibrate.fio runs them (100% read, 50/50, 100% write; 3 s ramp
#   + CAL_RUNTIME each), then the load phase's 50% ramp (20/40/60/80% of the rounds' mean 50/50,
#   RAMP_STEP s each) and one saturated 50/50 step of STEP s without ramp (as run.sh), then
#   ROUNDS more rounds and a second step.
# Each 50/50 figure is also given as a ratio to the paper's line through the pure points measured
# next to it (the same round; for a step, the rounds before and after it): a drift of the whole
# host moves the pure points with it and cancels in the ratio, interference does not. Prints a
# table to stdout (results/mixed-repeatability.md keeps one output); leaves nothing running.
#
# Why: the load phase's saturated 50% step did 6-12% more than the calibration's 10 s 50/50 runs
# in every e2e-ceph run of 2026-11-24, while calibration-length.sh found no clear effect of run
# length. This separates "the step is special" from "one point on this host lands anywhere in a
# wide band".
#
# Knobs: E2E_DIR (/tmp/storcast-mixrep), ROUNDS (3), CAL_RUNTIME (10), RAMP_STEP (20), STEP (65).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export E2E_DIR=${E2E_DIR:-/tmp/storcast-mixrep}
ROUNDS=${ROUNDS:-3}
CAL_RUNTIME=${CAL_RUNTIME:-10}
RAMP_STEP=${RAMP_STEP:-20}
STEP=${STEP:-65}
# shellcheck source=lib.sh
. "$HERE/lib.sh"
fresh_filled_cluster
common=(--ioengine=rbd --clientname=admin --pool="$POOL" --rbdname="$IMAGE" --direct=1 --iodepth=32
	--bs=4k --time_based --randrepeat=0 --output-format=json)

iops() { python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print("%.0f" % (j["read"]["iops"]+j["write"]["iops"]))'; }
# One line per fio run: "<kind> <label> <IOPS> <UTC time>", kept in $E2E_DIR/runs.txt.
record() { echo "$1 $2 $3 $(date -u +%H:%M:%S)" | tee -a "$E2E_DIR/runs.txt" >&2; }
cal_round() {
	record read "$1" "$(fio "${common[@]}" --name=read --rw=randread --ramp_time=3 --runtime="$CAL_RUNTIME" </dev/null | iops)"
	record mix "$1" "$(fio "${common[@]}" --name=mix50 --rw=randrw --rwmixread=50 --ramp_time=3 --runtime="$CAL_RUNTIME" </dev/null | iops)"
	record write "$1" "$(fio "${common[@]}" --name=write --rw=randwrite --ramp_time=3 --runtime="$CAL_RUNTIME" </dev/null | iops)"
}
ramp_and_step() {
	local mean f r
	mean=$(awk '$1 == "mix" {s += $3; n++} END {printf "%.0f", s / n}' "$E2E_DIR/runs.txt")
	for f in 20 40 60 80; do
		r=$((mean * f / 100))
		record ramp "f$f" "$(fio "${common[@]}" --name="r50-f$f" --rw=randrw --rwmixread=50 --runtime="$RAMP_STEP" \
			--rate_iops="$((r / 2)),$((r / 2))" </dev/null | iops)"
	done
	record step "$1" "$(fio "${common[@]}" --name=r50-sat --rw=randrw --rwmixread=50 --runtime="$STEP" </dev/null | iops)"
}
: >"$E2E_DIR/runs.txt"
n=0
for _ in $(seq 1 "$ROUNDS"); do n=$((n + 1)); cal_round "round$n"; done
ramp_and_step step1
for _ in $(seq 1 "$ROUNDS"); do n=$((n + 1)); cal_round "round$n"; done
ramp_and_step step2

# The table: every 50/50 figure against the paper's line through its neighbouring pure points.
awk -v cal="$CAL_RUNTIME" -v step="$STEP" '
function paper(r, w) { return 1 / (0.5 / r + 0.5 / w) }
{ kind[NR] = $1; label[NR] = $2; v[NR] = $3; t[NR] = $4 }
$1 == "read" { lastR = $3 } $1 == "write" { lastW = $3 }
END {
	print "| run | time (UTC) | 50/50 IOPS | pure read / write beside it | paper line | ratio |"
	print "|---|---|---:|---|---:|---:|"
	for (i = 1; i <= NR; i++) {
		if (kind[i] != "mix" && kind[i] != "step") continue
		# The pure points beside it: for a round, its own; for a step, the mean of the last
		# round before and the first after.
		r = 0; w = 0; nr = 0; nw = 0
		if (kind[i] == "mix") {
			r = v[i - 1]; w = v[i + 1]; nr = 1; nw = 1; what = label[i] " (" cal " s)"
		} else {
			for (j = i - 1; j >= 1 && (nr == 0 || nw == 0); j--) {
				if (kind[j] == "read" && nr == 0) { r += v[j]; nr = 1 }
				if (kind[j] == "write" && nw == 0) { w += v[j]; nw = 1 }
			}
			br = 0; bw = 0
			for (j = i + 1; j <= NR && (br == 0 || bw == 0); j++) {
				if (kind[j] == "read" && br == 0) { r += v[j]; nr++; br = 1 }
				if (kind[j] == "write" && bw == 0) { w += v[j]; nw++; bw = 1 }
			}
			what = label[i] " (" step " s, after the ramp)"
		}
		r /= nr; w /= nw; p = paper(r, w)
		printf "| %s | %s | %d | %d / %d | %d | %.3f |\n", what, t[i], v[i], r, w, p, v[i] / p
	}
}' "$E2E_DIR/runs.txt"
echo
echo "Ramp steps (rate-limited, IOPS reached): $(awk '$1 == "ramp" {printf "%s %s  ", $2, $3}' "$E2E_DIR/runs.txt")"
echo
echo "load: $(uptime)"
