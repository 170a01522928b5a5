package enum

import "testing"

type color int

var colorNames = []string{0: "red", 2: "blue"}

func TestString(t *testing.T) {
	for _, c := range []struct {
		v    color
		want string
	}{{0, "red"}, {2, "blue"}, {1, "color(1)"}, {3, "color(3)"}, {-1, "color(-1)"}} {
		if got := String(c.v, "color", colorNames); got != c.want {
			t.Errorf("String(%d) = %q, want %q", int(c.v), got, c.want)
		}
	}
}
