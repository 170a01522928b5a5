package models

import (
	"fmt"
	"time"
)

// A Waiter is the error of a fit that did not fail: the model waits for
// data it needs and the history does not hold yet (more windows, a max
// IOPS). The engine reports it as waiting, not as a fit error
// (storcast_model_waiting_for_history, not storcast_model_fit_error): a
// new, idle or never-saturated cluster is not a failure, and must not
// page.
type Waiter interface {
	error
	// WaitingFor says what, e.g. "19 more windows with load (about
	// 19m0s)" at a grid step of step.
	WaitingFor(step time.Duration) string
}

var (
	_ Waiter = (*Waiting)(nil)
	_ Waiter = (*NeedsCapacity)(nil)
)

// Waiting is the error of a fit that has too little history yet: it says
// what it waits for, so that a person reads "waiting for 19 more windows
// (about 19m)" instead of a solver's complaint.
type Waiting struct {
	Model      string
	Have, Need int    // usable windows (grid steps) now, and the fewest the fit takes
	What       string // what a window must hold, e.g. "with load and latency"
}

func (w *Waiting) Error() string {
	return fmt.Sprintf("%s: %d windows %s, need at least %d", w.Model, w.Have, w.What, w.Need)
}

// More is how many more windows the fit waits for.
func (w *Waiting) More() int { return max(w.Need-w.Have, 1) }

// WaitingFor implements Waiter.
func (w *Waiting) WaitingFor(step time.Duration) string {
	return fmt.Sprintf("%d more windows %s (about %v)", w.More(), w.What, time.Duration(w.More())*step)
}

// NeedsCapacity is the error of a fit that reads the capacity model's max
// IOPS when there is none: no calibration file, and a history that never
// saturated at enough read ratios to estimate one (the capacity model then
// serves a lower bound at most, or waits itself). Reason says why, from
// the capacity model's side when known.
type NeedsCapacity struct {
	Model  string
	Reason string
}

func (e *NeedsCapacity) Error() string {
	if e.Reason == "" {
		return e.Model + ": needs the capacity model's max IOPS, which is not fitted"
	}
	return e.Model + ": needs the capacity model's max IOPS: " + e.Reason
}

// WaitingFor implements Waiter.
func (e *NeedsCapacity) WaitingFor(time.Duration) string {
	return "a max IOPS: a calibration file, or saturated windows at two or more read ratios in the history"
}

// needWindows returns a Waiting error when have < need.
func needWindows(model string, have, need int, what string) error {
	if have < need {
		return &Waiting{Model: model, Have: have, Need: need, What: what}
	}
	return nil
}
