# Storcast. The two commands of the README:
#   make run    storcast on the embedded simulated cluster (no other setup)
#   make test   every test; installs what the tests need when it is missing
GO        ?= go
GOFLAGS_T ?= -count=1 -timeout 40m

# Each part adds its own test target to TEST_TARGETS in its .mk file.
TEST_TARGETS := test-go
include grafana-plugin/plugin.mk
include alerts/alerts.mk
include dashboards/dashboards.mk
include e2e/ceph/ceph.mk
include e2e/swift/swift.mk

# Build information stamped into the binaries (storcast --version, the
# build_info series), the way the Prometheus projects stamp theirs.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
REVISION  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BRANCH    ?= $(shell git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)
VERSION_PKG := github.com/prometheus/common/version
LDFLAGS   := -X $(VERSION_PKG).Version=$(VERSION) -X $(VERSION_PKG).Revision=$(REVISION) \
	-X $(VERSION_PKG).Branch=$(BRANCH) -X $(VERSION_PKG).BuildUser=$(shell id -un)@$(shell hostname) \
	-X $(VERSION_PKG).BuildDate=$(shell date -u +%Y%m%d-%H:%M:%S)

.PHONY: run test deps test-go bench build vet lint
run:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/storcast --demo --web.listen-address=127.0.0.1:9595

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/...

deps:
	scripts/install-test-deps.sh

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "not gofmt-clean:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# staticcheck, and deadcode -test: no function reachable from neither a
# binary nor a test (versions pinned in scripts/install-test-deps.sh, run
# from the directory it installs them to).
GOBIN_DIR = $(shell scripts/install-test-deps.sh bin-dir)
lint:
	@out=$$($(GOBIN_DIR)/staticcheck ./...) || { echo "$$out"; echo "staticcheck: findings above"; exit 1; }
	@out=$$($(GOBIN_DIR)/deadcode -test ./... 2>&1) || { echo "$$out"; echo "deadcode failed"; exit 1; }; \
	test -z "$$out" || { echo "$$out"; echo "deadcode: unreachable functions above"; exit 1; }

# deps before the rest, also under make -j (a prerequisite list has no
# order there): the linters and the tests' programs come from it.
test: deps
	$(MAKE) vet lint
	$(MAKE) $(TEST_TARGETS)

test-go:
	$(GO) test $(GOFLAGS_T) ./...

# Benchmarks: figures go into the README's speed table. The timeout covers
# BenchmarkFitCyclePrometheus at 1,000 hosts (81 s a full fit).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x -timeout 60m ./...
