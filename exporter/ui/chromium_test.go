package ui

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/internal/testtool"
)

func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,2400"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.Bytes()
}

// TestLandingPageInChromium renders the page in headless Chromium, checks the
// DOM that the browser built and that the screenshot shows the plots.
func TestLandingPageInChromium(t *testing.T) {
	bin := testtool.Need(t, "chromium", "chromium-browser")
	srv := httptest.NewServer(testHandler(demoProvider()))
	defer srv.Close()

	dom := string(runChromium(t, bin, "--dump-dom", srv.URL+"/"))
	for _, want := range []string{
		"ceph-prod", "swift-dc2", "ceph-new",
		`class="plot-latency"`, `class="plot-capacity"`, `class="plot-trend"`,
		`<dd class="fig-max-iops">37.5k</dd>`, `>16k IOPS <small>42.7%</small></dd>`,
		`class="band"`, `class="mean"`, `class="observed"`, `class="slo"`, `class="knee"`, `class="capacity"`,
		"no model fitted yet",
		// The saturation ETA, with its date, and what a waiting trend waits for.
		`data-limit="max_iops">in 40 days <small>2027-01-02 23:59 UTC · 95%: 36 days to 45 days</small></dd>`,
		"demand trend waiting for 24 more windows with load",
		// The trend plot: the band and the mean over time, the history, the limit and the ETA marker.
		`aria-label="Demand trend over time for cluster ceph-prod"`,
		`class="band trend-band"`, `class="mean trend-mean"`, `class="history"`, `class="capacity-limit"`,
		`class="eta"`, ">max IOPS reached in 40 days</text>",
		// The capacity on the latency plot.
		`class="capacity-marker"`, ">capacity 37.5k</text>",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM that chromium built lacks %s", want)
		}
	}
	if n := strings.Count(dom, "<svg "); n != 6 {
		t.Errorf("%d <svg> elements in the DOM, want 6", n)
	}
	// The capacity marker is inside the latency plot, the ETA marker inside the trend plot.
	for _, c := range []struct{ figure, mark string }{{"plot-latency", `class="capacity-marker"`}, {"plot-trend", `class="eta"`}} {
		i := strings.Index(dom, `<figure class="`+c.figure+`">`)
		if i < 0 {
			t.Errorf("no %s figure", c.figure)
			continue
		}
		fig := dom[i:]
		fig = fig[:strings.Index(fig, "</figure>")]
		if !strings.Contains(fig, c.mark) {
			t.Errorf("the first %s figure lacks %s", c.figure, c.mark)
		}
	}

	shot := filepath.Join(t.TempDir(), "landing.png")
	if dir := os.Getenv("STORCAST_SCREENSHOT_DIR"); dir != "" {
		shot = filepath.Join(dir, "landing.png")
	}
	runChromium(t, bin, "--screenshot="+shot, srv.URL+"/")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 1200 || b.Dy() < 2000 {
		t.Fatalf("screenshot is %dx%d, want the 1280x2400 window", b.Dx(), b.Dy())
	}
	// The whole page is not blank.
	if frac := nonWhite(img, b); frac < 0.02 {
		t.Errorf("screenshot is blank: %.4f of the pixels are not white", frac)
	}
	// Coloured plot ink (the band, the mean, the capacity curve) exists: count
	// saturated pixels, which text and frames (greys) do not produce, and
	// compare with the same page whose plots are empty placeholders.
	n := colouredPixels(img, b)
	if n < 2000 {
		t.Errorf("only %d coloured pixels in the screenshot: the plots did not render", n)
	}
	empty := &fakeProvider{
		clusters:    []apiv1.Cluster{{Name: "ceph-prod", Kind: "ceph"}, {Name: "swift-dc2", Kind: "swift"}},
		capacity:    map[string]apiv1.CapacityCurve{"ceph-prod": {Cluster: "ceph-prod"}, "swift-dc2": {Cluster: "swift-dc2"}},
		latency:     map[string]apiv1.LatencyCurve{"ceph-prod": {Cluster: "ceph-prod"}, "swift-dc2": {Cluster: "swift-dc2"}},
		emptyTrends: true,
	}
	srv2 := httptest.NewServer(testHandler(empty))
	defer srv2.Close()
	shot2 := filepath.Join(filepath.Dir(shot), "empty.png")
	runChromium(t, bin, "--screenshot="+shot2, srv2.URL+"/")
	f2, err := os.Open(shot2)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	img2, err := png.Decode(f2)
	if err != nil {
		t.Fatal(err)
	}
	// Links and the header account for the empty page's coloured pixels.
	if n2 := colouredPixels(img2, img2.Bounds()); n-n2 < 5000 || n < 3*n2 {
		t.Errorf("%d coloured pixels with plots, %d with empty plots: the plots add too little", n, n2)
	} else {
		t.Logf("coloured pixels: %d with plots, %d with empty placeholders", n, n2)
	}
}

func nonWhite(img image.Image, r image.Rectangle) float64 {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
}

func colouredPixels(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			hi := max(cr, cg, cb) >> 8
			lo := min(cr, cg, cb) >> 8
			if hi-lo > 60 {
				n++
			}
		}
	}
	return n
}
