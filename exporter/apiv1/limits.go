package apiv1

// Bounds of the API's parameters. A request outside them is answered
// bad_data (400) with the parameter's name and the bound; clients (the
// Grafana plugin) check the same constants before they ask.
const (
	// MaxForecastPoints bounds the points of one forecast, as Prometheus
	// bounds a range query: (end-start)/step+1 must not exceed it.
	MaxForecastPoints = 11000
	// MinStepSeconds is the smallest forecast step.
	MinStepSeconds = 1
	// MaxTimeOffsetSeconds bounds start and end of a forecast: both lie
	// within ten years (of 365.25 days) either side of the server's clock.
	MaxTimeOffsetSeconds = 10 * 365.25 * 24 * 3600

	// MinIOSizeBytes and MaxIOSizeBytes bound an IO size (capacity curve,
	// what-if): one sector to the largest IO any storage tool issues.
	MinIOSizeBytes = 512
	MaxIOSizeBytes = 64 << 20
	// MaxIOSizes bounds the sizes of a what-if's IO size mix.
	MaxIOSizes = 64
	// MinCurvePoints and MaxCurvePoints bound the read ratios of a
	// capacity curve.
	MinCurvePoints = 2
	MaxCurvePoints = 1001

	// MaxHostsAdded bounds a what-if's added hosts.
	MaxHostsAdded = 10000
	// MaxExtraIOPS bounds the magnitude of a what-if's extra IOPS: a
	// billion operations per second is far beyond any single cluster.
	MaxExtraIOPS = 1e9

	// MaxClusterNameBytes bounds a cluster name in a request.
	MaxClusterNameBytes = 256
	// MaxRequestBodyBytes bounds a request body (a what-if is a few
	// hundred bytes).
	MaxRequestBodyBytes = 64 << 10
)
