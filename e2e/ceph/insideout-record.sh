#!/usr/bin/env bash
# insideout-record.sh ARCHIVE OUT [FIT_AT [SECONDS]]: the Inside-Out model storcast fits at FIT_AT
# (Unix seconds; default the load's start, run.env's load_start) in an archived run
# (ARCHIVE=DIR make e2e-ceph), by storcast's own config (lib.sh archive_session's storcast.yml: lookback 30m,
# step 5s, as run.sh's main storcast), source and fitter, and the host feature vectors of every 5 s
# for SECONDS (default 90) after it with the IOPS the cluster did, as JSON (scorer insideout-record).
# forecaster/insideout/testdata/recorded-*.json predict offline (TestRecordedLoadStart). Leaves
# nothing running.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ARCHIVE=$(cd "${1:?usage: insideout-record.sh ARCHIVE OUT [FIT_AT [SECONDS]]}" && pwd)
OUT=${2:?usage: insideout-record.sh ARCHIVE OUT [FIT_AT [SECONDS]]}
# shellcheck source=lib.sh
. "$HERE/lib.sh"

fit_at=${3:-$(sed -n 's/^load_start=//p' "$ARCHIVE/run.env")}
[ -n "$fit_at" ] || die "$ARCHIVE: no load_start in run.env"
archive_session insideout-record "$ARCHIVE"
"$BIN/scorer" insideout-record -config "$E2E_DIR/storcast.yml" \
	-fit-at "$fit_at" -to $((fit_at + ${4:-90})) -step 5s -out "$OUT"
