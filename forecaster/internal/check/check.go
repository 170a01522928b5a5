// Package check holds the input checks the forecaster packages share: one
// message shape for bad input and one test for a usable number. Each package
// keeps its own ErrInput sentinel (made by Input), so errors.Is tells callers
// whose input was wrong; this package only words and formats the errors.
package check

import (
	"errors"
	"fmt"
	"math"
)

// Input returns the constructor of a package's bad-input errors (see
// Errorf) and the sentinel they wrap: a new error "invalid input" that no
// other package's matches under errors.Is. A package declares both at once:
//
//	var inputError, ErrInput = check.Input()
func Input() (errorf func(arg, format string, a ...any) error, sentinel error) {
	sentinel = errors.New("invalid input")
	return func(arg, format string, a ...any) error { return Errorf(sentinel, arg, format, a...) }, sentinel
}

// Errorf returns an error wrapping sentinel that names the argument:
// "<sentinel>: <arg>: <message>".
func Errorf(sentinel error, arg, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", sentinel, arg, fmt.Sprintf(format, a...))
}

// Finite reports whether x is neither NaN nor ±Inf.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
