package conservation

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// calibrationFile is the YAML calibration file:
//
//	cluster: ceph-prod          # optional
//	points:
//	  - io_size: 4KiB           # or io_size_bytes: 4096 (exactly one of the two)
//	    read_iops: 182000       # saturated IOPS at 100% reads
//	    write_iops: 41000       # saturated IOPS at 100% writes
//	    source: fio 2026-03-02  # optional, free text
type calibrationFile struct {
	Cluster string      `yaml:"cluster"`
	Points  []pointFile `yaml:"points"`
}

type pointFile struct {
	IOSize      *string  `yaml:"io_size"`
	IOSizeBytes *float64 `yaml:"io_size_bytes"`
	ReadIOPS    *float64 `yaml:"read_iops"`
	WriteIOPS   *float64 `yaml:"write_iops"`
	Source      string   `yaml:"source"`
}

// LoadCalibration decodes and validates a YAML calibration file. Decoding is
// strict: unknown fields, a second document or a missing field are errors,
// and every validation error names the field, e.g.
//
//	invalid input: points[1].write_iops: must be > 0, got -5
func LoadCalibration(data []byte) (Calibration, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f calibrationFile
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return Calibration{}, inputError("calibration", "empty document")
		}
		return Calibration{}, fmt.Errorf("%w: calibration: %s", ErrInput, yamlMessage(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Calibration{}, inputError("calibration", "more than one YAML document")
	}
	c := Calibration{Cluster: f.Cluster, Points: make([]Point, 0, len(f.Points))}
	for i, p := range f.Points {
		name := fmt.Sprintf("points[%d]", i)
		var size float64
		switch {
		case p.IOSize != nil && p.IOSizeBytes != nil:
			return Calibration{}, inputError(name, "give io_size or io_size_bytes, not both")
		case p.IOSize != nil:
			s, err := ParseSize(*p.IOSize)
			if err != nil {
				return Calibration{}, inputError(name+".io_size", "%v", err)
			}
			size = s
		case p.IOSizeBytes != nil:
			size = *p.IOSizeBytes
		default:
			return Calibration{}, inputError(name+".io_size", "missing (give io_size or io_size_bytes)")
		}
		if p.ReadIOPS == nil {
			return Calibration{}, inputError(name+".read_iops", "missing")
		}
		if p.WriteIOPS == nil {
			return Calibration{}, inputError(name+".write_iops", "missing")
		}
		c.Points = append(c.Points, Point{IOSizeBytes: size, ReadIOPS: *p.ReadIOPS, WriteIOPS: *p.WriteIOPS, Source: p.Source})
	}
	if err := c.Validate(); err != nil {
		return Calibration{}, err
	}
	return c, nil
}

// unknownField matches yaml.v3's "field x not found in type pkg.T".
var unknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)

// yamlMessage turns yaml.v3 errors into one line without Go type names.
func yamlMessage(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs := make([]string, len(te.Errors))
		for i, e := range te.Errors {
			msgs[i] = unknownField.ReplaceAllString(e, "unknown field $1")
		}
		return strings.Join(msgs, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// MarshalCalibration writes c in the YAML calibration file format (sizes in
// bytes), so an estimated calibration can be reviewed and edited by hand.
func MarshalCalibration(c Calibration) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	f := calibrationFile{Cluster: c.Cluster}
	for _, p := range c.Points {
		p := p
		f.Points = append(f.Points, pointFile{IOSizeBytes: &p.IOSizeBytes, ReadIOPS: &p.ReadIOPS, WriteIOPS: &p.WriteIOPS, Source: p.Source})
	}
	return yaml.Marshal(f)
}

// ParseSize parses an IO size: a plain number of bytes ("4096"), an IEC
// size ("4KiB", "1MiB", "1.5GiB", "512B"), or fio's shorthand ("4k", "1m",
// "64K"), where k, m, g, t are powers of 1024 as in fio's default
// kb_base=1024. "KB", "MB", ... are refused as ambiguous (1000 or 1024?).
func ParseSize(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty size")
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("size %q: no number", s)
	}
	var mult float64
	switch unit {
	case "", "B", "b":
		mult = 1
	case "KiB", "k", "K", "Ki", "ki":
		mult = 1 << 10
	case "MiB", "m", "M", "Mi", "mi":
		mult = 1 << 20
	case "GiB", "g", "G", "Gi", "gi":
		mult = 1 << 30
	case "TiB", "t", "T", "Ti", "ti":
		mult = 1 << 40
	case "KB", "kB", "MB", "GB", "TB":
		return 0, fmt.Errorf("size %q: unit %q is ambiguous; use %siB (powers of 1024) or a number of bytes", s, unit, strings.ToUpper(unit[:1]))
	default:
		return 0, fmt.Errorf("size %q: unknown unit %q", s, unit)
	}
	v *= mult
	if v <= 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("size %q: must be > 0", s)
	}
	return v, nil
}
