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
)

// CheckFiles checks what c names on the file system, the step after
// Validate that `storcast --config.check`, start-up and every reload run:
// each calibration file decodes, the web config file is a valid
// exporter-toolkit config with its certificates, the files of
// prometheus.http_config exist, and state_dir is a directory or can be
// created as one. It returns the first problem, naming the key.
func (c *Config) CheckFiles() error {
	for i := range c.Clusters {
		cl := &c.Clusters[i]
		if cl.Calibration.File != "" {
			if _, err := cl.Calibration.Load(); err != nil {
				return fmt.Errorf("clusters[%d].calibration.file: %v", i, err)
			}
			cl.Calibration.Digest = digest(cl.Calibration.File)
		}
		if cl.Advisor.CatalogFile != "" {
			if _, err := cl.Advisor.Load(); err != nil {
				return fmt.Errorf("clusters[%d].advisor.catalog_file: %v", i, err)
			}
			cl.Advisor.Digest = digest(cl.Advisor.CatalogFile)
		}
	}
	if f := c.Web.ConfigFile; f != "" {
		if err := readable(f); err != nil {
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
		if err := readable(kf.path); err != nil {
			return fmt.Errorf("prometheus.http_config.%s: %v", kf.key, err)
		}
	}
	if err := creatableDir(c.StateDir); err != nil {
		return fmt.Errorf("state_dir: %v", err)
	}
	return nil
}

// digest is the SHA-256 of the file at path in hex ("" when it cannot be
// read: Load, just before, would have said why).
func digest(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Load reads and decodes the calibration file: format yaml (a
// conservation calibration), fio (fio's JSON output), or by extension when
// Format is empty (.json is fio).
func (cal Calibration) Load() (conservation.Calibration, error) {
	data, err := os.ReadFile(cal.File)
	if err != nil {
		return conservation.Calibration{}, pathError(err)
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
		return out, fmt.Errorf("%s: %v", cal.File, err)
	}
	return out, nil
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

// readable reports whether path is a regular file that opens.
func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return pathError(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return pathError(err)
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory, not a file", path)
	}
	return nil
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
	data, err := os.ReadFile(a.CatalogFile)
	if err != nil {
		return nil, pathError(err)
	}
	cat, err := advisor.LoadCatalog(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.CatalogFile, err)
	}
	return cat, nil
}
