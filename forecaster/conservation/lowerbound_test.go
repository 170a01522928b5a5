package conservation

import (
	"math/rand/v2"
	"testing"
)

// BoundWindows keeps what LowerBoundFromHistory needs: at any read ratio
// and size, the bound from the kept windows is the bound from them all,
// over 200 random histories of three size bands; and it keeps few.
func TestBoundWindowsKeepTheBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	sizes := []float64{4096, 5000, 16384, 65536}
	kept := 0
	for trial := range 200 {
		ws := make([]Window, 300)
		for i := range ws {
			ws[i] = Window{IOSizeBytes: sizes[rng.IntN(len(sizes))], ReadIOPS: 1000 * rng.Float64(), WriteIOPS: 500 * rng.Float64()}
			if rng.IntN(10) == 0 {
				ws[i].WriteIOPS = 0
			}
		}
		bw := BoundWindows(ws)
		kept += len(bw)
		for _, size := range []float64{4096, 16384, 65536, 1 << 20} {
			for _, rho := range []float64{0, 0.1, 0.5, 0.9, 1} {
				all, _, err1 := LowerBoundFromHistory(ws, size, rho)
				few, _, err2 := LowerBoundFromHistory(bw, size, rho)
				if err1 != nil || err2 != nil || all.IOPS != few.IOPS {
					t.Fatalf("trial %d, %v bytes, %v reads: bound %v from all, %v from the %d kept (%v, %v)", trial, size, rho, all.IOPS, few.IOPS, len(bw), err1, err2)
				}
			}
		}
	}
	if kept > 200*40 {
		t.Errorf("kept %d windows of 300 on average; want few", kept/200)
	}
	t.Logf("kept %.1f windows of 300 on average", float64(kept)/200)
}
