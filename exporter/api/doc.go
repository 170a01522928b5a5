// Package api serves storcast's HTTP API under /api/v1 (types in
// exporter/apiv1) and implements the landing page's ui.Provider with the same
// code. Every answer is computed from the engine's current snapshot; nothing
// from a request reaches a PromQL query (cluster names are looked up among
// the configured clusters, numbers are parsed and range-checked).
//
// Errors are returned in the envelope with errorType bad_data (400, the
// message starts with the parameter's name), not_found (404, unknown
// cluster), unavailable (503, no model fitted yet) or internal (500).
package api
