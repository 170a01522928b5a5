#!/usr/bin/env bash
# latency-record.sh ARCHIVE OUT [mlisp START END]: the record a latency model learned from in an
# archived run (ARCHIVE=DIR make e2e-ceph), as JSON, by storcast's own config, source and fitters
# (scorer latency-record, on archive_session's storcast.yml). Leaves nothing running.
# - Without MODEL: the capacity-anchored model's (models.QueueingRecord): the windows of the what-if
#   snapshot's lookback (run.sh's "mark" after the 50% ramp's 60% step: from LOAD_START plus a
#   rate window and 5 s to 3 s after that step, every 3 s), placed on the frontier of the run's
#   calibration. The records in exporter/models/testdata/recorded-latency refit offline
#   (TestRecordedLatencyRecomputed), so that a change to the latency model is scored on real Ceph
#   in seconds.
# - mlisp [START END] (Unix seconds): the columns storcast's M-LISP fitter received over that range,
#   every 3 s. The M-LISP snapshot fits over [t - lookback, t], t the start of its fit truncated to
#   the 3 s step. Without START and END they come from the archive (runs from 2026-11-25 03:30 UTC):
#   lookback and step from mlisp_snapshot.txt, t the step at or before M-LISP's lastFit in mlisp_status.json
#   (the fit cycle began up to a second or two before it: if the refit does not match the served
#   mlisp_lower.json, t is one step earlier). Older archives: lookback from the log line "M-LISP
#   snapshot: storcast with lookback ...", t within the seconds after it.
#   forecaster/mlisp/testdata/recorded-ceph-*.json refit offline (TestRecordedCephWalk).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
usage="usage: latency-record.sh ARCHIVE OUT [mlisp [START END]]"
ARCHIVE=$(cd "${1:?$usage}" && pwd)
OUT=${2:?$usage}
# shellcheck source=lib.sh
. "$HERE/lib.sh"

load_start=$(sed -n 's/^load_start=//p' "$ARCHIVE/run.env")
f60_end=$(sed -n 's/.*"name":"r50-f60".*"end":\([0-9]*\).*/\1/p' "$ARCHIVE/steps.jsonl")
if [ -z "$load_start" ] || [ -z "$f60_end" ]; then
	die "$ARCHIVE: no load_start in run.env or no r50-f60 step in steps.jsonl"
fi
archive_session latency-record "$ARCHIVE"
if [ "${3:-}" = mlisp ]; then
	start=${4:-} end=${5:-} step=3s
	if [ -z "$end" ]; then
		lookback=$(sed -n 's/^lookback=//p' "$ARCHIVE/mlisp_snapshot.txt" 2>/dev/null)
		step=$(sed -n 's/^step=//p' "$ARCHIVE/mlisp_snapshot.txt" 2>/dev/null)
		fitted=$(grep -o '"mlisp":{[^}]*' "$ARCHIVE/mlisp_status.json" 2>/dev/null | sed -n 's/.*"lastFit":\([0-9.]*\).*/\1/p')
		if [ -z "$lookback" ] || [ -z "$step" ] || [ -z "$fitted" ]; then
			die "$ARCHIVE: no mlisp_snapshot.txt or M-LISP lastFit in mlisp_status.json: give START END"
		fi
		end=$(awk -v t="$fitted" -v s="${step%s}" 'BEGIN{printf "%d", int(t / s) * s}')
		start=$((end - lookback))
	fi
	"$BIN/scorer" latency-record -config "$E2E_DIR/storcast.yml" -model mlisp \
		-start "${start:?$usage}" -end "$end" -step "$step" -out "$OUT"
else
	"$BIN/scorer" latency-record -config "$E2E_DIR/storcast.yml" \
		-start $((load_start + 65)) -end $((f60_end + 3)) -step 3s -out "$OUT"
fi
