// Package models holds what Grafana sends the plugin: the data source's
// settings (jsonData and secureJsonData) and the JSON of one query.
//
// Every query field may hold a template variable in the dashboard; the
// frontend replaces them before the query reaches the backend, so numeric
// fields arrive as JSON numbers or as strings ("0.7", "70%", "4KiB") and are
// parsed here, with errors that name the field and the value.
package models
