package conservation_test

import (
	"fmt"
	"os"

	"github.com/storcast/storcast/forecaster/conservation"
)

func Example() {
	data, err := os.ReadFile("testdata/calibration.yml")
	if err != nil {
		panic(err)
	}
	cal, err := conservation.LoadCalibration(data)
	if err != nil {
		panic(err)
	}
	m, err := conservation.NewModel(cal)
	if err != nil {
		panic(err)
	}
	// What Prometheus sees now: 4 KiB reads and writes.
	res, err := m.AtMix([]conservation.OpClass{
		{Op: conservation.Read, IOSizeBytes: 4096, Rate: 60000},
		{Op: conservation.Write, IOSizeBytes: 4096, Rate: 5000},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("utilization %.3f, max %.0f IOPS (%.0f read + %.0f write), headroom %.0f IOPS\n",
		res.Utilization, res.MaxTotalIOPS, res.MaxReadIOPS, res.MaxWriteIOPS, res.HeadroomIOPS)
	// Output:
	// utilization 0.500, max 130000 IOPS (120000 read + 10000 write), headroom 65000 IOPS
}

func ExampleReadWriteAtReadPercent() {
	// Eq. 6: 70% reads on a size with T_read100 = 180000 and f_rw = 6.
	k, r, w, _ := conservation.ReadWriteAtReadPercent(180000, 6, 70)
	fmt.Printf("k=%.0f read=%.0f write=%.0f total=%.0f\n", k, r, w, r+w)
	// Output:
	// k=720 read=50400 write=21600 total=72000
}

func ExampleModel_Curve() {
	m, _ := conservation.NewModel(conservation.Calibration{Points: []conservation.Point{
		{IOSizeBytes: 4096, ReadIOPS: 100000, WriteIOPS: 25000},
	}})
	curve, extrapolated, _ := m.Curve(4096, conservation.ReadRatios(5))
	for _, p := range curve {
		fmt.Printf("read ratio %.2f: %.0f IOPS\n", p.ReadRatio, p.MaxIOPS)
	}
	fmt.Println("extrapolated:", extrapolated)
	// Output:
	// read ratio 0.00: 25000 IOPS
	// read ratio 0.25: 30769 IOPS
	// read ratio 0.50: 40000 IOPS
	// read ratio 0.75: 57143 IOPS
	// read ratio 1.00: 100000 IOPS
	// extrapolated: false
}
