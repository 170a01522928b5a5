// Package api serves storcast's HTTP API under /api/v1 (types in
// exporter/apiv1) and implements the landing page's ui.Provider with the same
// code. Every answer is computed from the engine's current snapshot; nothing
// from a request reaches a PromQL query (cluster names are looked up among
// the configured clusters, numbers are parsed and range-checked).
//
// Every parameter is bounded (apiv1's limits: times within ten years of
// now, at most apiv1.MaxForecastPoints points per forecast, IO sizes in
// [512 B, 64 MiB], ...), so one request's work is bounded; the forecast loop
// also stops when the request's context is done. Numbers that are not
// finite never reach the JSON encoder: a band bound that does not exist is
// null, a forecast or curve point without a finite value is left out, and
// an answer with no finite value at all is unavailable.
//
// Errors are returned in the envelope with errorType bad_data (400, the
// message starts with the parameter's name), not_found (404, unknown
// cluster), unavailable (503, no model fitted yet) or internal (500).
package api
