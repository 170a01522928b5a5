package check

import (
	"errors"
	"math"
	"testing"
)

func TestErrorfWrapsAndNamesTheArgument(t *testing.T) {
	sentinel := errors.New("invalid input")
	err := Errorf(sentinel, "opts.Level", "must be in (0, 1), got %v", 1.5)
	if !errors.Is(err, sentinel) {
		t.Fatalf("%v does not wrap the sentinel", err)
	}
	if got, want := err.Error(), "invalid input: opts.Level: must be in (0, 1), got 1.5"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
	if errors.Is(err, errors.New("invalid input")) {
		t.Fatal("matched another sentinel with the same text")
	}
}

func TestFinite(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want bool
	}{
		{0, true}, {-1e308, true}, {math.SmallestNonzeroFloat64, true},
		{math.NaN(), false}, {math.Inf(1), false}, {math.Inf(-1), false},
	} {
		if got := Finite(c.x); got != c.want {
			t.Errorf("Finite(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}
