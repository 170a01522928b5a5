package conservation

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/internal/yamlstrict"
)

// calibrationFile is the YAML calibration file:
//
//	cluster: ceph-prod          # optional
//	interpolation: auto         # optional: loglog, cost or auto (default: see Model.SizeForm)
//	points:
//	  - io_size: 4KiB           # or io_size_bytes: 4096 (exactly one of the two)
//	    read_iops: 182000       # saturated IOPS at 100% reads
//	    write_iops: [41000, 39500, 43800]  # or a list of repeated runs
//	    source: fio 2026-03-02  # optional, free text
//	mixed:                      # optional: saturated mixed points, for γ
//	  - io_size: 4KiB
//	    read_ratio: 0.5         # strictly between 0 and 1
//	    iops: [61000, 58800]    # total IOPS at that mix; a number or runs
//	  - io_size: 4KiB           # a mixed-size point, for η: reads of io_size
//	    write_io_size: 64KiB    # with writes of write_io_size at once
//	    read_ratio: 0.5
//	    iops: [9100, 8800]
type calibrationFile struct {
	Cluster       string      `yaml:"cluster"`
	Interpolation string      `yaml:"interpolation,omitempty"`
	Points        []pointFile `yaml:"points"`
	Mixed         []mixedFile `yaml:"mixed,omitempty"`
}

type pointFile struct {
	IOSize      *string  `yaml:"io_size,omitempty"`
	IOSizeBytes *float64 `yaml:"io_size_bytes,omitempty"`
	ReadIOPS    runs     `yaml:"read_iops"`
	WriteIOPS   runs     `yaml:"write_iops"`
	Source      string   `yaml:"source,omitempty"`
}

type mixedFile struct {
	IOSize           *string  `yaml:"io_size,omitempty"`
	IOSizeBytes      *float64 `yaml:"io_size_bytes,omitempty"`
	WriteIOSize      *string  `yaml:"write_io_size,omitempty"`
	WriteIOSizeBytes *float64 `yaml:"write_io_size_bytes,omitempty"`
	ReadRatio        *float64 `yaml:"read_ratio"`
	IOPS             runs     `yaml:"iops"`
	Source           string   `yaml:"source,omitempty"`
}

// runs is a figure in the YAML file: one number, or a list of repeated runs.
// nil means missing.
type runs []float64

func (r *runs) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		var v []float64
		if err := n.Decode(&v); err != nil {
			return err
		}
		if len(v) == 0 {
			v = []float64{} // present but empty: reported by the loader
		}
		*r = v
		return nil
	}
	var v float64
	if err := n.Decode(&v); err != nil {
		return err
	}
	*r = runs{v}
	return nil
}

func (r runs) MarshalYAML() (any, error) {
	if len(r) == 1 {
		return r[0], nil
	}
	return []float64(r), nil
}

// figure turns a YAML figure into its central value (the runs' mean) and
// its runs (nil for a single number).
func (r runs) figure(name string) (float64, []float64, error) {
	switch {
	case r == nil:
		return 0, nil, inputError(name, "missing")
	case len(r) == 0:
		return 0, nil, inputError(name, "empty list of runs")
	case len(r) == 1:
		return r[0], nil, nil
	}
	for k, v := range r {
		if err := checkPositive(fmt.Sprintf("%s runs[%d]", name, k), v); err != nil {
			return 0, nil, err
		}
	}
	return mean(r), append([]float64(nil), r...), nil
}

func fileSize(name string, size *string, bytes *float64) (float64, error) {
	switch {
	case size != nil && bytes != nil:
		return 0, inputError(name, "give io_size or io_size_bytes, not both")
	case size != nil:
		s, err := ParseSize(*size)
		if err != nil {
			return 0, inputError(name+".io_size", "%v", err)
		}
		return s, nil
	case bytes != nil:
		return *bytes, nil
	}
	return 0, inputError(name+".io_size", "missing (give io_size or io_size_bytes)")
}

// LoadCalibration decodes and validates a YAML calibration file. Decoding is
// strict: unknown fields, a second document or a missing field are errors,
// and every validation error names the field, e.g.
//
//	invalid input: points[1].write_iops: must be > 0, got -5
//
// A figure given as a list of runs becomes their mean, the runs kept. What
// loads makes a model: NewModel's refusal is returned as the load's.
func LoadCalibration(data []byte) (Calibration, error) {
	var f calibrationFile
	if err := yamlstrict.Decode(data, &f); err != nil {
		if errors.Is(err, yamlstrict.ErrEmpty) || errors.Is(err, yamlstrict.ErrMoreDocuments) {
			return Calibration{}, inputError("calibration", "%v", err)
		}
		return Calibration{}, fmt.Errorf("%w: calibration: %s", ErrInput, yamlstrict.Message(err))
	}
	c := Calibration{Cluster: f.Cluster, Interpolation: f.Interpolation, Points: make([]Point, 0, len(f.Points))}
	for i, p := range f.Points {
		name := fmt.Sprintf("points[%d]", i)
		size, err := fileSize(name, p.IOSize, p.IOSizeBytes)
		if err != nil {
			return Calibration{}, err
		}
		r, rr, err := p.ReadIOPS.figure(name + ".read_iops")
		if err != nil {
			return Calibration{}, err
		}
		w, wr, err := p.WriteIOPS.figure(name + ".write_iops")
		if err != nil {
			return Calibration{}, err
		}
		c.Points = append(c.Points, Point{IOSizeBytes: size, ReadIOPS: r, WriteIOPS: w, ReadRuns: rr, WriteRuns: wr, Source: p.Source})
	}
	for i, p := range f.Mixed {
		name := fmt.Sprintf("mixed[%d]", i)
		size, err := fileSize(name, p.IOSize, p.IOSizeBytes)
		if err != nil {
			return Calibration{}, err
		}
		var wsize float64
		switch {
		case p.WriteIOSize != nil && p.WriteIOSizeBytes != nil:
			return Calibration{}, inputError(name, "give write_io_size or write_io_size_bytes, not both")
		case p.WriteIOSize != nil:
			if wsize, err = ParseSize(*p.WriteIOSize); err != nil {
				return Calibration{}, inputError(name+".write_io_size", "%v", err)
			}
		case p.WriteIOSizeBytes != nil:
			wsize = *p.WriteIOSizeBytes
			if err := checkPositive(name+".write_io_size_bytes", wsize); err != nil {
				return Calibration{}, err
			}
		}
		if wsize == size {
			wsize = 0
		}
		if p.ReadRatio == nil {
			return Calibration{}, inputError(name+".read_ratio", "missing")
		}
		v, vr, err := p.IOPS.figure(name + ".iops")
		if err != nil {
			return Calibration{}, err
		}
		c.Mixed = append(c.Mixed, MixedPoint{IOSizeBytes: size, WriteIOSizeBytes: wsize, ReadRatio: *p.ReadRatio, IOPS: v, Runs: vr, Source: p.Source})
	}
	if err := checkModel(c); err != nil {
		return Calibration{}, err
	}
	return c, nil
}

// checkModel refuses, by the same error NewModel gives, a calibration that
// is valid field by field but makes no model (a mixed point implying an
// interference past its bounds): what loads must serve, so a configuration
// check names the file's fault rather than the first fit.
func checkModel(c Calibration) error {
	if err := c.Validate(); err != nil {
		return err
	}
	_, err := NewModel(c)
	return err
}

// MarshalCalibration writes c in the YAML calibration file format (sizes in
// bytes; a figure with runs as the list of its runs), so an estimated
// calibration can be reviewed and edited by hand.
func MarshalCalibration(c Calibration) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	fig := func(central float64, rs []float64) runs {
		if len(rs) > 1 {
			return append(runs(nil), rs...)
		}
		return runs{central}
	}
	f := calibrationFile{Cluster: c.Cluster, Interpolation: c.Interpolation}
	for _, p := range c.Points {
		p := p
		f.Points = append(f.Points, pointFile{IOSizeBytes: &p.IOSizeBytes, ReadIOPS: fig(p.ReadIOPS, p.ReadRuns), WriteIOPS: fig(p.WriteIOPS, p.WriteRuns), Source: p.Source})
	}
	for _, p := range c.Mixed {
		p := p
		mf := mixedFile{IOSizeBytes: &p.IOSizeBytes, ReadRatio: &p.ReadRatio, IOPS: fig(p.IOPS, p.Runs), Source: p.Source}
		if p.mixedSize() {
			mf.WriteIOSizeBytes = &p.WriteIOSizeBytes
		}
		f.Mixed = append(f.Mixed, mf)
	}
	return yaml.Marshal(f)
}

// sizeNumberUnit splits a size into its leading number and the unit after
// it (spaces trimmed); ParseSize and fio's sizes read their units apart.
func sizeNumberUnit(s string) (float64, string, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	v, err := strconv.ParseFloat(t[:i], 64)
	if err != nil || i == 0 {
		return 0, "", fmt.Errorf("size %q: no number", s)
	}
	return v, strings.TrimSpace(t[i:]), nil
}

// ParseSize parses an IO size: a plain number of bytes ("4096"), an IEC
// size ("4KiB", "1MiB", "1.5GiB", "512B"), or fio's shorthand ("4k", "1m",
// "64K"), where k, m, g, t are powers of 1024 as in fio's default
// kb_base=1024. "KB", "MB", ... are refused as ambiguous (1000 or 1024?).
func ParseSize(s string) (float64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, fmt.Errorf("empty size")
	}
	v, unit, err := sizeNumberUnit(s)
	if err != nil {
		return 0, err
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
