package conservation

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// Eq. 6 worked by hand: T_read100 = 180000, T_write100 = 30000, f_rw = 6.
func TestEq6HandWorked(t *testing.T) {
	cases := []struct {
		R, k, read, write float64
	}{
		{100, 1800, 180000, 0}, // k = 180000/100
		{0, 300, 0, 30000},     // k = 180000/(100·6) = 300: the write max
		{50, 180000.0 / 350, 180000.0 / 350 * 50, 180000.0 / 350 * 50}, // k = 180000/(50+300)
		{70, 720, 50400, 21600},           // k = 180000/(70+180)
		{20, 180000.0 / 500, 7200, 28800}, // k = 180000/(20+480) = 360
	}
	for _, c := range cases {
		k, r, w, err := ReadWriteAtReadPercent(180000, 6, c.R)
		if err != nil {
			t.Fatal(err)
		}
		if !near(k, c.k, 1e-12) || !near(r, c.read, 1e-12) || math.Abs(w-c.write) > 1e-9 {
			t.Errorf("R=%v: got k=%v read=%v write=%v, want %v %v %v", c.R, k, r, w, c.k, c.read, c.write)
		}
		// Conservation: T_read + f_rw T_write = C.
		if !near(r+6*w, 180000, 1e-12) {
			t.Errorf("R=%v: T_read + f_rw T_write = %v, want C = 180000", c.R, r+6*w)
		}
	}
}

// The paper's mixed-size cases (Sec. III-C, Swift, COSBench workers split by
// ratio, so P is a capacity share). The paper prints its measurements only
// as figures, so the T_100% figures here are our own, Swift-like (f_rw 2.5..3)
// and the totals are worked by hand from eq. 7.
var swift = Calibration{Cluster: "swift", Points: []Point{
	{IOSizeBytes: 16 << 10, ReadIOPS: 4000, WriteIOPS: 1600}, // f_rw 2.5
	{IOSizeBytes: 64 << 10, ReadIOPS: 3000, WriteIOPS: 1200}, // f_rw 2.5
	{IOSizeBytes: 512 << 10, ReadIOPS: 800, WriteIOPS: 300},  // f_rw 8/3
	{IOSizeBytes: 1 << 20, ReadIOPS: 450, WriteIOPS: 150},    // f_rw 3
}}

func TestEq7PaperCasesHandWorked(t *testing.T) {
	m, err := NewModel(swift)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		s1, s2      float64
		rho         float64 // read ratio of both sizes
		p1          float64
		want        float64
		description string
	}{
		// Case 1: 16KB 100% reads + 1MB 100% reads. k16 = 4000/100 = 40,
		// k1M = 450/100 = 4.5; T = 100(0.1·40 + 0.9·4.5) = 805.
		{"case1 10/90", 16 << 10, 1 << 20, 1, 0.1, 805, ""},
		// T = 100(0.9·40 + 0.1·4.5) = 3645.
		{"case1 90/10", 16 << 10, 1 << 20, 1, 0.9, 3645, ""},
		// Case 2: 64KB 100% writes + 1MB 100% writes. k64 = 3000/(100·2.5) = 12,
		// k1M = 450/(100·3) = 1.5; T = 100(0.3·12 + 0.7·1.5) = 465.
		{"case2 30/70", 64 << 10, 1 << 20, 0, 0.3, 465, ""},
		// Case 3: 16KB 50/50 + 512KB 50/50. k16 = 4000/(50+125) = 160/7,
		// k512 = 800/(50+400/3) = 48/11; T = 100·0.5(160/7 + 48/11) = 104800/77.
		{"case3 50/50", 16 << 10, 512 << 10, 0.5, 0.5, 104800.0 / 77, ""},
		// T = 100(0.7·160/7 + 0.3·48/11) = 1600 + 1440/11.
		{"case3 70/30", 16 << 10, 512 << 10, 0.5, 0.7, 1600 + 1440.0/11, ""},
	}
	for _, c := range cases {
		got, ext, err := m.MaxForCapacityShares([]SizeShare{
			{IOSizeBytes: c.s1, ReadRatio: c.rho, Share: c.p1},
			{IOSizeBytes: c.s2, ReadRatio: c.rho, Share: 1 - c.p1},
		})
		if err != nil {
			t.Fatal(err)
		}
		if ext {
			t.Errorf("%s: calibrated sizes flagged as extrapolated", c.name)
		}
		if !near(got, c.want, 1e-12) {
			t.Errorf("%s: T_total = %.10g, want %.10g", c.name, got, c.want)
		}
	}
}

// Each form reproduces the other when P is converted between op share and
// capacity share; and AtMix with rates in the op shares gives the same max.
func TestShareFormsAgree(t *testing.T) {
	m, _ := NewModel(swift)
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []float64{16 << 10, 64 << 10, 512 << 10, 1 << 20}
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(4)
		maxIOPS := make([]float64, n)
		shares := make([]float64, n)
		var sum float64
		for i := range shares {
			shares[i] = rng.Float64() + 0.01
			sum += shares[i]
			maxIOPS[i] = 100 + 1e5*rng.Float64()
		}
		for i := range shares {
			shares[i] /= sum
		}
		// shares as op shares -> capacity shares -> eq. 7.
		byOps, err := TotalFromOpShares(shares, maxIOPS)
		if err != nil {
			t.Fatal(err)
		}
		capShares, _ := OpToCapacityShares(shares, maxIOPS)
		byCap, _ := TotalFromCapacityShares(capShares, maxIOPS)
		if !near(byOps, byCap, 1e-12) {
			t.Fatalf("op-share total %v != capacity-share total %v", byOps, byCap)
		}
		// and back.
		back, _ := CapacityToOpShares(capShares, maxIOPS)
		for i := range back {
			if math.Abs(back[i]-shares[i]) > 1e-12 {
				t.Fatalf("round trip share %d: %v != %v", i, back[i], shares[i])
			}
		}
		// shares as capacity shares -> op shares -> harmonic form.
		byCap2, _ := TotalFromCapacityShares(shares, maxIOPS)
		opShares, _ := CapacityToOpShares(shares, maxIOPS)
		byOps2, _ := TotalFromOpShares(opShares, maxIOPS)
		if !near(byCap2, byOps2, 1e-12) {
			t.Fatalf("capacity-share total %v != op-share total %v", byCap2, byOps2)
		}

		// The live form: op classes with rates in op-share proportion.
		mix := make([]SizeShare, n)
		var classes []OpClass
		for i := range mix {
			rho := rng.Float64()
			mix[i] = SizeShare{IOSizeBytes: sizes[rng.IntN(len(sizes))], ReadRatio: rho, Share: shares[i]}
			total := 1000 * shares[i]
			classes = append(classes,
				OpClass{Op: Read, IOSizeBytes: mix[i].IOSizeBytes, Rate: total * rho},
				OpClass{Op: Write, IOSizeBytes: mix[i].IOSizeBytes, Rate: total * (1 - rho)})
		}
		want, _, err := m.MaxForOpShares(mix)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.AtMix(classes)
		if err != nil {
			t.Fatal(err)
		}
		if !near(res.MaxTotalIOPS, want, 1e-9) {
			t.Fatalf("AtMix max %v != harmonic eq. 7 %v", res.MaxTotalIOPS, want)
		}
	}
}

// A cluster that obeys conservation exactly: the utilization form agrees with
// eq. 6 at every read ratio, and scaling the mix to 1/U lands on the
// capacity line.
func TestAtMixEqualsEq6(t *testing.T) {
	m, _ := NewModel(swift)
	for _, size := range []float64{16 << 10, 100 << 10, 1 << 20} {
		sc, _ := m.At(size)
		for R := 0.0; R <= 100; R += 5 {
			_, r, w, _ := ReadWriteAtReadPercent(sc.ReadIOPS, sc.FRW, R)
			// Any load at this mix, e.g. 37% of capacity.
			res, err := m.AtMix([]OpClass{
				{Op: Read, IOSizeBytes: size, Rate: 0.37 * r},
				{Op: Write, IOSizeBytes: size, Rate: 0.37 * w},
			})
			if err != nil {
				t.Fatal(err)
			}
			if !near(res.Utilization, 0.37, 1e-12) || !near(res.HeadroomRatio, 0.63, 1e-12) {
				t.Errorf("size %v R=%v: U=%v headroom=%v, want 0.37, 0.63", size, R, res.Utilization, res.HeadroomRatio)
			}
			if !near(res.MaxTotalIOPS, r+w, 1e-12) || !near(res.MaxReadIOPS, r, 1e-12) && r > 0 || !near(res.MaxWriteIOPS, w, 1e-12) && w > 0 {
				t.Errorf("size %v R=%v: max %v (%v r, %v w), want %v (%v, %v)", size, R, res.MaxTotalIOPS, res.MaxReadIOPS, res.MaxWriteIOPS, r+w, r, w)
			}
			if !near(res.HeadroomIOPS, 0.63*(r+w), 1e-12) {
				t.Errorf("headroom IOPS %v, want %v", res.HeadroomIOPS, 0.63*(r+w))
			}
		}
	}
}

func TestInterpolation(t *testing.T) {
	// Truth: C(S) = 2e6 S^-0.5, T_write100 = 4e5 S^-0.4 — power laws, which
	// log-log interpolation and extrapolation reproduce exactly.
	C := func(s float64) float64 { return 2e6 * math.Pow(s, -0.5) }
	W := func(s float64) float64 { return 4e5 * math.Pow(s, -0.4) }
	var cal Calibration
	for _, s := range []float64{65536, 4096, 1 << 20} { // unsorted on purpose
		cal.Points = append(cal.Points, Point{IOSizeBytes: s, ReadIOPS: C(s), WriteIOPS: W(s)})
	}
	m, err := NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		size float64
		ext  bool
	}{{4096, false}, {8192, false}, {12345, false}, {65536, false}, {300000, false}, {1 << 20, false}, {512, true}, {16 << 20, true},
		// Within 2% of the range's ends (a mean size read from counters,
		// such as Ceph's 4095.0 for 4 KiB IO) is not an extrapolation;
		// beyond it is.
		{4095, false}, {1<<20 + 1, false}, {4000, true}, {1.03 * (1 << 20), true}} {
		sc, err := m.At(c.size)
		if err != nil {
			t.Fatal(err)
		}
		if !near(sc.ReadIOPS, C(c.size), 1e-9) || !near(sc.WriteIOPS, W(c.size), 1e-9) || !near(sc.FRW, C(c.size)/W(c.size), 1e-9) {
			t.Errorf("size %v: C=%v W=%v, want %v %v", c.size, sc.ReadIOPS, sc.WriteIOPS, C(c.size), W(c.size))
		}
		if sc.Extrapolated != c.ext {
			t.Errorf("size %v: extrapolated=%v, want %v", c.size, sc.Extrapolated, c.ext)
		}
	}
	// Between two calibrated sizes the value is between them (monotone data).
	sc, _ := m.At(16384)
	if !(sc.ReadIOPS < C(4096) && sc.ReadIOPS > C(65536)) {
		t.Errorf("C(16K)=%v not between neighbours", sc.ReadIOPS)
	}
	// AtMix carries the flag.
	res, _ := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1}, {Op: Write, IOSizeBytes: 8 << 20, Rate: 1}})
	if !res.Extrapolated {
		t.Error("AtMix: class outside the calibrated range not flagged")
	}
	res, _ = m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1}, {Op: Write, IOSizeBytes: 8 << 20, Rate: 0}})
	if res.Extrapolated {
		t.Error("AtMix: a zero-rate class must not flag the result")
	}
}

func TestSinglePointIsConstant(t *testing.T) {
	m, _ := NewModel(Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 1000, WriteIOPS: 250}}})
	sc, _ := m.At(4096)
	if sc.Extrapolated || sc.ReadIOPS != 1000 || sc.FRW != 4 {
		t.Errorf("at the point: %+v", sc)
	}
	sc, _ = m.At(8192)
	if !sc.Extrapolated || sc.ReadIOPS != 1000 || sc.WriteIOPS != 250 {
		t.Errorf("off the point: %+v", sc)
	}
}

func TestAtMixErrors(t *testing.T) {
	m, _ := NewModel(swift)
	cases := []struct {
		classes []OpClass
		want    string
	}{
		{nil, "classes: empty"},
		{[]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: -1}}, "classes[0].rate: must be a finite number >= 0, got -1"},
		{[]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1}, {Op: Write, IOSizeBytes: 0, Rate: 1}}, "classes[1].ioSizeBytes: must be a finite number > 0, got 0"},
		{[]OpClass{{Op: Read, IOSizeBytes: math.NaN(), Rate: 1}}, "classes[0].ioSizeBytes: must be a finite number > 0, got NaN"},
		{[]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: math.Inf(1)}}, "classes[0].rate: must be a finite number >= 0, got +Inf"},
		{[]OpClass{{Op: "trim", IOSizeBytes: 4096, Rate: 1}}, `classes[0].op: must be "read" or "write", got "trim"`},
	}
	for _, c := range cases {
		_, err := m.AtMix(c.classes)
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AtMix(%v): error %v, want one containing %q", c.classes, err, c.want)
		}
	}
	if _, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 0}}); !errors.Is(err, ErrNoLoad) {
		t.Errorf("idle mix: error %v, want ErrNoLoad", err)
	}
	if _, _, err := m.Curve(4096, []float64{0, 1.5}); err == nil || !strings.Contains(err.Error(), "readRatios[1]: must be in 0..1, got 1.5") {
		t.Errorf("Curve with read ratio 1.5: error %v", err)
	}
	if _, _, err := m.Curve(-1, []float64{0}); err == nil || !strings.Contains(err.Error(), "io_size_bytes: must be > 0, got -1") {
		t.Errorf("Curve with size -1: error %v", err)
	}
	if _, _, _, err := ReadWriteAtReadPercent(100, 2, 101); err == nil || !strings.Contains(err.Error(), "readPercent: must be in 0..100, got 101") {
		t.Errorf("eq. 6 with R=101: %v", err)
	}
	if _, err := TotalFromCapacityShares([]float64{0.5, 0.6}, []float64{1, 1}); err == nil || !strings.Contains(err.Error(), "shares: must sum to 1") {
		t.Errorf("shares summing to 1.1: %v", err)
	}
	if _, err := TotalFromOpShares([]float64{1}, []float64{1, 2}); err == nil || !strings.Contains(err.Error(), "maxIOPS: length 2 does not match 1 shares") {
		t.Errorf("mismatched lengths: %v", err)
	}
}

func TestCurveEndpoints(t *testing.T) {
	m, _ := NewModel(swift)
	curve, ext, err := m.Curve(64<<10, ReadRatios(21))
	if err != nil || ext {
		t.Fatal(err, ext)
	}
	if curve[0].MaxIOPS != 1200 || curve[0].MaxReadIOPS != 0 || !near(curve[20].MaxIOPS, 3000, 1e-12) || curve[20].MaxWriteIOPS != 0 {
		t.Errorf("endpoints: %+v %+v", curve[0], curve[20])
	}
	for i := 1; i < len(curve); i++ {
		if curve[i].MaxIOPS <= curve[i-1].MaxIOPS {
			t.Errorf("f_rw > 1: capacity must grow with the read ratio, %v then %v", curve[i-1], curve[i])
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	m, _ := NewModel(swift)
	res, _ := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 10}})
	for _, v := range []any{swift, res, Quality{Bands: []BandFit{{IOSizeBytes: 1}}}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 10 {
			t.Errorf("short JSON %s", b)
		}
	}
	b, _ := json.Marshal(swift)
	var back Calibration
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	m2, err := NewModel(back)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m2.Calibration().Points[3], m.Calibration().Points[3]) {
		t.Errorf("JSON round trip changed the calibration")
	}
}

func TestLoadCalibration(t *testing.T) {
	data, err := os.ReadFile("testdata/calibration.yml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadCalibration(data)
	if err != nil {
		t.Fatal(err)
	}
	if c.Cluster != "ceph-prod" || len(c.Points) != 4 {
		t.Fatalf("got %+v", c)
	}
	want := []float64{4096, 16384, 131072, 1 << 20}
	for i, p := range c.Points {
		if p.IOSizeBytes != want[i] {
			t.Errorf("points[%d] size %v, want %v", i, p.IOSizeBytes, want[i])
		}
	}
	if c.Points[0].ReadIOPS != 180000 || c.Points[0].WriteIOPS != 30000 || c.Points[0].Source == "" {
		t.Errorf("points[0] = %+v", c.Points[0])
	}
	// Marshal and load back.
	out, err := MarshalCalibration(c)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := LoadCalibration(out)
	if err != nil {
		t.Fatalf("reloading marshalled calibration: %v\n%s", err, out)
	}
	if c2.Cluster != c.Cluster || len(c2.Points) != 4 || !reflect.DeepEqual(c2.Points[2], c.Points[2]) {
		t.Errorf("round trip: %+v", c2)
	}
}

// One testdata/invalid-*.yml per error, its exact message in the first line
// of the file ("# error: ...").
func TestLoadCalibrationInvalid(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid-*.yml")
	if len(files) < 10 {
		t.Fatalf("only %d invalid-*.yml files", len(files))
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		first, _, _ := strings.Cut(string(data), "\n")
		want, ok := strings.CutPrefix(first, "# error: ")
		if !ok {
			t.Fatalf("%s: first line must be '# error: <message>'", f)
		}
		_, err := LoadCalibration(data)
		if err == nil {
			t.Errorf("%s: no error, want %q", f, want)
			continue
		}
		if err.Error() != want {
			t.Errorf("%s:\n got %q\nwant %q", f, err.Error(), want)
		}
		if !errors.Is(err, ErrInput) {
			t.Errorf("%s: error does not wrap ErrInput", f)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]float64{"4096": 4096, "4KiB": 4096, "4k": 4096, "64K": 65536, "1MiB": 1 << 20, "1m": 1 << 20,
		"1.5GiB": 1.5 * (1 << 30), "512B": 512, " 8 KiB ": 8192, "2Ki": 2048} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{"": "empty size", "KiB": `size "KiB": no number`, "4KB": `unit "KB" is ambiguous; use KiB`,
		"4kB": `unit "kB" is ambiguous; use KiB`, "4 parsecs": `unknown unit "parsecs"`, "0": "must be > 0", "1.2.3k": "no number"} {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseSize(%q): error %v, want %q", in, err, msg)
		}
	}
}

func TestImportFio(t *testing.T) {
	data, err := os.ReadFile("testdata/fio-rbd.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ImportFio(data)
	if err != nil {
		t.Fatal(err)
	}
	// 4k: group 0 ran two randread jobs concurrently (45210.33 + 44890.12),
	// group 1 two randwrite jobs (7533.9 + 7466.1). 64k: read groups 2 and 3
	// (an iodepth sweep): the higher, 31020; write: randrw with rwmixread=0.
	// The 70/30 job of group 5 is not a calibration point.
	want := []Point{{IOSizeBytes: 4096, ReadIOPS: 90100.45, WriteIOPS: 15000}, {IOSizeBytes: 65536, ReadIOPS: 31020, WriteIOPS: 6204}}
	if len(c.Points) != len(want) {
		t.Fatalf("got %d points: %+v", len(c.Points), c.Points)
	}
	for i, w := range want {
		p := c.Points[i]
		if p.IOSizeBytes != w.IOSizeBytes || !near(p.ReadIOPS, w.ReadIOPS, 1e-12) || !near(p.WriteIOPS, w.WriteIOPS, 1e-12) {
			t.Errorf("point %d = %+v, want %+v", i, p, w)
		}
		if !strings.HasPrefix(p.Source, "fio-3.33: ") {
			t.Errorf("point %d source %q", i, p.Source)
		}
	}
	if !strings.Contains(c.Points[0].Source, "read group 0 (4k-randread-a,4k-randread-b)") {
		t.Errorf("source %q does not name the summed jobs", c.Points[0].Source)
	}
}

func TestImportFioClientServerAndErrors(t *testing.T) {
	// Client/server mode: per-host entries in client_stats plus "All clients".
	cs := `{"fio version":"fio-3.35","global options":{"bs":"16k"},"client_stats":[
 {"jobname":"r","groupid":0,"hostname":"vm1","job options":{"rw":"randread"},"read":{"iops":100},"write":{"iops":0}},
 {"jobname":"r","groupid":0,"hostname":"vm2","job options":{"rw":"randread"},"read":{"iops":150},"write":{"iops":0}},
 {"jobname":"All clients","groupid":0,"job options":{"rw":"randread"},"read":{"iops":250},"write":{"iops":0}},
 {"jobname":"w","groupid":1,"hostname":"vm1","job options":{"rw":"randwrite","bs":"4k,16k"},"read":{"iops":0},"write":{"iops":40}},
 {"jobname":"w","groupid":1,"hostname":"vm2","job options":{"rw":"randwrite","bs":"4k,16k"},"read":{"iops":0},"write":{"iops":35}}]}`
	c, err := ImportFio([]byte(cs))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Points) != 1 || !reflect.DeepEqual(c.Points[0], Point{IOSizeBytes: 16384, ReadIOPS: 250, WriteIOPS: 75, Source: c.Points[0].Source}) {
		t.Errorf("client/server: %+v", c.Points)
	}
	dec := `{"global options":{"kb_base":"1000"},"jobs":[
 {"jobname":"r","groupid":0,"job options":{"rw":"randread","bs":"4k"},"read":{"iops":100}},
 {"jobname":"w","groupid":1,"job options":{"rw":"randwrite","bs":"4KiB"},"write":{"iops":50}},
 {"jobname":"w2","groupid":2,"job options":{"rw":"randwrite","bs":"4k"},"write":{"iops":40}},
 {"jobname":"r2","groupid":3,"job options":{"rw":"randread","bs":"4KiB"},"read":{"iops":90}}]}`
	c, err = ImportFio([]byte(dec))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Points) != 2 || c.Points[0].IOSizeBytes != 4000 || c.Points[0].WriteIOPS != 40 || c.Points[1].IOSizeBytes != 4096 || c.Points[1].ReadIOPS != 90 {
		t.Errorf("kb_base=1000: %+v", c.Points)
	}
	// fio's default (kb_base=1024) reads the units the other way round:
	// bs=4KiB runs 4,000-byte IOs, bs=4k 4,096-byte ones.
	compat := `{"jobs":[
 {"jobname":"r","groupid":0,"job options":{"rw":"randread","bs":"4k"},"read":{"iops":100}},
 {"jobname":"w","groupid":1,"job options":{"rw":"randwrite","bs":"4KiB"},"write":{"iops":50}},
 {"jobname":"w2","groupid":2,"job options":{"rw":"randwrite","bs":"4kb"},"write":{"iops":40}},
 {"jobname":"r2","groupid":3,"job options":{"rw":"randread","bs":"4KiB"},"read":{"iops":90}}]}`
	c, err = ImportFio([]byte(compat))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Points) != 2 || c.Points[0].IOSizeBytes != 4000 || c.Points[0].WriteIOPS != 50 || c.Points[1].IOSizeBytes != 4096 || c.Points[1].ReadIOPS != 100 || c.Points[1].WriteIOPS != 40 {
		t.Errorf("kb_base=1024 (fio's default): %+v", c.Points)
	}
	for in, msg := range map[string]string{
		``:                                     "fio: no JSON object found",
		`{"jobs": [`:                           "fio: decoding JSON",
		`{"jobs": []}`:                         "fio: no jobs and no client_stats",
		`{"jobs":[{"jobname":"x","error":5}]}`: "jobs[0] (x): fio reported error 5",
		`{"jobs":[{"jobname":"x","job options":{"rw":"zigzag"}}]}`:                                                                 `jobs[0] (x): rw "zigzag": unknown I/O pattern`,
		`{"jobs":[{"jobname":"x","job options":{"rw":"randrw","rwmixread":"lots"}}]}`:                                              `rwmixread "lots": not a number`,
		`{"jobs":[{"jobname":"x","job options":{"bs":"4 bananas"}}]}`:                                                              `jobs[0] (x).bs: size "4 bananas": unknown unit`,
		`{"jobs":[{"jobname":"x","job options":{"bsrange":"4k-64k"}}]}`:                                                            "block size ranges (bsrange) cannot be calibration points",
		`{"jobs":[{"jobname":"x","job options":{"rw":"randrw"},"read":{"iops":1},"write":{"iops":1}}]}`:                            "no 100% read or 100% write job",
		`{"jobs":[{"jobname":"x","read":{"iops":10}}]}`:                                                                            "block size 4096 bytes has a 100% read job but no 100% write job",
		`{"jobs":[{"jobname":"x","job options":{"rw":"write"},"write":{"iops":10}}]}`:                                              "block size 4096 bytes has a 100% write job but no 100% read job",
		`{"jobs":[{"jobname":"x","read":{"iops":0}},{"jobname":"y","groupid":1,"job options":{"rw":"write"},"write":{"iops":3}}]}`: "points[0].read_iops: must be > 0, got 0",
		// No stonewall: the read and the write job ran at once, each a share of the load.
		`{"jobs":[{"jobname":"r","job options":{"rw":"randread"},"read":{"iops":900}},{"jobname":"w","job options":{"rw":"randwrite"},"write":{"iops":300}}]}`: "fio: reporting group 0 ran jobs of different patterns, sizes or settings at the same time (r, w): each measured a share of the load, not a saturated point; put stonewall between them",
	} {
		_, err := ImportFio([]byte(in))
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), msg) {
			t.Errorf("ImportFio(%.40q): error %v, want %q", in, err, msg)
		}
	}
}

// Options as fio applies them (checked against fio 3.33's own runs, null
// engine, norandommap): the job's setting of an option under any of its
// names replaces the global one whole, rwmixread and rwmixwrite are one
// setting whose last given counts (fio's JSON keeps the job file's order,
// a key given twice twice), and a bssplit or bsrange overrides bs whatever
// the sections. Each case: a 100% read job (10000 IOPS), a 100% write job
// (5000) and possibly a mixed job (6000 in all), one group each.
func TestImportFioOptionPrecedence(t *testing.T) {
	job := func(group, role, opts string) string {
		iops := map[string]string{"r": `"read":{"iops":10000},"write":{"iops":0}`, "w": `"read":{"iops":0},"write":{"iops":5000}`, "m": `"read":{"iops":3000},"write":{"iops":3000}`}[role]
		return `{"jobname":"` + role + `","groupid":` + group + `,"job options":` + opts + `,` + iops + `}`
	}
	for _, c := range []struct {
		name, global string
		r, w, m      string  // the jobs' options ("": no mixed job)
		size, mix    float64 // the points' size; the mixed point's read ratio
		err          string
	}{
		// fio ran 70% reads: the job's rwmixwrite replaces the global
		// rwmixread (the import said 0.5).
		{name: "global rwmixread, job rwmixwrite", global: `{"rw":"randrw","rwmixread":"50","bs":"4k"}`,
			r: `{"rw":"randread"}`, w: `{"rw":"randwrite"}`, m: `{"rwmixwrite":"30"}`, size: 4096, mix: 0.7},
		// The split's op-weighted mean, (4096 + 65536)/2 = 34816 (the
		// import said 4096).
		{name: "global bs, job bssplit", global: `{"bs":"4k"}`,
			r: `{"rw":"randread","bssplit":"4k/50:64k/50"}`, w: `{"rw":"randwrite","bssplit":"4k/50:64k/50"}`, size: 34816},
		// fio ran the global split, mean 34.8 KB, not the job's 64k.
		{name: "global bssplit, job bs", global: `{"bssplit":"4k/50:64k/50"}`,
			r: `{"rw":"randread","bs":"64k"}`, w: `{"rw":"randwrite","bs":"64k"}`, size: 34816},
		{name: "pure job", global: `{}`,
			r: `{"rw":"randread","bs":"8k"}`, w: `{"rw":"randwrite","bs":"8k"}`, m: `{"rw":"randrw","rwmixwrite":"30","bs":"8k"}`, size: 8192, mix: 0.7},
		// Within a section the later of the two counts: fio ran 70%, then 60%.
		{name: "rwmixread then rwmixwrite", global: `{}`,
			r: `{"rw":"randread"}`, w: `{"rw":"randwrite"}`, m: `{"rw":"randrw","rwmixread":"60","rwmixwrite":"30"}`, size: 4096, mix: 0.7},
		{name: "rwmixwrite then rwmixread", global: `{}`,
			r: `{"rw":"randread"}`, w: `{"rw":"randwrite"}`, m: `{"rw":"randrw","rwmixwrite":"30","rwmixread":"60"}`, size: 4096, mix: 0.6},
		// rwmixwrite=10 then rwmixwrite=40, as fio writes it: 60% reads.
		{name: "a key twice", global: `{}`,
			r: `{"rw":"randread"}`, w: `{"rw":"randwrite"}`, m: `{"rw":"randrw","rwmixwrite":"10","rwmixwrite":"40"}`, size: 4096, mix: 0.6},
		// The job's readwrite and blocksize replace the global rw and bs
		// (the import read the reads' job as randrw at 64 KiB).
		{name: "job aliases over global names", global: `{"rw":"randrw","rwmixwrite":"20","bs":"64k"}`,
			r: `{"readwrite":"randread","blocksize":"16k"}`, w: `{"readwrite":"randwrite","blocksize":"16k"}`, m: `{"readwrite":"randrw","rwmixread":"60","blocksize":"16k"}`, size: 16384, mix: 0.6},
		{name: "job names over global aliases", global: `{"readwrite":"randrw","blocksize":"64k","rwmixread":"40"}`,
			r: `{"rw":"randread","bs":"16k"}`, w: `{"rw":"randwrite","bs":"16k"}`, m: `{"rwmixwrite":"25","bs":"16k"}`, size: 16384, mix: 0.75},
		// fio ran the global range (4k-8k: a mean of 6 KB), not the job's
		// 64k (the import took 65536).
		{name: "global bsrange, job bs", global: `{"bsrange":"4k-8k"}`,
			r: `{"rw":"randread","bs":"64k"}`, w: `{"rw":"randwrite","bs":"64k"}`, err: "block size ranges (bsrange) cannot be calibration points"},
	} {
		jobs := []string{job("0", "r", c.r), job("1", "w", c.w)}
		if c.m != "" {
			jobs = append(jobs, job("2", "m", c.m))
		}
		cal, err := ImportFio([]byte(`{"global options":` + c.global + `,"jobs":[` + strings.Join(jobs, ",") + `]}`))
		if c.err != "" {
			if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for i := range cal.Points {
			cal.Points[i].Source = ""
		}
		for i := range cal.Mixed {
			cal.Mixed[i].Source = ""
		}
		want := Calibration{Points: []Point{{IOSizeBytes: c.size, ReadIOPS: 10000, WriteIOPS: 5000}}}
		if c.m != "" {
			want.Mixed = []MixedPoint{{IOSizeBytes: c.size, ReadRatio: c.mix, IOPS: 6000}}
		}
		if !reflect.DeepEqual(cal, want) {
			t.Errorf("%s: imported %+v, want %+v", c.name, cal, want)
		}
	}
}

// fioSize reads sizes as fio does: under its default kb_base=1024 the IEC
// suffixes (the whole "kib", "mib") are powers of 1000 and the others of
// 1024, under kb_base=1000 the reverse.
func TestFioSizeAsFioReadsIt(t *testing.T) {
	for _, c := range []struct {
		in      string
		decimal bool
		want    float64
	}{
		{"4k", false, 4096}, {"4K", false, 4096}, {"4kb", false, 4096}, {"4Ki", false, 4096}, {"4KiB", false, 4000},
		{"1m", false, 1 << 20}, {"1MiB", false, 1e6}, {"512b", false, 512}, {"4096", false, 4096},
		{"4k", true, 4000}, {"4KiB", true, 4096}, {"1MiB", true, 1 << 20}, {"1m", true, 1e6},
	} {
		if got, err := fioSize(c.in, c.decimal); err != nil || got != c.want {
			t.Errorf("fioSize(%q, kb_base=1000 %v) = %v, %v; want %v", c.in, c.decimal, got, err, c.want)
		}
	}
	for _, in := range []string{"4 bananas", "4kk", "KiB", "4x"} {
		if _, err := fioSize(in, false); err == nil {
			t.Errorf("fioSize(%q): no error", in)
		}
	}
}

func TestFarExtrapolationIsAnError(t *testing.T) {
	// A steep power law (C falls 2^20-fold per doubling) underflows far out.
	m, _ := NewModel(Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 1e6, WriteIOPS: 1e5}, {IOSizeBytes: 8192, ReadIOPS: 1, WriteIOPS: 0.1}}})
	if _, err := m.At(1e300); err == nil || !strings.Contains(err.Error(), "too far outside the calibrated range") {
		t.Errorf("At(1e300): %v", err)
	}
	if _, err := m.AtMix([]OpClass{{Op: Write, IOSizeBytes: 1e300, Rate: 1}}); err == nil || !strings.Contains(err.Error(), "classes[0].ioSizeBytes: 1e+300 is too far outside") {
		t.Errorf("AtMix at 1e300 bytes: %v", err)
	}
	// So does the paper's eq. 6 over op shares (it said the size must be a
	// finite number > 0).
	if _, _, err := m.MaxForOpShares([]SizeShare{{IOSizeBytes: 1e300, ReadRatio: 0.5, Share: 1}}); err == nil || !strings.Contains(err.Error(), "mix[0].ioSizeBytes: 1e+300 is too far outside") {
		t.Errorf("MaxForOpShares at 1e300 bytes: %v", err)
	}
	if _, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 5e-324}}); err == nil || !strings.Contains(err.Error(), "rates out of range") {
		t.Errorf("AtMix with a denormal rate: %v", err)
	}
}
