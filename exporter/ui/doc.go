// Package ui serves storcast's landing page at "/": per cluster, the headroom
// figures and two small plots rendered on the server as SVG, so that
// `storcast --demo` shows its forecasts in a browser without Grafana.
//
// The figures, per cluster, are read from a Provider (the exporter implements
// it on top of its fitted models):
//
//	IOPS now         CapacityCurve.Current.IOPS
//	max IOPS         CapacityCurve.Current.MaxIOPS (at the current read ratio and IO size)
//	headroom ratio   1 - IOPS/maxIOPS, clamped to [0, 1] (0 = saturated)
//	read ratio       CapacityCurve.Current.ReadRatio
//	IO size          CapacityCurve.Current.IOSizeBytes (op-weighted mean)
//	knee IOPS        LatencyCurve.KneeIOPS: the IOPS at which the mean latency
//	                 crosses the SLO (LatencyCurve.SLOSeconds), with the range from
//	                 the upper bound's crossing (the earliest) to the lower bound's;
//	                 a bound that does not cross within the curve shows "beyond"
//
// The plots are the latency-vs-IOPS forecast (the 95% band as a filled area,
// the mean as a line, observed windows as dots, the SLO and the knee as
// dashed lines, today's IOPS as a vertical line) and max IOPS against the read
// ratio at the current IO size with the current mix marked.
//
// Everything that comes from the Provider is escaped: text goes through
// html/template or html.EscapeString, numbers are formatted with strconv, and
// non-finite values are left out of the plots rather than written into SVG
// attributes. A Provider error for one cluster is shown in that cluster's
// section; the rest of the page still renders.
package ui
