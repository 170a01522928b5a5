#!/usr/bin/env bash
# Installs what the tests need when it is missing, from Debian's packages and
# the npm registry. Safe to run again: it installs only what is absent.
# "install-test-deps.sh bin-dir" prints the directory the Go linters go to
# (the Makefile runs them from there) and installs nothing.
set -euo pipefail

# go install's directory: GOBIN when set, else the first GOPATH entry's bin.
gobin=$(go env GOBIN)
if [ -z "$gobin" ]; then
	gopath=$(go env GOPATH)
	gobin=${gopath%%:*}/bin
fi
if [ "${1:-}" = bin-dir ]; then
	echo "$gobin"
	exit 0
fi

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have prometheus             || need+=(prometheus)
have promtool               || need+=(prometheus)
have prometheus-alertmanager || need+=(prometheus-alertmanager)
have prometheus-node-exporter || need+=(prometheus-node-exporter)
have victoria-metrics       || need+=(victoria-metrics)
have chromium               || need+=(chromium)
have curl                   || need+=(curl)

if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "install-test-deps: missing Debian packages: ${need[*]} (run as root or install them)" >&2
		exit 1
	fi
	echo "install-test-deps: apt-get install ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# Another apt (unattended upgrades, a parallel install) may hold the
	# dpkg lock: wait for it rather than fail.
	apt-get -o DPkg::Lock::Timeout=600 update -qq
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# Go linters at pinned versions, from the Go module proxy, into $gobin (GOBIN set to it, so that
# go install writes where this looks). The version is read from the binary itself (go version -m),
# so a linter installed at another version by hand is replaced.
while read -r name pkg; do
	have=$(go version -m "$gobin/$name" 2>/dev/null | awk '$1 == "mod" { print $3; exit }') || true
	if [ "$have" != "${pkg##*@}" ]; then
		echo "install-test-deps: go install $pkg (found ${have:-none})"
		GOBIN=$gobin GOFLAGS=-buildvcs=false go install "$pkg"
	fi
done <<'PINS'
staticcheck honnef.co/go/tools/cmd/staticcheck@v0.8.2
deadcode golang.org/x/tools/cmd/deadcode@v0.52.0
PINS

# The Grafana plugin's frontend: exact versions from the committed lock file, installed again when
# the lock file changed since (a stamp of its digest in node_modules).
if [ -f grafana-plugin/package-lock.json ]; then
	lock=$(sha256sum grafana-plugin/package-lock.json | cut -d' ' -f1)
	if [ "$(cat grafana-plugin/node_modules/.storcast-lock 2>/dev/null)" != "$lock" ]; then
		echo "install-test-deps: npm ci (grafana-plugin)"
		(cd grafana-plugin && npm ci --no-audit --no-fund --loglevel=error)
		echo "$lock" >grafana-plugin/node_modules/.storcast-lock
	fi
fi
