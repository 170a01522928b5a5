// Package enum names the values of the forecaster packages' small integer
// enumerations (a model's method, drift or class), so that each type's
// String is its table of names.
package enum

import "fmt"

// String returns names[v], or "typ(v)" (the form stringer gives) for a
// value names has no name for.
func String[T ~int](v T, typ string, names []string) string {
	if v >= 0 && int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}
