// Package protocoltest drives the built plugin binary the way Grafana does:
// it starts the executable, completes hashicorp/go-plugin's handshake with
// the SDK's grpcplugin types (protocol version 2, magic cookie
// grafana_plugin_type=datasource), and calls CheckHealth, CallResource and
// QueryData over gRPC with pluginv2 messages, with the data source settings
// of provisioning/datasources/storcast.yaml.
//
// The storcast it talks to is a real `storcast --demo` process built from
// the repository's ./cmd/storcast (STORCAST_UNDER_TEST=demo, the default),
// or, with STORCAST_UNDER_TEST=fake, the in-process fake of
// pkg/storcast/storcasttest. The package's tests share one demo process
// (started by the first, stopped by TestMain). TestFakeAgreesWithStorcast
// sends the same /api/v1 requests to that fake and to the demo and wants the
// same status, errorType and error text from both (but for a few texts
// that print each server's own clock or load): the plugin's unit tests run
// against the fake, which validates with the server's own functions
// (exporter/apiv1 params.go).
package protocoltest
