// Package storcast is the plugin's client of storcast's HTTP API (/api/v1,
// the contract in github.com/storcast/storcast/exporter/apiv1).
//
// Every call sends one request with the caller's context, decodes the
// Prometheus-style envelope and returns either the typed data or an *Error
// whose Kind says what failed, so the data source can tell Grafana which
// status to show:
//
//	Unreachable  no connection (refused, DNS, reset)        -> Bad gateway
//	Timeout      the context's deadline passed               -> Gateway timeout
//	BadData      storcast answered 400 bad_data              -> Bad request
//	NotFound     storcast answered 404 not_found (cluster)   -> Not found
//	Unavailable  storcast answered 503 (no model fitted yet) -> Service unavailable
//	Internal     storcast answered 500, or an unknown status -> Internal
//	BadResponse  the answer was not a storcast envelope,     -> Bad gateway
//	             or had more points than the request asks for
//	Unauthorized 401 or 403: storcast's basic auth (its web  -> Unauthorized
//	             config file) or a proxy wants credentials
//
// Response bodies are read up to MaxBodyBytes; a longer answer is an error,
// not a truncated result. A forecast or capacity curve with more points than
// asked for is one too: within MaxBodyBytes, its frames could still cost
// gigabytes.
package storcast
