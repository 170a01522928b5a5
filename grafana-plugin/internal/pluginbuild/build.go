package pluginbuild

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/build/buildinfo"
	"github.com/grafana/grafana-plugin-sdk-go/build/utils"
)

// Platform is a GOOS/GOARCH pair the backend is built for.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "_" + p.Arch }

// Platforms are the platforms the archive carries.
var Platforms = []Platform{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "arm64"}}

// Meta is what the build needs from plugin.json and package.json.
type Meta struct {
	ID         string // plugin.json id
	Executable string // plugin.json executable
	Version    string // package.json version
}

// ReadMeta reads src/plugin.json and package.json of the plugin at dir.
func ReadMeta(dir string) (Meta, error) {
	var pj struct {
		ID         string `json:"id"`
		Executable string `json:"executable"`
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := readJSON(filepath.Join(dir, "src", "plugin.json"), &pj); err != nil {
		return Meta{}, err
	}
	if err := readJSON(filepath.Join(dir, "package.json"), &pkg); err != nil {
		return Meta{}, err
	}
	m := Meta{ID: pj.ID, Executable: pj.Executable, Version: pkg.Version}
	if m.ID == "" || m.Executable == "" || m.Version == "" {
		return Meta{}, fmt.Errorf("plugin.json id %q, executable %q, package.json version %q: none may be empty", m.ID, m.Executable, m.Version)
	}
	return m, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// LDFlags are the linker flags of the SDK's own build: stripped, with the
// build info that `gpx_... -buildinfo` prints.
func LDFlags(m Meta, built time.Time) string {
	flags := map[string]string{}
	buildinfo.Info{Time: built.UnixMilli(), PluginID: m.ID, Version: m.Version}.AppendFlags(flags)
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := "-w -s"
	for _, k := range keys {
		s += fmt.Sprintf(" -X '%s=%s'", k, flags[k])
	}
	return s
}

// BuildBackend cross-compiles the plugin at dir (its ./pkg) into dist for
// each platform, one after the other (they share the build cache).
func BuildBackend(dir, dist string, m Meta, platforms []Platform, built time.Time) error {
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	for _, p := range platforms {
		out, err := filepath.Abs(filepath.Join(dist, m.Executable+"_"+p.String()))
		if err != nil {
			return err
		}
		cmd := exec.Command("go", "build", "-trimpath", "-tags", "arrow_json_stdlib",
			"-ldflags", LDFlags(m, built), "-o", out, "./pkg")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch, "GOFLAGS=-buildvcs=false")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build for %s: %v\n%s", p, err, b)
		}
	}
	return nil
}

// ManifestName is the manifest's file name in dist/.
const ManifestName = "go_plugin_build_manifest"

// Manifest returns the SDK's manifest of the Go sources under dir (its
// utils.GenerateManifest, which walks the working directory).
func Manifest(dir string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if err := os.Chdir(dir); err != nil {
		return "", err
	}
	defer func() { _ = os.Chdir(wd) }()
	return utils.GenerateManifest()
}

// WriteManifest writes dist/go_plugin_build_manifest for the sources under dir.
func WriteManifest(dir, dist string) error {
	m, err := Manifest(dir)
	if err != nil {
		return err
	}
	if !strings.Contains(m, "pkg/main.go") {
		return fmt.Errorf("manifest of %s lists no pkg/main.go: wrong directory?", dir)
	}
	return os.WriteFile(filepath.Join(dist, ManifestName), []byte(m), 0o644)
}
