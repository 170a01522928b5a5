#!/usr/bin/env bash
# calibration-length.sh: does a calibration point's run length change what it measures? On the
# e2e cluster (cluster.sh up, the image filled as run.sh fills it), each of 100% read, 100% write
# and a 50/50 mix at 4 KiB (librbd, iodepth 32, as calibrate.fio) is run for 10 s (the CI's
# CAL_RUNTIME) and for 60 s (about a load step's 65 s), after a 3 s ramp each, interleaved,
# REPS times. Prints one line per run and a table of the means to stdout (results/
# calibration-length.md keeps one output); leaves nothing running.
#
# Why: the calibration's 10 s 50/50 jobs came out 6-10% below the 65 s saturated load step at the
# same mix in the runs of 2026-11-24 (and far below in earlier runs), which decides whether the
# interference γ looks real.
#
# Knobs: E2E_DIR (/tmp/storcast-callength), REPS (2), SHORT (10), LONG (60).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export E2E_DIR=${E2E_DIR:-/tmp/storcast-callength}
REPS=${REPS:-2}
SHORT=${SHORT:-10}
LONG=${LONG:-60}
# shellcheck source=lib.sh
. "$HERE/lib.sh"
fresh_filled_cluster
common=(--ioengine=rbd --clientname=admin --pool="$POOL" --rbdname="$IMAGE" --direct=1 --iodepth=32
	--bs=4k --time_based --ramp_time=3 --randrepeat=0 --output-format=json)

iops() { python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print("%.0f" % (j["read"]["iops"]+j["write"]["iops"]))'; }
printf '| rep | job | %s s IOPS | %s s IOPS |\n|---:|---|---:|---:|\n' "$SHORT" "$LONG"
for rep in $(seq 1 "$REPS"); do
	for job in randread randwrite randrw50; do
		args=(--rw="$job")
		[ "$job" = randrw50 ] && args=(--rw=randrw --rwmixread=50)
		s=$(fio "${common[@]}" --name="$job-short" "${args[@]}" --runtime="$SHORT" </dev/null | iops)
		l=$(fio "${common[@]}" --name="$job-long" "${args[@]}" --runtime="$LONG" </dev/null | iops)
		printf '| %s | %s | %s | %s |\n' "$rep" "$job" "$s" "$l"
	done
done
echo
echo "load: $(uptime)"
