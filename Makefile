# Storcast. The two commands of the README:
#   make run    storcast on the embedded simulated cluster (no other setup)
#   make test   every test; installs what the tests need when it is missing
GO        ?= go
GOFLAGS_T ?= -count=1 -timeout 40m

# Each part adds its own test target to TEST_TARGETS in its .mk file.
TEST_TARGETS := test-go
-include grafana-plugin/plugin.mk
-include alerts/alerts.mk
-include dashboards/dashboards.mk
-include e2e/ceph/ceph.mk
-include e2e/swift/swift.mk

.PHONY: run test deps test-go bench build vet lint
run:
	$(GO) run ./cmd/storcast --demo

build:
	$(GO) build -o bin/ ./cmd/...

deps:
	scripts/install-test-deps.sh

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "not gofmt-clean:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# staticcheck, and deadcode -test: no function reachable from neither a
# binary nor a test (versions pinned in scripts/install-test-deps.sh).
GOBIN_DIR := $(shell $(GO) env GOPATH)/bin
lint:
	@out=$$($(GOBIN_DIR)/staticcheck ./...) || { echo "$$out"; echo "staticcheck: findings above"; exit 1; }
	@out=$$($(GOBIN_DIR)/deadcode -test ./...); test -z "$$out" || { echo "$$out"; echo "deadcode: unreachable functions above"; exit 1; }

test: deps vet lint
	$(MAKE) $(TEST_TARGETS)

test-go:
	$(GO) test $(GOFLAGS_T) ./...

# Benchmarks: figures go into the README's speed table.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./...
