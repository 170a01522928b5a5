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

func TestInputSentinelsAreDistinct(t *testing.T) {
	inputA, errA := Input()
	_, errB := Input()
	err := inputA("x", "must be positive, got %v", -1)
	if got, want := err.Error(), "invalid input: x: must be positive, got -1"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
	if !errors.Is(err, errA) {
		t.Fatalf("%v does not wrap its own sentinel", err)
	}
	if errors.Is(err, errB) || errA.Error() != errB.Error() {
		t.Fatalf("sentinels: %v matches the other package's, or the words differ (%q, %q)", err, errA, errB)
	}
}
