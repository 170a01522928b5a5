package config

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/internal/duration"
	"github.com/storcast/storcast/internal/yamlstrict"
)

// EnvPrefix starts the name of every environment variable Load reads: the
// key path in upper case with "." replaced by "_", e.g. STORCAST_FIT_INTERVAL.
const EnvPrefix = "STORCAST_"

// flagKeys are the flags that set a configuration key: flag name and key
// path (a yaml tag path of Config; TestFlagKeys checks each resolves).
var flagKeys = []struct{ flag, key, help string }{
	{"web.listen-address", "web.listen_address", "Address to listen on for /metrics, /api/v1 and the landing page."},
	{"web.config.file", "web.config_file", "exporter-toolkit web configuration file (TLS, basic auth)."},
	{"prometheus.url", "prometheus.url", "URL of the Prometheus-compatible query API."},
	{"state.dir", "state_dir", "Directory where fitted models are persisted."},
	{"demo", "demo", "Run on an embedded simulated cluster instead of Prometheus."},
}

// Flags registers --config.file and the flags that set configuration keys
// on fs. A flag's default is the key's default; only a flag the user set
// overrides the file and the environment.
func Flags(fs *pflag.FlagSet) {
	fs.String("config.file", "", "YAML configuration file.")
	d := reflect.ValueOf(Default())
	for _, f := range flagKeys {
		v, err := fieldByKey(d, f.key)
		if err != nil {
			panic(err) // a programming error, caught by TestFlagKeys
		}
		switch v.Kind() {
		case reflect.Bool:
			fs.Bool(f.flag, v.Bool(), f.help)
		default:
			fs.String(f.flag, fmt.Sprint(v.Interface()), f.help)
		}
	}
}

// Load builds the configuration in one pass over one decoder: Default, then
// the YAML file (if file is not empty), then the STORCAST_* environment,
// then the flags of fs the user set (fs may be nil). Decoding is strict: an
// unknown key, a value of the wrong type and a second YAML document are
// errors. Relative paths in the file are taken relative to the file. The
// result is validated (Validate); the files it names are checked by
// CheckFiles, not here.
func Load(file string, fs *pflag.FlagSet) (*Config, error) {
	return load(file, fs, os.LookupEnv)
}

func load(file string, fs *pflag.FlagSet, env func(string) (string, bool)) (*Config, error) {
	c := Default()
	if file != "" {
		data, err := readFile(file, "a configuration file")
		if err != nil {
			return nil, fmt.Errorf("reading the configuration file: %v", err)
		}
		if err := decodeFile(&c, data); err != nil {
			return nil, err
		}
		relativeTo(&c, filepath.Dir(file))
	}
	root := reflect.ValueOf(&c).Elem()
	for _, k := range scalarKeys() {
		name := EnvPrefix + strings.ToUpper(strings.ReplaceAll(k, ".", "_"))
		s, ok := env(name)
		if !ok || s == "" {
			// Set but empty counts as unset: a chart or compose file that
			// templates an unset value as "" must not clear the file's
			// web.config_file (serving without TLS and auth) or zero a
			// duration.
			continue
		}
		v, _ := fieldByKey(root, k)
		if err := decodeText(v, s); err != nil {
			return nil, fmt.Errorf("decoding configuration: '%s' (from %s) %v", k, name, err)
		}
	}
	if fs != nil {
		for _, f := range flagKeys {
			fl := fs.Lookup(f.flag)
			if fl == nil || !fl.Changed {
				continue
			}
			v, _ := fieldByKey(root, f.key)
			if err := decodeText(v, fl.Value.String()); err != nil {
				return nil, fmt.Errorf("decoding configuration: '%s' (from --%s) %v", f.key, f.flag, err)
			}
		}
	}
	if c.Demo && len(c.Clusters) == 0 {
		c.Clusters = []Cluster{DemoCluster()}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Parse decodes and validates a configuration held in memory, with the
// defaults but no environment, flags or file directory: what Load does with
// the file's content, for tests and fuzzing.
func Parse(data []byte) (*Config, error) {
	c := Default()
	if err := decodeFile(&c, data); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// relativeTo resolves the file's relative paths against its directory.
func relativeTo(c *Config, dir string) {
	c.Prometheus.HTTPConfig.SetDirectory(dir)
	for i := range c.Clusters {
		if f := c.Clusters[i].Calibration.File; f != "" && !filepath.IsAbs(f) {
			c.Clusters[i].Calibration.File = filepath.Join(dir, f)
		}
		if f := c.Clusters[i].Advisor.CatalogFile; f != "" && !filepath.IsAbs(f) {
			c.Clusters[i].Advisor.CatalogFile = filepath.Join(dir, f)
		}
	}
	if f := c.Web.ConfigFile; f != "" && !filepath.IsAbs(f) {
		c.Web.ConfigFile = filepath.Join(dir, f)
	}
}

// decodeFile decodes one YAML document onto c.
func decodeFile(c *Config, data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file: the defaults
		}
		return fmt.Errorf("decoding configuration: %s", oneLine(err))
	}
	var second yaml.Node
	if err := dec.Decode(&second); !errors.Is(err, io.EOF) {
		line := second.Line
		if err != nil {
			return fmt.Errorf("decoding configuration: after the first document: %s", oneLine(err))
		}
		return fmt.Errorf("decoding configuration: a second YAML document starts at line %d; a configuration file holds one", line)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	budget := maxNodes
	return decodeNode(reflect.ValueOf(c).Elem(), doc.Content[0], "", &budget)
}

// maxNodes bounds the nodes one file decodes, aliases expanded: a few
// anchors referring to each other can otherwise stand for billions.
const maxNodes = 50000

// at names path in a message: the top level has no key path.
func at(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func oneLine(err error) string {
	return strings.ReplaceAll(strings.TrimPrefix(err.Error(), "yaml: "), "\n", "; ")
}

var (
	durationType        = reflect.TypeOf(time.Duration(0))
	textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
	// A type with its own YAML decoding (prometheus/common's HTTP client
	// config) is given its node; yaml.v3 still applies its rules inside.
	obsoleteUnmarshalerType = reflect.TypeOf((*interface {
		UnmarshalYAML(func(any) error) error
	})(nil)).Elem()
)

// decodeNode sets v from n; path is the key path for messages.
func decodeNode(v reflect.Value, n *yaml.Node, path string, budget *int) error {
	if *budget--; *budget < 0 {
		return fmt.Errorf("decoding configuration: '%s': more than %d values (aliases expanded)", at(path), maxNodes)
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // "key:" with no value keeps the default
	}
	if v.Addr().Type().Implements(obsoleteUnmarshalerType) {
		return decodeForeign(v, n, path, budget)
	}
	if v.Addr().Type().Implements(textUnmarshalerType) || v.Type() == durationType || isScalarKind(v.Kind()) {
		if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("decoding configuration: '%s' expected a single value, got a %s", at(path), nodeKind(n))
		}
		if v.Addr().Type().Implements(textUnmarshalerType) {
			if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			return nil
		}
		if v.Kind() == reflect.String && n.Tag != "!!str" {
			return fmt.Errorf("decoding configuration: '%s' expected a string, got %s %s (quote it)", at(path), n.Tag, n.Value)
		}
		if err := decodeText(v, n.Value); err != nil {
			return fmt.Errorf("decoding configuration: '%s' %v", at(path), err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("decoding configuration: '%s' expected a map of keys, got a %s", at(path), nodeKind(n))
		}
		fields := map[string]int{}
		for i := 0; i < v.NumField(); i++ {
			if tag := yamlKey(v.Type().Field(i)); tag != "" {
				fields[tag] = i
			}
		}
		var unknown []string
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			fi, ok := fields[k]
			if !ok {
				unknown = append(unknown, k)
				continue
			}
			if seen[k] {
				return fmt.Errorf("decoding configuration: '%s' is given twice", join(path, k))
			}
			seen[k] = true
			if err := decodeNode(v.Field(fi), n.Content[i+1], join(path, k), budget); err != nil {
				return err
			}
		}
		if len(unknown) > 0 {
			return fmt.Errorf("decoding configuration: '%s' has invalid keys: %s", at(path), strings.Join(unknown, ", "))
		}
		return nil
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fmt.Errorf("decoding configuration: '%s' expected a list, got a %s", at(path), nodeKind(n))
		}
		out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, e := range n.Content {
			el := out.Index(i)
			if el.Type() == reflect.TypeOf(Cluster{}) {
				el.Set(reflect.ValueOf(defaultCluster()))
			}
			if err := decodeNode(el, e, fmt.Sprintf("%s[%d]", path, i), budget); err != nil {
				return err
			}
		}
		v.Set(out)
		return nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("decoding configuration: '%s' expected a map, got a %s", at(path), nodeKind(n))
		}
		m := reflect.MakeMap(v.Type())
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if m.MapIndex(reflect.ValueOf(k)).IsValid() {
				return fmt.Errorf("decoding configuration: '%s' is given twice", join(path, k))
			}
			e := reflect.New(v.Type().Elem()).Elem()
			if err := decodeNode(e, n.Content[i+1], join(path, k), budget); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k), e)
		}
		v.Set(m)
		return nil
	}
	return fmt.Errorf("decoding configuration: '%s' has a type the decoder does not know (%s)", at(path), v.Type())
}

// decodeForeign hands a node to a type's own YAML decoding, strictly. yaml.v3
// has no strict Node.Decode, so the node is encoded back to YAML and decoded
// with KnownFields: its aliases expanded first (an anchor elsewhere in the
// file is not in the encoded part), and the lines of an error mapped back to
// the file's.
func decodeForeign(v reflect.Value, n *yaml.Node, path string, budget *int) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("decoding configuration: '%s' expected a map of keys, got a %s", at(path), nodeKind(n))
	}
	expanded, err := expandAliases(n, budget)
	if err != nil {
		return fmt.Errorf("decoding configuration: '%s': %v", at(path), err)
	}
	b, err := yaml.Marshal(expanded)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := yamlstrict.Decode(b, v.Addr().Interface()); err != nil {
		msg := yamlstrict.Message(err)
		for _, p := range yamlstrict.Problems(err) {
			if p.UnknownField != "" {
				msg = "unknown key " + p.UnknownField
				break
			}
		}
		return fmt.Errorf("%s: %s", path, fileLines(msg, b, expanded))
	}
	return nil
}

// expandAliases returns a copy of n in which every alias is a copy of the
// node it names, counting the nodes against budget (a few anchors can stand
// for billions).
func expandAliases(n *yaml.Node, budget *int) (*yaml.Node, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("more than %d values (aliases expanded)", maxNodes)
	}
	if n.Kind == yaml.AliasNode {
		return expandAliases(n.Alias, budget)
	}
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, e := range n.Content {
		var err error
		if c.Content[i], err = expandAliases(e, budget); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// lineRef is "line N" in a YAML error message.
var lineRef = regexp.MustCompile(`\bline (\d+)\b`)

// fileLines rewrites the lines msg names in encoded (the YAML of the node
// orig) as the lines of the file orig came from: the two trees have the same
// shape, so their nodes pair up in order.
func fileLines(msg string, encoded []byte, orig *yaml.Node) string {
	var doc yaml.Node
	if yaml.Unmarshal(encoded, &doc) != nil || len(doc.Content) == 0 {
		return msg
	}
	lines := map[int]int{}
	var pair func(a, b *yaml.Node)
	pair = func(a, b *yaml.Node) {
		if _, ok := lines[a.Line]; !ok {
			lines[a.Line] = b.Line
		}
		for i := range min(len(a.Content), len(b.Content)) {
			pair(a.Content[i], b.Content[i])
		}
	}
	pair(doc.Content[0], orig)
	return lineRef.ReplaceAllStringFunc(msg, func(ref string) string {
		n, _ := strconv.Atoi(lineRef.FindStringSubmatch(ref)[1])
		if l, ok := lines[n]; ok {
			return "line " + strconv.Itoa(l)
		}
		return ref
	})
}

// decodeText sets a scalar v from text, as written in YAML, an environment
// variable or a flag.
func decodeText(v reflect.Value, s string) error {
	if v.Addr().Type().Implements(textUnmarshalerType) {
		return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
	}
	if v.Type() == durationType {
		d, err := duration.Parse(s)
		if err != nil {
			return err
		}
		v.SetInt(int64(d))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not true or false", s)
		}
		v.SetBool(b)
	case reflect.Int:
		i, err := strconv.ParseInt(s, 10, 32)
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%q is out of range (an integer from %d to %d)", s, math.MinInt32, math.MaxInt32)
		}
		if err != nil {
			return fmt.Errorf("%q is not an integer", s)
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := parseFloat(s)
		if err != nil {
			return err
		}
		v.SetFloat(f)
	default:
		return fmt.Errorf("cannot be set from text")
	}
	return nil
}

// parseFloat takes Go's and YAML's spellings (".nan", ".inf"); the range
// checks are Validate's.
func parseFloat(s string) (float64, error) {
	switch strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")) {
	case ".nan", ".inf":
		s = strings.Replace(s, ".", "", 1)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}

func isScalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Float64:
		return true
	}
	return false
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "map"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "single value (" + n.Value + ")"
	}
	return "YAML node"
}

func yamlKey(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if tag == "-" {
		return ""
	}
	return tag
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// fieldByKey follows a key path ("web.listen_address") through structs.
func fieldByKey(v reflect.Value, key string) (reflect.Value, error) {
	for _, part := range strings.Split(key, ".") {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, fmt.Errorf("config key %q: %s is not a section", key, part)
		}
		found := false
		for i := 0; i < v.NumField(); i++ {
			if yamlKey(v.Type().Field(i)) == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return reflect.Value{}, fmt.Errorf("config key %q: no key %s", key, part)
		}
	}
	return v, nil
}

// scalarKeys lists the key paths of Config's single-valued keys outside
// lists and maps: those the environment can set.
func scalarKeys() []string {
	var out []string
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			k := yamlKey(f)
			if k == "" {
				continue
			}
			p := join(path, k)
			switch {
			case reflect.PointerTo(f.Type).Implements(obsoleteUnmarshalerType):
			case f.Type == durationType || isScalarKind(f.Type.Kind()):
				out = append(out, p)
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type, p)
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	sort.Strings(out)
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
