package config

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFilesReadBounded: every file the configuration reads is read as a
// regular file of at most MaxFileBytes. A FIFO is refused at once, naming
// the file (os.ReadFile blocked start-up and every reload until a writer
// came), a file past the cap is refused naming the file and the cap
// (/dev/zero or a stray file of gigabytes filled memory), and a symbolic
// link to a regular file (a Kubernetes ConfigMap's) still loads.
func TestFilesReadBounded(t *testing.T) {
	dir := t.TempDir()
	cal := filepath.Join(dir, "cal.yml")
	if err := os.WriteFile(cal, []byte("points:\n  - {io_size: 4096, read_iops: 12000, write_iops: 4000}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo, big := filepath.Join(dir, "fifo.yml"), filepath.Join(dir, "big.yml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yml")
	if err := os.Symlink("cal.yml", link); err != nil {
		t.Fatal(err)
	}
	tooBig := func(what string) string {
		return fmt.Sprintf("%s: %d bytes, more than %s holds (at most %d)", big, MaxFileBytes+1, what, MaxFileBytes)
	}
	// check loads the configuration file, then checks its files, as
	// start-up does, in a goroutine: a read that blocks fails the test
	// instead of hanging it.
	check := func(t *testing.T, file, yml string) error {
		t.Helper()
		if yml != "" {
			yml = "state_dir: " + dir + "\n" + yml
			if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() {
			c, err := Load(file, nil)
			if err == nil {
				err = c.CheckFiles()
			}
			done <- err
		}()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the configuration has not loaded after 10 s", file)
			return nil
		}
	}
	cfg := filepath.Join(dir, "storcast.yml")
	const prom = "prometheus: {url: \"http://127.0.0.1:9090\"}\n"
	for _, c := range []struct{ name, file, yml, want string }{
		{"calibration, a FIFO", cfg, prom + "clusters: [{name: a, kind: ceph, calibration: {file: fifo.yml}}]",
			"clusters[0].calibration.file: " + fifo + ": not a regular file but a FIFO"},
		{"calibration, past the cap", cfg, prom + "clusters: [{name: a, kind: ceph, calibration: {file: big.yml}}]",
			"clusters[0].calibration.file: " + tooBig("a calibration file")},
		{"calibration, a device", cfg, prom + "clusters: [{name: a, kind: ceph, calibration: {file: /dev/zero}}]",
			"clusters[0].calibration.file: /dev/zero: not a regular file but a device"},
		{"rule-set catalog, a FIFO", cfg, prom + "clusters: [{name: a, kind: ceph, advisor: {catalog_file: fifo.yml}}]",
			"clusters[0].advisor.catalog_file: " + fifo + ": not a regular file but a FIFO"},
		{"rule-set catalog, past the cap", cfg, prom + "clusters: [{name: a, kind: ceph, advisor: {catalog_file: big.yml}}]",
			"clusters[0].advisor.catalog_file: " + tooBig("a rule-set catalog")},
		{"web config, a FIFO", cfg, prom + "web: {config_file: fifo.yml}\nclusters: [{name: a, kind: ceph}]",
			"web.config_file: " + fifo + ": not a regular file but a FIFO"},
		{"http_config file, a FIFO", cfg, "prometheus: {url: \"http://127.0.0.1:9090\", http_config: {basic_auth: {username: u, password_file: fifo.yml}}}\nclusters: [{name: a, kind: ceph}]",
			"prometheus.http_config.basic_auth.password_file: " + fifo + ": not a regular file but a FIFO"},
		{"configuration file, a FIFO", fifo, "", "reading the configuration file: " + fifo + ": not a regular file but a FIFO"},
		{"configuration file, past the cap", big, "", "reading the configuration file: " + tooBig("a configuration file")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := check(t, c.file, c.yml); err == nil || err.Error() != c.want {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
	t.Run("symbolic links followed", func(t *testing.T) {
		// The configuration file a link too, as a ConfigMap mounts it.
		real := filepath.Join(dir, "real.yml")
		if err := os.WriteFile(real, []byte("state_dir: "+dir+"\n"+prom+"clusters: [{name: a, kind: ceph, calibration: {file: link.yml}}]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfgLink := filepath.Join(dir, "cfg-link.yml")
		if err := os.Symlink("real.yml", cfgLink); err != nil {
			t.Fatal(err)
		}
		if err := check(t, cfgLink, ""); err != nil {
			t.Fatalf("a link to a regular configuration and calibration file: %v", err)
		}
		cal, err := Calibration{File: link}.Load()
		if err != nil || len(cal.Points) != 1 {
			t.Errorf("calibration through a link: %+v, %v", cal, err)
		}
	})
}
