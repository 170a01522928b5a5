package backtest

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzRun: arbitrary windows and splits give an error or a report whose
// accuracy is in [0, 1] and whose counts add up.
func FuzzRun(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00@"), 1.5)
	f.Fuzz(func(t *testing.T, data []byte, split float64) {
		var ws []Window
		for i := 0; i+16 <= len(data); i += 16 {
			ws = append(ws, Window{
				Load:   math.Float64frombits(binary.LittleEndian.Uint64(data[i:])),
				Target: math.Float64frombits(binary.LittleEndian.Uint64(data[i+8:])),
			})
		}
		r, err := Run(&funcModel{f: func(x float64) float64 { return x }}, ws, split, Options{MinTrain: 1})
		if err != nil {
			return
		}
		if r.Accuracy < 0 || r.Accuracy > 1 || math.IsNaN(r.Accuracy) {
			t.Fatalf("accuracy %v", r.Accuracy)
		}
		if r.Train+r.Test > len(ws) {
			t.Fatalf("train %d + test %d > %d windows", r.Train, r.Test, len(ws))
		}
	})
}
