package insideout

import (
	"encoding/binary"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FuzzTrainMatrix: arbitrary (possibly NaN, Inf, huge, constant) features
// and targets must give a valid model or an error, never a panic.
func FuzzTrainMatrix(f *testing.F) {
	seed := make([]byte, 0, 8*200)
	for i := 0; i < 200; i++ {
		seed = binary.LittleEndian.AppendUint64(seed, math.Float64bits(float64(i%11)*1.5+float64(i)/7))
	}
	f.Add(seed, uint8(20), uint8(3))
	f.Add(seed[:8*40], uint8(12), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8) {
		rows, cols := int(n%30)+5, int(p%5)+1
		if len(data) < 8*(rows*cols+rows) {
			return
		}
		v := make([]float64, rows*cols+rows)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
		names := make([]string, cols)
		for j := range names {
			names[j] = string(rune('a' + j))
		}
		m, err := TrainMatrix(names, mat.NewDense(rows, cols, v[:rows*cols]), map[Target][]float64{ReadIOPS: v[rows*cols:]},
			Options{Folds: 3, NAlphas: 5, Thresholds: []float64{0, 1}, MaxIter: 100})
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("model from TrainMatrix does not validate: %v", err)
		}
	})
}

// FuzzAggregate: any host values aggregate to finite features or an error.
func FuzzAggregate(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, hosts uint8) {
		s := Schema{Roles: []RoleMetrics{{Role: "osd", Metrics: []string{"x"}}}}
		w := Window{"osd": {}}
		for h := 0; h < int(hosts%16) && 8*(h+1) <= len(data); h++ {
			w["osd"][string(rune('a'+h))] = map[string]float64{"x": math.Float64frombits(binary.LittleEndian.Uint64(data[8*h:]))}
		}
		x, err := s.Aggregate(w)
		if err != nil {
			return
		}
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("NaN feature from %v: %v", w, x)
			}
		}
	})
}
