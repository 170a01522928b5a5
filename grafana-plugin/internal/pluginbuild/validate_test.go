package pluginbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var testMeta = Meta{ID: "storcast-forecast-datasource", Executable: "gpx_storcast_forecast_datasource", Version: "0.1.0"}

var (
	tinyOnce sync.Once
	tinyBins map[Platform][]byte
	tinyErr  error
)

// tinyBinaries cross-compiles an empty program for each platform, once per
// test binary.
func tinyBinaries(t *testing.T) map[Platform][]byte {
	t.Helper()
	tinyOnce.Do(func() { tinyBins, tinyErr = buildTiny() })
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	return tinyBins
}

func buildTiny() (map[Platform][]byte, error) {
	dir, err := os.MkdirTemp("", "pluginbuild-tiny")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module tiny\n\ngo 1.24\n"), 0o644); err != nil {
		return nil, err
	}
	out := map[Platform][]byte{}
	for _, p := range Platforms {
		bin := filepath.Join(dir, p.String())
		cmd := exec.Command("go", "build", "-ldflags", "-w -s", "-o", bin, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch)
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building a tiny %s binary: %v\n%s", p, err, b)
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		out[p] = b
	}
	return out, nil
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// goodDist is a dist/ that Validate accepts.
func goodDist(bins map[Platform][]byte) map[string]string {
	files := map[string]string{
		"plugin.json": `{"type":"datasource","name":"Storcast","id":"storcast-forecast-datasource","backend":true,"alerting":true,
			"executable":"gpx_storcast_forecast_datasource","info":{"author":{"name":"Storcast"},"version":"0.1.0","updated":"2026-11-22",
			"logos":{"small":"img/logo.svg","large":"img/logo.svg"}},"dependencies":{"grafanaDependency":">=12.0.0"}}`,
		"module.js":    `define(["@grafana/data"],function(e){"use strict"});`,
		"README.md":    "# Storcast\n",
		"CHANGELOG.md": "# Changelog\n\n## 0.1.0 (2026-11-22)\n",
		"LICENSE":      "Apache License\n",
		"img/logo.svg": "<svg/>",
		ManifestName:   sum([]byte("package main")) + ":pkg/main.go\n",
	}
	for p, b := range bins {
		files[testMeta.Executable+"_"+p.String()] = string(b)
	}
	return files
}

func zipOf(t *testing.T, files map[string]string, id string) string {
	t.Helper()
	dist := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dist, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(name, "gpx_") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "plugin.zip")
	if err := Zip(dist, id, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestValidateCatchesEachDefect(t *testing.T) {
	bins := tinyBinaries(t)
	want := Expect{Meta: testMeta, Platforms: Platforms}

	if errs := Validate(zipOf(t, goodDist(bins), testMeta.ID), want); len(errs) != 0 {
		t.Fatalf("a good archive was rejected: %v", errs)
	}

	amd64 := testMeta.Executable + "_linux_amd64"
	cases := []struct {
		name   string
		change func(files map[string]string)
		id     string
		msg    string
	}{
		{"version mismatch", func(f map[string]string) {
			f["plugin.json"] = strings.Replace(f["plugin.json"], `"0.1.0"`, `"0.0.9"`, 1)
		}, "", `plugin.json version "0.0.9" does not match package.json's "0.1.0"`},
		{"invalid plugin.json", func(f map[string]string) { f["plugin.json"] = "{" }, "", "plugin.json is not valid JSON"},
		{"placeholder", func(f map[string]string) {
			f["plugin.json"] = strings.Replace(f["plugin.json"], `"2026-11-22"`, `"%TODAY%"`, 1)
		}, "", "plugin.json still holds a %PLACEHOLDER%"},
		{"no alerting", func(f map[string]string) {
			f["plugin.json"] = strings.Replace(f["plugin.json"], `"alerting":true`, `"alerting":false`, 1)
		}, "", "alerting false"},
		{"missing logo", func(f map[string]string) { delete(f, "img/logo.svg") }, "", `logo "img/logo.svg" is not in the archive`},
		{"missing license", func(f map[string]string) { delete(f, "LICENSE") }, "", "LICENSE is missing"},
		{"missing readme", func(f map[string]string) { delete(f, "README.md") }, "", "README.md is missing"},
		{"empty changelog", func(f map[string]string) { f["CHANGELOG.md"] = " " }, "", "CHANGELOG.md is empty"},
		{"no module.js", func(f map[string]string) { delete(f, "module.js") }, "", "module.js is missing"},
		{"module.js not AMD", func(f map[string]string) { f["module.js"] = "export const plugin = 1;" }, "", "not an AMD module"},
		{"source map", func(f map[string]string) { f["module.js.map"] = "{}" }, "", "module.js.map: source map left"},
		{"go test file", func(f map[string]string) { f["pkg/plugin/x_test.go"] = "package plugin" }, "", "test file left"},
		{"ts test file", func(f map[string]string) { f["QueryEditor.test.tsx"] = "" }, "", "test file left"},
		{"editor file", func(f map[string]string) { f[".DS_Store"] = "" }, "", "debug or editor file left"},
		{"coverage", func(f map[string]string) { f["coverage/index.html"] = "" }, "", "development directory left"},
		{"missing darwin", func(f map[string]string) { delete(f, testMeta.Executable+"_darwin_arm64") }, "", "no backend for darwin_arm64"},
		{"wrong machine", func(f map[string]string) { f[amd64] = string(bins[Platform{"linux", "arm64"}]) }, "", "want an executable for EM_X86_64"},
		{"not a binary", func(f map[string]string) { f[amd64] = "#!/bin/sh\n" }, "", "not an ELF executable"},
		{"mac binary for linux", func(f map[string]string) { f[amd64] = string(bins[Platform{"darwin", "arm64"}]) }, "", "not an ELF executable"},
		{"bad manifest", func(f map[string]string) { f[ManifestName] = "abc:pkg/main.go\n" }, "", "is not <sha256>:<file.go>"},
		{"wrong folder", func(map[string]string) {}, "storcast", `exactly one folder named "storcast-forecast-datasource"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := goodDist(bins)
			c.change(files)
			id := testMeta.ID
			if c.id != "" {
				id = c.id
			}
			errs := Validate(zipOf(t, files, id), want)
			for _, err := range errs {
				if strings.Contains(err.Error(), c.msg) {
					return
				}
			}
			t.Errorf("want an error containing %q, got %v", c.msg, errs)
		})
	}
}

func TestValidateNeedsTheRunBit(t *testing.T) {
	bins := tinyBinaries(t)
	files := goodDist(bins)
	zipPath := zipOf(t, files, testMeta.ID)
	// Rebuild the same dist with one executable not executable.
	dist := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dist, filepath.FromSlash(name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		mode := os.FileMode(0o644)
		if strings.HasPrefix(name, "gpx_") && !strings.HasSuffix(name, "linux_arm64") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := Zip(dist, testMeta.ID, zipPath); err != nil {
		t.Fatal(err)
	}
	errs := Validate(zipPath, Expect{Meta: testMeta, Platforms: Platforms})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "gpx_storcast_forecast_datasource_linux_arm64 has no run bit") {
		t.Errorf("errors = %v", errs)
	}
}

// TestBuiltArchive checks the archive `make plugin` built (PLUGIN_ZIP),
// against this checkout's sources.
func TestBuiltArchive(t *testing.T) {
	zipPath := os.Getenv("PLUGIN_ZIP")
	if zipPath == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PLUGIN_ZIP is not set: run this through make test-plugin")
		}
		t.Skip("PLUGIN_ZIP is not set; make test-plugin builds the archive and sets it")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	meta, err := ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range Validate(zipPath, Expect{Meta: meta, Platforms: Platforms, SourceDir: root}) {
		t.Error(err)
	}
}
