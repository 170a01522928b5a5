package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/storcast/storcast/forecaster/advisor"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/internal/boundedread"
)

// CheckFiles checks what c names on the file system, the step after
// Validate that `storcast --config.check`, start-up and every reload run:
// each calibration file decodes, the web config file is a valid
// exporter-toolkit config with its certificates, the files of
// prometheus.http_config read, and state_dir is a directory or can be
// created as one. Every file must be a regular one (a symbolic link to one
// is followed) of at most MaxFileBytes. It returns the first problem,
// naming the key.
func (c *Config) CheckFiles() error {
	for i := range c.Clusters {
		cl := &c.Clusters[i]
		if cl.Calibration.File != "" {
			_, data, err := cl.Calibration.load()
			if err != nil {
				return fmt.Errorf("clusters[%d].calibration.file: %v", i, err)
			}
			cl.Calibration.Digest = digest(data)
		}
		if cl.Advisor.CatalogFile != "" {
			cat, data, err := cl.Advisor.load()
			if err != nil {
				return fmt.Errorf("clusters[%d].advisor.catalog_file: %v", i, err)
			}
			if err := cl.Advisor.checkActive(cat); err != nil {
				return fmt.Errorf("clusters[%d].advisor.active_rule_set: %v", i, err)
			}
			cl.Advisor.Digest = digest(data)
		}
	}
	if f := c.Web.ConfigFile; f != "" {
		if err := readable(f, "a web configuration file"); err != nil {
			return fmt.Errorf("web.config_file: %v", err)
		}
		if err := web.Validate(f); err != nil {
			msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n")
			return fmt.Errorf("web.config_file: %s: %s", f, strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", ";")), " "))
		}
	}
	for _, kf := range httpConfigFiles(c.Prometheus.HTTPConfig) {
		if kf.path == "" {
			continue
		}
		if err := readable(kf.path, "a TLS or credentials file"); err != nil {
			return fmt.Errorf("prometheus.http_config.%s: %v", kf.key, err)
		}
	}
	if err := creatableDir(c.StateDir); err != nil {
		return fmt.Errorf("state_dir: %v", err)
	}
	return nil
}

// MaxFileBytes is the largest file the configuration reads: the
// configuration file itself, a calibration, a rule-set catalog, and (checked,
// not kept) the web config and prometheus.http_config's files. A larger one
// is refused, naming it, rather than read into memory: a path such as
// /dev/zero or a stray file of gigabytes would otherwise exhaust memory at
// every start and reload. Each is far smaller: a configuration of maxNodes
// values is about a megabyte, a YAML calibration holds a few dozen points,
// fio's JSON takes some 6 kB per job (e2e/ceph/scorer's
// calibration-runs-fio.json: 12 jobs, 76 kB), so that 16 MiB holds some
// 2,700 jobs, and a CA bundle is a few hundred kB.
const MaxFileBytes = 16 << 20

// readFile reads a file the configuration names, as boundedread.Read
// (symbolic links followed: Kubernetes mounts a ConfigMap's files as links),
// at most MaxFileBytes; what names its kind in the message of one too large.
func readFile(path, what string) ([]byte, error) {
	data, err := boundedread.Read(path, MaxFileBytes, what)
	return data, pathError(err)
}

// digest is the SHA-256 of data in hex.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Load reads and decodes the calibration file: format yaml (a
// conservation calibration), fio (fio's JSON output), or by extension when
// Format is empty (.json is fio).
func (cal Calibration) Load() (conservation.Calibration, error) {
	out, _, err := cal.load()
	return out, err
}

// load is Load, also returning the bytes it decoded: CheckFiles's digest is
// of those, since a second read could find the file rewritten in between.
func (cal Calibration) load() (conservation.Calibration, []byte, error) {
	data, err := readFile(cal.File, "a calibration file")
	if err != nil {
		return conservation.Calibration{}, nil, err
	}
	format := cal.Format
	if format == "" {
		format = "yaml"
		if strings.EqualFold(filepath.Ext(cal.File), ".json") {
			format = "fio"
		}
	}
	var out conservation.Calibration
	if format == "fio" {
		out, err = conservation.ImportFio(data)
	} else {
		out, err = conservation.LoadCalibration(data)
	}
	if err != nil {
		return out, nil, fmt.Errorf("%s: %v", cal.File, err)
	}
	return out, data, nil
}

type keyFile struct{ key, path string }

// httpConfigFiles lists the files an HTTP client config reads, by key.
func httpConfigFiles(h commoncfg.HTTPClientConfig) []keyFile {
	out := tlsFiles("tls_config.", h.TLSConfig)
	out = append(out, keyFile{"bearer_token_file", h.BearerTokenFile})
	if a := h.BasicAuth; a != nil {
		out = append(out, keyFile{"basic_auth.username_file", a.UsernameFile}, keyFile{"basic_auth.password_file", a.PasswordFile})
	}
	if a := h.Authorization; a != nil {
		out = append(out, keyFile{"authorization.credentials_file", a.CredentialsFile})
	}
	if o := h.OAuth2; o != nil {
		out = append(out, keyFile{"oauth2.client_secret_file", o.ClientSecretFile})
		out = append(out, tlsFiles("oauth2.tls_config.", o.TLSConfig)...)
	}
	return out
}

func tlsFiles(prefix string, t commoncfg.TLSConfig) []keyFile {
	return []keyFile{{prefix + "ca_file", t.CAFile}, {prefix + "cert_file", t.CertFile}, {prefix + "key_file", t.KeyFile}}
}

// readable reports whether path is a regular file of at most MaxFileBytes
// that reads: read whole and dropped, so that a FIFO or a device is refused
// here without blocking, not met later by the code that reads it.
func readable(path, what string) error {
	_, err := readFile(path, what)
	return err
}

// creatableDir reports whether dir is a directory, or does not exist and its
// nearest existing ancestor is a directory (MkdirAll would create it).
func creatableDir(dir string) error {
	st, err := os.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return nil
	}
	if !missing(err) {
		return pathError(err)
	}
	for p := filepath.Dir(filepath.Clean(dir)); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s cannot be created: %s is not a directory", dir, p)
			}
			return nil
		}
		if !missing(err) {
			return pathError(err)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// missing reports whether a Stat error says the path does not exist (or
// runs through a file, which the walk up then finds).
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// pathError drops the operation ("open", "stat") from an *fs.PathError:
// "<path>: no such file or directory".
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// Load reads and decodes the rule-set catalog, strictly.
func (a Advisor) Load() (*advisor.Catalog, error) {
	cat, _, err := a.load()
	return cat, err
}

// checkActive checks that ActiveRuleSet, when set, is a rule set of cat.
func (a Advisor) checkActive(cat *advisor.Catalog) error {
	if a.ActiveRuleSet == "" {
		return nil
	}
	names := make([]string, len(cat.RuleSets))
	for i, rs := range cat.RuleSets {
		if rs.Name == a.ActiveRuleSet {
			return nil
		}
		names[i] = fmt.Sprintf("%q", rs.Name)
	}
	return fmt.Errorf("%q is not a rule set of %s (it has %s)", a.ActiveRuleSet, a.CatalogFile, strings.Join(names, ", "))
}

// load is Load, also returning the bytes it decoded (as Calibration.load).
func (a Advisor) load() (*advisor.Catalog, []byte, error) {
	data, err := readFile(a.CatalogFile, "a rule-set catalog")
	if err != nil {
		return nil, nil, err
	}
	cat, err := advisor.LoadCatalog(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", a.CatalogFile, err)
	}
	return cat, data, nil
}
