# Alert rules: the generated rules are current, promtool checks and
# unit-tests them, amtool checks the example Alertmanager configuration. The Go
# tests in ./alerts (run by test-go) add the coverage check (every alert has a
# positive and a negative case), runbooks and threshold validation.
.PHONY: test-alerts alerts
TEST_TARGETS += test-alerts

alerts:
	$(GO) generate ./alerts

test-alerts:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	$(GO) run ./alerts/gen -thresholds alerts/thresholds.yml -out $$tmp/storcast.rules.yml && \
	diff -u alerts/storcast.rules.yml $$tmp/storcast.rules.yml || \
	{ echo "alerts/storcast.rules.yml is out of date: run make alerts and commit it"; exit 1; }
	promtool check rules alerts/storcast.rules.yml
	promtool test rules alerts/tests/*.test.yml
	amtool check-config alerts/alertmanager.example.yml

# End to end with real processes (storagesim, Prometheus, storcast,
# Alertmanager): 4-8 minutes, behind the e2e build tag so that test-go
# (go test ./...) does not run it a second time.
.PHONY: e2e-alerts test-e2e-alerts
TEST_TARGETS += test-e2e-alerts
e2e-alerts:
	$(GO) test -tags e2e -count=1 -timeout 20m -v ./e2e/alerts/

test-e2e-alerts:
	$(GO) test -tags e2e -count=1 -timeout 20m ./e2e/alerts/
