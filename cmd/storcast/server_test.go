package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
)

// serveLimited serves h on loopback with limits l until the test ends.
func serveLimited(t *testing.T, h http.Handler, l serverLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(h, l)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// readsBody answers with the size of the body it read, or 400.
var readsBody = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintln(w, len(b))
})

// TestSlowBodyIsCut: POSTs that announce a body and send one byte of it
// (with only a header timeout, 3000 of them were all held open) are cut by
// the read timeout: the server closes every connection.
func TestSlowBodyIsCut(t *testing.T) {
	l := defaultServerLimits
	l.Read = 300 * time.Millisecond
	addr := serveLimited(t, readsBody, l)
	const clients = 50
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Go(func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			fmt.Fprint(c, "POST /api/v1/whatif HTTP/1.1\r\nHost: storcast\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
			// A generous bound on the test, not an assertion on speed:
			// the server must close the connection long before it.
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			if _, err := io.ReadAll(c); err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					errs <- errors.New("the server held a slow-body connection open")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestRequestSizeLimits: headers over HeaderBytes get 431, a body over
// BodyBytes cannot be read whole.
func TestRequestSizeLimits(t *testing.T) {
	addr := serveLimited(t, readsBody, defaultServerLimits)
	req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
	req.Header.Set("X-Big", strings.Repeat("a", 2*defaultServerLimits.HeaderBytes))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("%d-byte header: HTTP %d, want 431", 2*defaultServerLimits.HeaderBytes, resp.StatusCode)
	}
	body := strings.NewReader(strings.Repeat("a", int(defaultServerLimits.BodyBytes)+1))
	resp, err = http.Post("http://"+addr+"/", "application/octet-stream", body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "too large") {
		t.Errorf("%d-byte body: HTTP %d %q, want 400 request body too large", defaultServerLimits.BodyBytes+1, resp.StatusCode, b)
	}
	resp, err = http.Post("http://"+addr+"/", "application/octet-stream", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "2\n" {
		t.Errorf("small body: HTTP %d %q", resp.StatusCode, b)
	}
}

// TestRequestsInFlightBounded: with InFlight requests held by slow
// handlers, the next is answered 503 with Retry-After at once (not queued),
// scrapes and the probes still pass, and once the held ones end requests are served.
func TestRequestsInFlightBounded(t *testing.T) {
	l := defaultServerLimits
	l.InFlight = 3
	release := make(chan struct{})
	var held sync.WaitGroup
	held.Add(l.InFlight)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			held.Done()
			<-release
		}
		fmt.Fprintln(w, "ok")
	})
	addr := serveLimited(t, h, l)
	var done sync.WaitGroup
	for range l.InFlight {
		done.Go(func() {
			if resp, err := http.Get("http://" + addr + "/hold"); err == nil {
				resp.Body.Close()
			}
		})
	}
	held.Wait()
	resp, err := http.Get("http://" + addr + "/api/v1/clusters")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// Under /api/ the refusal is the API's envelope (the plugin decodes it
	// as "unavailable"; it read plain text as "not storcast").
	var env apiv1.Envelope
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" ||
		resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &env) != nil ||
		env.Status != "error" || env.ErrorType != apiv1.ErrUnavailable || env.Error != "too many requests in progress (3): retry" {
		t.Errorf("API request beyond the bound: %d %q, Retry-After %q, Content-Type %q", resp.StatusCode, body, resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"))
	}
	resp, err = http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || strings.TrimSpace(string(body)) != "too many requests in progress (3): retry" {
		t.Errorf("page request beyond the bound: %d %q", resp.StatusCode, body)
	}
	for _, probe := range []string{"/metrics", "/-/healthy", "/-/ready"} {
		resp, err := http.Get("http://" + addr + probe)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s while the bound is reached: %d", probe, resp.StatusCode)
		}
	}
	close(release)
	done.Wait()
	resp, err = http.Get("http://" + addr + "/api/v1/clusters")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the held requests ended: %d", resp.StatusCode)
	}
}
