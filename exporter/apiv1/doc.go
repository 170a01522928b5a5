// Package apiv1 defines the JSON types of storcast's HTTP API under /api/v1.
// They are the contract between the exporter (which serves them), the landing
// page and the Grafana data-source plugin (which read them); change them only
// in a backward-compatible way.
//
// Every response is an envelope in the style of Prometheus's own API:
//
//	{"status":"success","data":...}
//	{"status":"error","errorType":"bad_data","error":"cluster: unknown cluster \"x\""}
//
// errorType is one of bad_data (HTTP 400), not_found (404), unavailable
// (503: no model fitted yet, source down) and internal (500).
//
// The parameters' parsers and checks are part of the contract too
// (params.go): storcast and the Grafana plugin's fake storcast both call
// them, and a refused parameter is a ParamError, answered bad_data with the
// parameter's name first.
//
// Units follow Prometheus conventions: seconds, bytes, ratios in 0..1, IOPS as
// operations per second, timestamps as Unix seconds (float).
package apiv1
