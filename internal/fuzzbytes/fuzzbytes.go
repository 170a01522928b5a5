// Package fuzzbytes turns a fuzzer's byte string into float64s and back, so
// that fuzz targets over numeric fits share one encoding: 8 bytes per value,
// little-endian IEEE 754, so every bit pattern (NaN, ±Inf, subnormals) can
// reach the code under test.
package fuzzbytes

import (
	"encoding/binary"
	"math"
)

// Floats decodes len(b)/8 float64s from b; trailing bytes are ignored.
func Floats(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// Of encodes v as Floats decodes it, for seed corpora.
func Of(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}
