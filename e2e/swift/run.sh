#!/usr/bin/env bash
# run.sh: the real-Swift end-to-end suite (make e2e-swift). Phases:
#   build     storcast, the scorer (shared with e2e/ceph), the load driver (e2e/swift/loadgen) and
#             storagesim's test binary (its comparison with the real Swift series)
#   cluster   cluster.sh up: Swift all-in-one, statsd_exporter, node_exporter, Prometheus
#   fill      256 objects of each size the load uses, so GETs read real objects
#   calibrate loadgen calibrate: saturated 100% GET, 100% PUT and 50/50 at 4 KiB and 64 KiB, in
#             CAL_ROUNDS rounds (the README's recipe: a 50/50 point per size, three runs); the
#             calibration YAML storcast imports (calibration.yml: means, runs, the 50/50 points as
#             mixed points) and every run (calibration-runs.json)
#   load      storcast (with the calibration) runs while loadgen drives the plan the scorer derives
#             from the calibration (scorer SwiftPlan), after a quiet minute, in steps of 65 s (longer
#             than storcast's 1m rate window, so each reading sees its own step): rate-limited first (a ramp
#             at 50% GETs, 20, 40, 60% of the predicted capacity; M-LISP snapshot; 80%; 70% and 30%
#             GETs and 16 KiB objects, not calibrated, at 50%), then saturated (50, 70, 30% GETs,
#             16 KiB, and mixed 4 KiB / 64 KiB objects)
#   passive   a storcast without calibration file estimates capacity from the load history
#   score     the scorer writes results/latest.md (and .json); exits non-zero past a bound
# The real Swift series names statsd_exporter produced are written to testdata/real-swift-series.txt
# (storagesim's golden test compares its Swift personality with them), and the run fails when
# storagesim's Swift series are not among them (storagesim's test, built in the build phase).
# Exits non-zero on any failure, printing the daemons' state and logs; leaves nothing running.
#
# Knobs: E2E_DIR, SWIFT_DEVICES, STEP_SECONDS (65), GAP_SECONDS (5), CAL_RUNTIME (12), CAL_ROUNDS (3),
# CONCURRENCY (16), SLO_FRACTION (0.5), KEEP=1 (leave the cluster up; "make e2e-swift-down").
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

# A step must outlast storcast's 1m rate window plus the staleness of what the scorer reads at the
# step's end + 5 s (storcast's 5 s refresh of a 5 s scrape): 65 s of load (63 s measured after
# loadgen's 2 s ramp) leave every window read at a step's end inside that step and its 5 s gap.
STEP_SECONDS=${STEP_SECONDS:-65}
GAP_SECONDS=${GAP_SECONDS:-5}
CAL_RUNTIME=${CAL_RUNTIME:-12}
CAL_ROUNDS=${CAL_ROUNDS:-3}
CONCURRENCY=${CONCURRENCY:-16}
SLO_FRACTION=${SLO_FRACTION:-0.5}
RESULTS=${RESULTS:-$HERE/results}
GOLDEN=${GOLDEN:-$HERE/testdata/real-swift-series.txt}
BIN=${BIN:-$ROOT/bin/e2e-swift}
GO=${GO:-go}

run_begin

swift_rss_mb() { local s=0 n; for n in proxy-server account-server container-server object-server; do s=$((s + $(rss_mb $n))); done; echo $s; }

# start_storcast's calibration file format (SLO_MS comes from the calibration).
CALIBRATION_FORMAT=yaml

# capture_series writes the Swift series statsd_exporter serves, one per line, with the quantile
# and le labels dropped (their values are the mapping's, not Swift's), sorted and unique.
capture_series() {
	curl -fsS --max-time 10 "http://127.0.0.1:$STATSD_WEB_PORT/metrics" |
		grep '^swift_' | sed -E 's/ [^ ]+$//; s/(,)?(quantile|le)="[^"]*"//g; s/\{,/{/; s/\{\}//' | sort -u
}

main() {
	[ "$STEP_SECONDS" -ge 65 ] || log "WARNING: STEP_SECONDS=$STEP_SECONDS is shorter than storcast's 1m rate window (+5 s): readings at a step's end also see the step before"
	phase build
	mkdir -p "$BIN" "$RESULTS"
	(cd "$ROOT" && $GO build -o "$BIN/scorer" ./e2e/ceph/scorer && $GO build -o "$BIN/loadgen" ./e2e/swift/loadgen &&
		$GO build -o "$BIN/storcast" ./cmd/storcast && $GO test -c -o "$BIN/storagesim.test" ./storagesim)

	phase cluster
	"$HERE/cluster.sh" up
	# shellcheck disable=SC1091
	. "$E2E_DIR/env"
	export ST_AUTH ST_USER ST_KEY
	PROM=http://127.0.0.1:$PROM_PORT

	phase fill
	"$BIN/loadgen" fill -sizes 4k,16k,64k -objects 256 -concurrency 8

	phase calibrate
	c0=$(cpu_ticks)
	"$BIN/loadgen" calibrate -sizes 4k,64k -concurrency "$CONCURRENCY" -duration "${CAL_RUNTIME}s" -rounds "$CAL_ROUNDS" -cluster e2e \
		-out "$E2E_DIR/calibration.yml" -runs "$E2E_DIR/calibration-runs.json"
	log "calibration: steal $(steal_frac "$c0" "$(cpu_ticks)"), Swift RSS $(swift_rss_mb) MB"
	cat "$E2E_DIR/calibration.yml" >&2
	"$BIN/scorer" plan -system swift -calibration "$E2E_DIR/calibration.yml" >"$E2E_DIR/plan.txt"
	cat "$E2E_DIR/plan.txt" >&2
	# The latency SLO: a fraction of the mean latency at the saturated 50/50 4 KiB calibration point
	# (over its rounds), so that the ramp's measured latency crosses it below saturation and a knee
	# exists to compare.
	SLO_MS=$(python3 -c 'import json,sys
js=[j for j in json.load(open(sys.argv[1]))["jobs"] if j["jobname"]=="cal-r50-4k"]
n=sum(j["read"]["iops"]+j["write"]["iops"] for j in js)
lat=sum(j["read"]["iops"]*j["read"]["lat_ns"]["mean"]+j["write"]["iops"]*j["write"]["lat_ns"]["mean"] for j in js)/n/1e6
print(max(1,round(lat*float(sys.argv[2]))))' "$E2E_DIR/calibration-runs.json" "$SLO_FRACTION")
	log "latency SLO ${SLO_MS} ms ($SLO_FRACTION of the saturated 50/50 4 KiB latency)"

	phase load
	start_storcast main "$STORCAST_PORT" 30m "$E2E_DIR/calibration.yml"
	# storcast's rates are over 1m windows: a minute without load, so that no window of the load's
	# lookback (M-LISP's snapshot, the passive estimate) still holds calibration requests.
	sleep 60
	: >"$E2E_DIR/steps.jsonl"
	LOAD_START=$(date +%s)
	while read -r -u 3 kind name readpct bs rate_r rate_w; do
		case $kind in
		load) ;;
		mark)
			# M-LISP needs 30 windows: the three 65 s steps before it give ~44 at 5 s.
			mlisp_snapshot 3s
			continue
			;;
		*) continue ;;
		esac
		c0=$(cpu_ticks)
		d0=$(daemon_ticks)
		o0=$(observer_ticks)
		f0=$(child_ticks)
		t0=$(date +%s.%N)
		"$BIN/loadgen" run -name "$name" -read-pct "$readpct" -sizes "$bs" -objects 256 -concurrency "$CONCURRENCY" \
			-rate $((rate_r + rate_w)) -duration "${STEP_SECONDS}s" -out "$E2E_DIR/step-$name.json" </dev/null
		t1=$(date +%s.%N)
		c1=$(cpu_ticks)
		# The step as the scorer sees it is loadgen's measured interval (after its login and ramp),
		# not the process's lifetime.
		read -r m0 m1 < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(j["measure_start_unix"], j["measure_end_unix"])' "$E2E_DIR/step-$name.json")
		st=$(steal_frac "$c0" "$c1")
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')
		busy=$(busy_cores "$c0" "$c1" "$secs")
		# CPU of the system under test (Swift servers, memcached, statsd_exporter, Prometheus,
		# storcast, loadgen) vs everything else on the machine: the other work is the noisy neighbour.
		ours=$(cores_of "$(($(daemon_ticks) - d0 + $(child_ticks) - f0))" "$secs")
		observer=$(cores_of "$(($(observer_ticks) - o0))" "$secs")
		printf '{"name":"%s","readPct":%s,"bs":"%s","rateRead":%s,"rateWrite":%s,"start":%s,"end":%s,"fio":"%s","steal":%s,"busyCores":%s,"oursCores":%s,"observerCores":%s,"osdRssMB":%s}\n' \
			"$name" "$readpct" "$bs" "$rate_r" "$rate_w" "$m0" "$m1" "$E2E_DIR/step-$name.json" "$st" "$busy" "$ours" "$observer" "$(swift_rss_mb)" >>"$E2E_DIR/steps.jsonl"
		log "step $name: $(tail -n1 "$E2E_DIR/steps.jsonl")"
		sleep "$GAP_SECONDS"
	done 3<"$E2E_DIR/plan.txt"
	LOAD_END=$(date +%s)
	# StatsD is UDP: datagrams the kernel dropped for a full receive buffer are Swift metrics lost.
	log "UDP receive buffer errors since boot (this network namespace): $(awk '/^Udp:/{n++} /^Udp:/ && n==2{print $6}' /proc/net/snmp)"
	# Let the last step's counters reach Prometheus and storcast.
	sleep 15

	mkdir -p "$(dirname "$GOLDEN")"
	capture_series >"$E2E_DIR/real-swift-series.txt"
	[ -s "$E2E_DIR/real-swift-series.txt" ] || die "statsd_exporter serves no swift_ series: StatsD plumbing broken"
	# Copied before the check: a failing run leaves what real Swift serves in the golden file (git diff
	# shows it) rather than in $E2E_DIR, which the teardown removes.
	cp "$E2E_DIR/real-swift-series.txt" "$GOLDEN"
	# storagesim's Swift personality against this run's capture: make test only compares it with the
	# golden file of the run before.
	(cd "$ROOT/storagesim" && STORAGESIM_REAL_SWIFT_SERIES="$E2E_DIR/real-swift-series.txt" \
		"$BIN/storagesim.test" -test.run '^TestSwiftSeriesNamesMatchRealSwift$') >&2 ||
		die "storagesim's Swift series do not match the ones real Swift served (above); the capture is in $GOLDEN"

	phase passive
	run_passive

	log_history_ratio "$STORCAST_PORT"

	phase score
	# Bounds of this suite, set from repeated runs on the shared 2-core machine: see docs/e2e.md
	# (Swift section, "Bounds, and why"). The rest are the scorer's defaults, as for Ceph.
	BOUNDS=(-max-cluster-vs-client 0.35 -max-conservation 6.0 -max-live-max-iops 6.0 -max-headroom-abs 0.8 -max-mlisp 4.0 -max-live-vs-model 0.25 -max-factor-off 6.0 -max-passive 0.9)
	PHASES_SO_FAR="$PHASES"
	"$BIN/scorer" score -system swift -steps "$E2E_DIR/steps.jsonl" -calibration "$E2E_DIR/calibration.yml" \
		-prometheus "$PROM" -storcast "http://127.0.0.1:$STORCAST_PORT" -slo "$(awk -v m="$SLO_MS" 'BEGIN{print m/1000}')" \
		-mlisp "$E2E_DIR/mlisp_lower.json" -passive "$E2E_DIR/passive_curve.json" -passive-status "$E2E_DIR/passive_clusters.json" \
		-passive-io-size 4096 -calibration-runs "$E2E_DIR/calibration-runs.json" -load-start "$LOAD_START" -load-end "$LOAD_END" "${BOUNDS[@]}" \
		-phases "$PHASES_SO_FAR" -out "$RESULTS/latest.md"
}

main "$@"
