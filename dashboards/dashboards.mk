# Dashboards: the committed JSON is what the generator writes (drift
# check), and every PromQL expression in it returns data over the series
# contract (Go tests in ./dashboards, which test-go also runs).
.PHONY: test-dashboards dashboards
TEST_TARGETS += test-dashboards

dashboards:
	$(GO) generate ./dashboards

test-dashboards:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	$(GO) run ./dashboards/gen -out $$tmp && \
	diff -ru dashboards/json $$tmp || \
	{ echo "dashboards/json is out of date: run make dashboards and commit it"; exit 1; }
	$(GO) test -count=1 -run 'PromQL|Plugin|Structure' ./dashboards/
