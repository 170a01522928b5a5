package pluginbuild

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Expect is what Validate checks an archive against.
type Expect struct {
	Meta
	Platforms []Platform
	// SourceDir, when set, is the plugin's source directory: the manifest
	// must list exactly its Go files with their current hashes.
	SourceDir string
}

// leftovers are files that have no place in a released plugin.
var leftovers = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\.map$`), "source map"},
	{regexp.MustCompile(`(_test\.go|\.test\.[jt]sx?|\.spec\.[jt]sx?)$`), "test file"},
	{regexp.MustCompile(`(^|/)(node_modules|coverage|\.git|__snapshots__)/`), "development directory"},
	{regexp.MustCompile(`(^|/)(\.DS_Store|Thumbs\.db|__debug_bin[^/]*|debug\.test)$`), "debug or editor file"},
	{regexp.MustCompile(`\.(orig|rej|swp|log|tmp)$|~$`), "editor or debug file"},
	{regexp.MustCompile(`\.(go|tsx?)$`), "source file"},
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Validate returns every problem it finds in the archive at zipPath; none
// means Grafana can install it.
func Validate(zipPath string, want Expect) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return []error{err}
	}
	defer zr.Close()

	files := map[string]*zip.File{}
	tops := map[string]bool{}
	for _, f := range zr.File {
		name := f.Name
		if strings.HasPrefix(name, "/") || strings.Contains(name, "\\") || path.Clean(name) != strings.TrimSuffix(name, "/") || strings.HasPrefix(name, "../") {
			bad("%s: unsafe path in archive", name)
			continue
		}
		top, rest, found := strings.Cut(name, "/")
		tops[top] = true
		if !found {
			bad("%s: a file at the top of the archive; everything belongs in %s/", name, want.ID)
			continue
		}
		if f.FileInfo().IsDir() {
			continue
		}
		files[rest] = f
		for _, l := range leftovers {
			if l.re.MatchString(rest) {
				bad("%s: %s left in the archive", name, l.what)
				break
			}
		}
	}
	if len(tops) != 1 || !tops[want.ID] {
		names := make([]string, 0, len(tops))
		for t := range tops {
			names = append(names, t)
		}
		bad("archive must hold exactly one folder named %q, holds %q", want.ID, names)
	}

	read := func(name string) ([]byte, bool) {
		f, ok := files[name]
		if !ok {
			bad("%s/%s is missing", want.ID, name)
			return nil, false
		}
		rc, err := f.Open()
		if err != nil {
			bad("%s: %v", name, err)
			return nil, false
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			bad("%s: %v", name, err)
			return nil, false
		}
		return b, true
	}

	// plugin.json
	if b, ok := read("plugin.json"); ok {
		var pj struct {
			Type       string `json:"type"`
			ID         string `json:"id"`
			Name       string `json:"name"`
			Backend    bool   `json:"backend"`
			Alerting   bool   `json:"alerting"`
			Executable string `json:"executable"`
			Info       struct {
				Version string `json:"version"`
				Updated string `json:"updated"`
				Logos   struct {
					Small string `json:"small"`
					Large string `json:"large"`
				} `json:"logos"`
				Author struct {
					Name string `json:"name"`
				} `json:"author"`
			} `json:"info"`
			Dependencies struct {
				GrafanaDependency string `json:"grafanaDependency"`
			} `json:"dependencies"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&pj); err != nil {
			bad("plugin.json is not valid JSON: %v", err)
		} else {
			if pj.ID != want.ID {
				bad("plugin.json id %q, want %q", pj.ID, want.ID)
			}
			if pj.Type != "datasource" || pj.Name == "" || pj.Info.Author.Name == "" {
				bad("plugin.json: type %q, name %q, author %q: want a named datasource with an author", pj.Type, pj.Name, pj.Info.Author.Name)
			}
			if pj.Info.Version != want.Version {
				bad("plugin.json version %q does not match package.json's %q", pj.Info.Version, want.Version)
			}
			if !dateRE.MatchString(pj.Info.Updated) {
				bad("plugin.json info.updated %q is not a date", pj.Info.Updated)
			}
			if !pj.Backend || !pj.Alerting || pj.Executable != want.Executable {
				bad("plugin.json: backend %v, alerting %v, executable %q: want true, true, %q", pj.Backend, pj.Alerting, pj.Executable, want.Executable)
			}
			if pj.Dependencies.GrafanaDependency == "" {
				bad("plugin.json has no dependencies.grafanaDependency")
			}
			for _, logo := range []string{pj.Info.Logos.Small, pj.Info.Logos.Large} {
				if _, ok := files[logo]; logo == "" || !ok {
					bad("plugin.json logo %q is not in the archive", logo)
				}
			}
		}
		if bytes.Contains(b, []byte("%VERSION%")) || bytes.Contains(b, []byte("%TODAY%")) || bytes.Contains(b, []byte("%PLUGIN_ID%")) {
			bad("plugin.json still holds a %%PLACEHOLDER%%")
		}
	}

	// module.js: what Grafana loads, an AMD module.
	if b, ok := read("module.js"); ok {
		if !bytes.HasPrefix(bytes.TrimSpace(b), []byte("define(")) {
			bad("module.js is not an AMD module (does not start with define()")
		}
		if bytes.Contains(b, []byte("sourceMappingURL")) {
			bad("module.js points at a source map")
		}
	}
	for _, doc := range []string{"README.md", "CHANGELOG.md", "LICENSE"} {
		if b, ok := read(doc); ok {
			if len(bytes.TrimSpace(b)) == 0 {
				bad("%s is empty", doc)
			}
			if bytes.Contains(b, []byte("%VERSION%")) {
				bad("%s still holds %%VERSION%%", doc)
			}
		}
	}
	if b, ok := read("CHANGELOG.md"); ok && !bytes.Contains(b, []byte("## "+want.Version+" ")) {
		bad("CHANGELOG.md has no entry for %s", want.Version)
	}

	// Executables: present, runnable, for the right machine.
	for _, p := range want.Platforms {
		name := want.Executable + "_" + p.String()
		f, ok := files[name]
		if !ok {
			bad("%s/%s is missing: no backend for %s", want.ID, name, p)
			continue
		}
		if f.Mode()&0o111 == 0 {
			bad("%s has no run bit (mode %v)", name, f.Mode())
		}
		b, ok := read(name)
		if !ok {
			continue
		}
		if err := checkBinary(b, p); err != nil {
			bad("%s: %v", name, err)
		}
	}

	// The manifest ties the binaries to the Go sources.
	if b, ok := read(ManifestName); ok {
		errs = append(errs, checkManifest(string(b), want.SourceDir)...)
	}
	return errs
}

func checkBinary(b []byte, p Platform) error {
	switch p.OS {
	case "linux":
		f, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("not an ELF executable: %v", err)
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[p.Arch]
		if f.Machine != want || f.Type != elf.ET_EXEC {
			return fmt.Errorf("ELF %v %v, want an executable for %v", f.Type, f.Machine, want)
		}
		if f.Section(".debug_info") != nil {
			return errors.New("carries DWARF debug info (build with -ldflags -w -s)")
		}
		// Grafana runs it anywhere only if it needs no dynamic loader.
		if f.Section(".interp") != nil {
			return errors.New("is dynamically linked (build with CGO_ENABLED=0)")
		}
	case "darwin":
		f, err := macho.NewFile(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("not a Mach-O executable: %v", err)
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[p.Arch]
		if f.Cpu != want || f.Type != macho.TypeExec {
			return fmt.Errorf("Mach-O %v %v, want an executable for %v", f.Type, f.Cpu, want)
		}
	default:
		return fmt.Errorf("no check for %s", p.OS)
	}
	return nil
}

// checkManifest checks the format "<sha256>:<path>\n" per Go file, and, with
// a source directory, that it lists exactly its Go files as they are now.
func checkManifest(m, sourceDir string) []error {
	var errs []error
	listed := map[string]string{}
	for i, line := range strings.Split(strings.TrimSuffix(m, "\n"), "\n") {
		sum, p, ok := strings.Cut(line, ":")
		if h, err := hex.DecodeString(sum); !ok || err != nil || len(h) != sha256.Size || !strings.HasSuffix(p, ".go") {
			errs = append(errs, fmt.Errorf("%s line %d: %q is not <sha256>:<file.go>", ManifestName, i+1, line))
			continue
		}
		listed[p] = sum
	}
	if _, ok := listed["pkg/main.go"]; !ok {
		errs = append(errs, fmt.Errorf("%s does not list pkg/main.go", ManifestName))
	}
	if sourceDir == "" {
		return errs
	}
	want, err := Manifest(sourceDir)
	if err != nil {
		return append(errs, err)
	}
	if want != m {
		for _, line := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
			sum, p, _ := strings.Cut(line, ":")
			if listed[p] != sum {
				errs = append(errs, fmt.Errorf("%s: %s is not listed with its current hash: rebuild the plugin", ManifestName, p))
			}
			delete(listed, p)
		}
		for p := range listed {
			errs = append(errs, fmt.Errorf("%s lists %s, which is not in %s", ManifestName, p, filepath.Clean(sourceDir)))
		}
	}
	return errs
}

// ValidateFile is Validate with the errors joined, for a command line.
func ValidateFile(zipPath string, want Expect) error {
	if _, err := os.Stat(zipPath); err != nil {
		return err
	}
	return errors.Join(Validate(zipPath, want)...)
}
