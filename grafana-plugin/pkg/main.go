// Command gpx_storcast_forecast_datasource is the backend of the Storcast
// Grafana data source. Grafana starts it and talks to it over gRPC
// (hashicorp/go-plugin); it is not meant to be run by hand.
package main

import (
	"os"

	"github.com/grafana/grafana-plugin-sdk-go/backend/datasource"
	"github.com/grafana/grafana-plugin-sdk-go/backend/log"

	"github.com/storcast/storcast/grafana-plugin/pkg/plugin"
)

func main() { os.Exit(run()) }

func run() int {
	if err := datasource.Manage(plugin.PluginID, plugin.NewDatasource, datasource.ManageOpts{}); err != nil {
		log.DefaultLogger.Error("serving the plugin failed", "error", err.Error())
		return 1
	}
	return 0
}
