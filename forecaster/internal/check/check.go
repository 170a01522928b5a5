// Package check holds the input checks the forecaster packages share: one
// message shape for bad input and one test for a usable number. Each package
// keeps its own ErrInput sentinel, so errors.Is tells callers whose input was
// wrong; this package only formats the error around it.
package check

import (
	"fmt"
	"math"
)

// Errorf returns an error wrapping sentinel that names the argument:
// "<sentinel>: <arg>: <message>".
func Errorf(sentinel error, arg, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", sentinel, arg, fmt.Sprintf(format, a...))
}

// Finite reports whether x is neither NaN nor ±Inf.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
