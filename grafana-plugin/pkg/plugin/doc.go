// Package plugin is the backend of the storcast-forecast-datasource Grafana
// data source: it turns Grafana's queries into calls of storcast's HTTP API
// (/api/v1) and storcast's answers into data frames.
//
// Query types and the frames they return:
//
//	forecast       one wide time-series frame "<cluster> <series>": time,
//	               value, lower, upper (upper is filled down to lower, so
//	               Grafana draws the 95% band), over the dashboard's range
//	               (and past its end by the query's horizon, if any); a
//	               second frame "<cluster> <series> observed" holds what
//	               storcast saw until now
//	latencyCurve   "latency": iops, mean, lower, upper (seconds);
//	               "observed": iops, latency; "slo": the SLO as a line.
//	               For an XY chart.
//	capacityCurve  "capacity": readRatio 0..1, maxIops, maxReadIops,
//	               maxWriteIops at one IO size; "current": today's mix
//	whatIf         "whatif": one row: iops, maxIops, utilization, headroom,
//	               latency lower/mean/upper
//
// Errors are returned per query inside the response, never as a failure of
// the whole request, with a status saying what failed: 502 storcast
// unreachable or not answering as storcast, 504 timeout, 400 bad query
// (named field and value), 404 unknown cluster (with the clusters storcast
// serves), 503 storcast has no fitted model yet.
//
// CallResource serves GET clusters (storcast's cluster list, for the query
// editor's picker) and GET buildinfo. CheckHealth reports storcast's
// version and clusters.
package plugin
