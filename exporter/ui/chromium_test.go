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
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,1400"}
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
	srv := httptest.NewServer(NewHandler(demoProvider()))
	defer srv.Close()

	dom := string(runChromium(t, bin, "--dump-dom", srv.URL+"/"))
	for _, want := range []string{
		"ceph-prod", "swift-dc2", "ceph-new",
		`class="plot-latency"`, `class="plot-capacity"`,
		`<dd class="fig-max-iops">37.5k</dd>`, `<dd class="fig-headroom">42.7%</dd>`,
		`class="band"`, `class="mean"`, `class="observed"`, `class="slo"`, `class="knee"`, `class="capacity"`,
		"no model fitted yet",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM that chromium built lacks %s", want)
		}
	}
	if n := strings.Count(dom, "<svg "); n != 4 {
		t.Errorf("%d <svg> elements in the DOM, want 4", n)
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
	if b.Dx() < 1000 || b.Dy() < 1000 {
		t.Fatalf("screenshot is %dx%d, want the 1280x1400 window", b.Dx(), b.Dy())
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
		clusters: []apiv1.Cluster{{Name: "ceph-prod", Kind: "ceph"}, {Name: "swift-dc2", Kind: "swift"}},
		capacity: map[string]apiv1.CapacityCurve{"ceph-prod": {Cluster: "ceph-prod"}, "swift-dc2": {Cluster: "swift-dc2"}},
		latency:  map[string]apiv1.LatencyCurve{"ceph-prod": {Cluster: "ceph-prod"}, "swift-dc2": {Cluster: "swift-dc2"}},
	}
	srv2 := httptest.NewServer(NewHandler(empty))
	defer srv2.Close()
	shot2 := filepath.Join(t.TempDir(), "empty.png")
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
