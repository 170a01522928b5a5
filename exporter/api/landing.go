package api

import (
	"math"
	"sort"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/models"
)

// FitScheduler is implemented by an Engine that tells how often it refits
// (fit.interval). With it, Clusters gives each cluster's next fit time;
// without it (or with a zero interval) nextFit is left out.
type FitScheduler interface {
	FitInterval() time.Duration
}

// describeCluster adds to c what the landing page shows beside the models:
// how current the data is, when the models were fitted and will be next,
// and the saturation ETAs.
func (s *Service) describeCluster(c *apiv1.Cluster, sn *engine.Snapshot) {
	if sn.HasObserved && sn.Observed.Time > 0 && !math.IsInf(sn.Observed.Time, 0) {
		c.DataAsOfUnix = sn.Observed.Time
	}
	if !sn.LastRefresh.IsZero() {
		c.LastRefreshUnix = float64(sn.LastRefresh.UnixMilli()) / 1e3
	}
	for _, m := range sn.Models {
		if m.Fitted && m.LastFitUnix > c.LastFitUnix && !math.IsInf(m.LastFitUnix, 0) {
			c.LastFitUnix = m.LastFitUnix
		}
	}
	if fs, ok := s.eng.(FitScheduler); ok && c.LastFitUnix > 0 {
		if d := fs.FitInterval(); d > 0 {
			c.NextFitUnix = c.LastFitUnix + d.Seconds()
		}
	}
	etas := sn.Outlook.ETAs
	limits := make([]string, 0, len(etas))
	for l := range etas {
		limits = append(limits, l)
	}
	sort.Strings(limits)
	// Seconds from the observation, never negative; +Inf (not within the
	// horizon) is null.
	etaSeconds := func(v float64) *float64 { return ptr(math.Max(v, 0)) }
	for _, l := range limits {
		e := apiv1.SaturationETA{Limit: l, Seconds: etaSeconds(etas[l].Seconds)}
		if etas[l].HasBand {
			e.Band = &apiv1.ETABand{Early: etaSeconds(etas[l].Early), Late: etaSeconds(etas[l].Late)}
		}
		switch etas[l].Reached {
		case models.ReachedLatencyOverSLO:
			e.Reason = apiv1.ETAReasonLatencyOverSLO
		case models.ReachedSaturated:
			e.Reason = apiv1.ETAReasonSaturated
		}
		c.SaturationETAs = append(c.SaturationETAs, e)
	}
}

// withClassSizes adds the mean read and write sizes to the current mix, so
// that a reader sees the two classes the clients issue and not only their
// op-weighted mean.
func withClassSizes(cur *apiv1.CurrentMix, sn *engine.Snapshot) {
	if !sn.HasObserved {
		return
	}
	if v := sn.Observed.ReadSizeBytes; v > 0 && !math.IsInf(v, 0) {
		cur.ReadSizeBytes = v
	}
	if v := sn.Observed.WriteSizeBytes; v > 0 && !math.IsInf(v, 0) {
		cur.WriteSizeBytes = v
	}
}
