# The Grafana data-source plugin (grafana-plugin/), included by the root Makefile.
#   make plugin        grafana-plugin/dist/ (module.js, plugin.json, docs, logo, the backend for
#                      linux/amd64, linux/arm64, darwin/arm64, go_plugin_build_manifest) and the
#                      archive Grafana installs, bin/storcast-forecast-datasource-<version>.zip
#   make test-plugin   go vet + go test (unit, gRPC protocol against storcast --demo, packaging
#                      checks), tsc, eslint, vitest, the build, the built module.js loaded as Grafana
#                      loads it, and the check of the built archive
PLUGIN_DIR     := grafana-plugin
PLUGIN_ID      := storcast-forecast-datasource
PLUGIN_VERSION  = $(shell node -p "require('./$(PLUGIN_DIR)/package.json').version")
PLUGIN_ZIP      = $(CURDIR)/bin/$(PLUGIN_ID)-$(PLUGIN_VERSION).zip

TEST_TARGETS += test-plugin
.PHONY: plugin plugin-deps test-plugin

# Exact frontend versions from the committed lock file.
plugin-deps:
	@test -d $(PLUGIN_DIR)/node_modules || (cd $(PLUGIN_DIR) && npm ci --no-audit --no-fund --loglevel=error)

plugin: plugin-deps
	rm -rf $(PLUGIN_DIR)/dist
	cd $(PLUGIN_DIR) && npm run build
	cd $(PLUGIN_DIR) && $(GO) run ./internal/cmd/pluginbuild backend
	cd $(PLUGIN_DIR) && $(GO) run ./internal/cmd/pluginbuild zip $(PLUGIN_ZIP)
	@echo "plugin: $(PLUGIN_ZIP)"

test-plugin: plugin-deps
	cd $(PLUGIN_DIR) && $(GO) vet ./pkg/... ./internal/...
	cd $(PLUGIN_DIR) && $(GO) test $(GOFLAGS_T) -skip TestBuiltArchive ./pkg/... ./internal/...
	cd $(PLUGIN_DIR) && npm run typecheck && npm run lint && npm test
	$(MAKE) plugin
	cd $(PLUGIN_DIR) && npm run test:bundle
	cd $(PLUGIN_DIR) && PLUGIN_ZIP=$(PLUGIN_ZIP) $(GO) test -count=1 -v -run TestBuiltArchive ./internal/pluginbuild/
