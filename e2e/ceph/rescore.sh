#!/usr/bin/env bash
# rescore.sh ARCHIVE [scorer flags...]: score a finished run again from what run.sh archived
# (ARCHIVE=DIR make e2e-ceph): its fio JSON, steps and Prometheus's data. A Prometheus on a copy of
# that data answers the scorer's queries at the run's timestamps, and a storcast with the run's
# calibration file serves the capacity curve (it depends on the file only). Writes
# ARCHIVE/rescored.md (RESULTS_MD=... to write elsewhere); leaves nothing running.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ARCHIVE=$(cd "${1:?usage: rescore.sh ARCHIVE [scorer flags...]}" && pwd)
shift
# shellcheck source=lib.sh
. "$HERE/lib.sh"

field() { sed -n "s/^$1=//p" "$ARCHIVE/run.env"; }
phases=$(field phases)
load_start=$(field load_start)
load_end=$(field load_end)
archive_session rescore "$ARCHIVE"
(cd "$ROOT" && go build -o "$BIN/storcast" ./cmd/storcast)
start_daemon storcast "$BIN/storcast" --config.file="$E2E_DIR/storcast.yml"
for _ in $(seq 1 60); do
	curl -fsS "http://127.0.0.1:$ST_PORT/api/v1/capacity_curve?cluster=e2e&io_size_bytes=4096" 2>/dev/null | grep -q '"status":"success"' && break
	sleep 1
done

# The steps name their fio JSON under the run's E2E_DIR: take the archived copies.
sed -E 's|"fio":"[^"]*/(step-[^"/]*\.json)"|"fio":"'"$ARCHIVE"'/\1"|' "$ARCHIVE/steps.jsonl" >"$E2E_DIR/steps.jsonl"
"$BIN/scorer" score -steps "$E2E_DIR/steps.jsonl" -calibration "$ARCHIVE/calibration.json" \
	-prometheus "http://127.0.0.1:$PROM_PORT" -storcast "http://127.0.0.1:$ST_PORT" \
	-mlisp "$ARCHIVE/mlisp_lower.json" -whatif "$ARCHIVE/whatif_lower.json" -served-latency "$ARCHIVE/served_latency_lower.json" -passive "$ARCHIVE/passive_curve.json" -passive-status "$ARCHIVE/passive_clusters.json" \
	-load-start "$load_start" -load-end "$load_end" -phases "$phases" -out "${RESULTS_MD:-$ARCHIVE/rescored.md}" "$@"
