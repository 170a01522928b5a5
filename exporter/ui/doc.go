// Package ui serves storcast's landing page at "/": per cluster, how much
// headroom there is and when it runs out, with three small plots rendered on
// the server as SVG, so that `storcast --demo` shows its forecasts in a
// browser without Grafana.
//
// The figures, per cluster, are read from a Provider (the exporter implements
// it on top of its fitted models):
//
//	IOPS now         CapacityCurve.Current.IOPS
//	max IOPS         CapacityCurve.Current.MaxIOPS (at the current read ratio and IO size)
//	headroom         maxIOPS - IOPS (at least 0), and 1 - IOPS/maxIOPS clamped
//	                 to [0, 1] (0 = saturated)
//	read ratio       CapacityCurve.Current.ReadRatio
//	IO sizes         CapacityCurve.Current.ReadSizeBytes and WriteSizeBytes: the
//	                 two classes clients issue (their op-weighted mean
//	                 IOSizeBytes is a size nobody issues; it is shown only when
//	                 the classes are not given)
//	saturation ETAs  Cluster.SaturationETAs: when the demand trend's daily peaks
//	                 reach max IOPS and the latency SLO knee, from Cluster.DataAsOfUnix,
//	                 with SaturationETA.Band in words ("95%: 36 days to 45 days",
//	                 "from 12 days, maybe not within a year" without a late end);
//	                 an ETA of 0 says why (SaturationETA.Reason: the latency
//	                 over its SLO, which is not max IOPS reached, or utilization
//	                 at capacity); a demand trend that has not fitted shows what
//	                 it waits for
//	badges           "stale" (the source is down or a model's last fit is older
//	                 than fit.stale_after) and "warming up" (Cluster.WarmingUp:
//	                 the rate window was not full)
//	data as of       Cluster.DataAsOfUnix, LastFitUnix and NextFitUnix, with
//	                 "ago"/"in" against the server's clock
//	knee IOPS        LatencyCurve.KneeIOPS: the IOPS at which the mean latency
//	                 crosses the SLO (LatencyCurve.SLOSeconds), with the range from
//	                 the upper bound's crossing (the earliest) to the lower bound's;
//	                 a bound that does not cross within the curve shows "beyond"
//
// The plots are the demand trend over time (Forecast series "iops": observed
// IOPS, the trend's mean and 95% band, max IOPS and the SLO knee as limits,
// a vertical line where the trend reaches each; from one to seven days back
// to 1.25 times the capacity ETA ahead), the latency-vs-IOPS forecast (the
// 95% band as a filled area, the mean as a line, observed windows as dots,
// the SLO and the knee as dashed lines, today's IOPS and the capacity at
// today's mix as vertical lines) and max IOPS against the read ratio at the
// mean IO size with the current mix marked.
//
// Everything that comes from the Provider is escaped: text goes through
// html/template or html.EscapeString, numbers are formatted with strconv, and
// non-finite values are left out of the plots rather than written into SVG
// attributes. A Provider error for one cluster is shown in that cluster's
// section; the rest of the page still renders.
package ui
