package models

import "fmt"

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

// needWindows returns a Waiting error when have < need.
func needWindows(model string, have, need int, what string) error {
	if have < need {
		return &Waiting{Model: model, Have: have, Need: need, What: what}
	}
	return nil
}
