package conservation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// fioOutput is the part of `fio --output-format=json` that calibration needs.
// In client/server mode (fio --client=host1 --client=host2 ...) the per-host
// jobs are in client_stats, next to an "All clients" sum.
type fioOutput struct {
	Version       string         `json:"fio version"`
	GlobalOptions map[string]any `json:"global options"`
	Jobs          []fioJob       `json:"jobs"`
	ClientStats   []fioJob       `json:"client_stats"`
}

type fioJob struct {
	JobName       string         `json:"jobname"`
	GroupID       int            `json:"groupid"`
	Error         int            `json:"error"`
	Hostname      string         `json:"hostname"`
	GlobalOptions map[string]any `json:"global options"`
	JobOptions    map[string]any `json:"job options"`
	Read          fioDirection   `json:"read"`
	Write         fioDirection   `json:"write"`
}

type fioDirection struct {
	IOPS float64 `json:"iops"`
}

// ImportFio turns fio JSON output into calibration points, one per block
// size. Jobs that are 100% read (rw=read|randread, or a mixed rw with
// rwmixread=100) give T_read100; 100% write jobs give T_write100; mixed and
// trim jobs are skipped. Jobs of one reporting group (same groupid, i.e. no
// stonewall between them) ran concurrently, so their IOPS are summed; when
// several groups measured the same size and direction (an iodepth sweep, say)
// the highest sum is the saturated figure. Options are read from the job,
// then from the global options, then fio's defaults (rw=read, bs=4k).
// Text before the JSON object (fio prints warnings there) is skipped. Every
// calibrated size needs both a read and a write measurement.
func ImportFio(data []byte) (Calibration, error) {
	start := bytes.IndexByte(data, '{')
	if start < 0 {
		return Calibration{}, inputError("fio", "no JSON object found (run fio with --output-format=json)")
	}
	var out fioOutput
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	if err := dec.Decode(&out); err != nil {
		return Calibration{}, inputError("fio", "decoding JSON: %v", err)
	}
	jobs, field := out.Jobs, "jobs"
	if len(jobs) == 0 {
		jobs, field = out.ClientStats, "client_stats"
	}
	if len(jobs) == 0 {
		return Calibration{}, inputError("fio", "no jobs and no client_stats in the output")
	}
	type key struct {
		group int
		write bool
		size  float64
	}
	sums := map[key]float64{}
	names := map[key][]string{}
	for i, j := range jobs {
		if field == "client_stats" && j.JobName == "All clients" {
			continue // the sum of the others
		}
		name := fmt.Sprintf("%s[%d] (%s)", field, i, j.JobName)
		if j.Error != 0 {
			return Calibration{}, inputError(name, "fio reported error %d", j.Error)
		}
		opt := func(k string) string {
			for _, m := range []map[string]any{j.JobOptions, j.GlobalOptions, out.GlobalOptions} {
				if v, ok := m[k]; ok {
					return fmt.Sprint(v)
				}
			}
			return ""
		}
		kind, err := fioKind(opt)
		if err != nil {
			return Calibration{}, inputError(name, "%v", err)
		}
		if kind == fioSkip {
			continue
		}
		readSize, writeSize, err := fioBlockSizes(opt)
		if err != nil {
			return Calibration{}, inputError(name+".bs", "%v", err)
		}
		k := key{group: j.GroupID, write: kind == fioWrite, size: readSize}
		iops := j.Read.IOPS
		if kind == fioWrite {
			k.size, iops = writeSize, j.Write.IOPS
		}
		if !finite(iops) || iops < 0 {
			return Calibration{}, inputError(name, "IOPS must be a finite number >= 0, got %v", iops)
		}
		sums[k] += iops
		label := j.JobName
		if j.Hostname != "" {
			label = j.Hostname + "/" + label
		}
		names[k] = append(names[k], label)
	}
	type best struct {
		iops  float64
		group int
	}
	read, write := map[float64]best{}, map[float64]best{}
	for k, v := range sums {
		m := read
		if k.write {
			m = write
		}
		if b, ok := m[k.size]; !ok || v > b.iops {
			m[k.size] = best{v, k.group}
		}
	}
	if len(read) == 0 && len(write) == 0 {
		return Calibration{}, inputError("fio", "no 100%% read or 100%% write job found (mixed and trim jobs are not calibration points)")
	}
	sizes := make([]float64, 0, len(read))
	for s := range read {
		sizes = append(sizes, s)
	}
	for s := range write {
		if _, ok := read[s]; !ok {
			return Calibration{}, inputError("fio", "block size %g bytes has a 100%% write job but no 100%% read job", s)
		}
	}
	sort.Float64s(sizes)
	version := out.Version
	if version == "" {
		version = "fio"
	}
	var c Calibration
	for _, s := range sizes {
		w, ok := write[s]
		if !ok {
			return Calibration{}, inputError("fio", "block size %g bytes has a 100%% read job but no 100%% write job", s)
		}
		r := read[s]
		src := fmt.Sprintf("%s: read group %d (%s), write group %d (%s)", version,
			r.group, strings.Join(names[key{r.group, false, s}], ","),
			w.group, strings.Join(names[key{w.group, true, s}], ","))
		c.Points = append(c.Points, Point{IOSizeBytes: s, ReadIOPS: r.iops, WriteIOPS: w.iops, Source: src})
	}
	if err := c.Validate(); err != nil {
		return Calibration{}, err
	}
	return c, nil
}

type fioJobKind int

const (
	fioSkip fioJobKind = iota
	fioRead
	fioWrite
)

func fioKind(opt func(string) string) (fioJobKind, error) {
	rw := opt("rw")
	if rw == "" {
		rw = opt("readwrite")
	}
	if i := strings.IndexByte(rw, ':'); i >= 0 {
		rw = rw[:i] // "randread:8" (sequential offset modifier)
	}
	switch rw {
	case "", "read", "randread":
		return fioRead, nil
	case "write", "randwrite":
		return fioWrite, nil
	case "trim", "randtrim", "trimwrite":
		return fioSkip, nil
	case "rw", "readwrite", "randrw":
		mix := 50.0
		if v := opt("rwmixread"); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("rwmixread %q: not a number", v)
			}
			mix = f
		} else if v := opt("rwmixwrite"); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("rwmixwrite %q: not a number", v)
			}
			mix = 100 - f
		}
		switch mix {
		case 100:
			return fioRead, nil
		case 0:
			return fioWrite, nil
		}
		return fioSkip, nil
	}
	return 0, fmt.Errorf("rw %q: unknown I/O pattern", rw)
}

// fioBlockSizes reads bs (or blocksize); "4k,64k" gives separate read and
// write sizes as in fio. Suffixes k/m/g are powers of 1024 (fio's default
// kb_base=1024) or of 1000 under kb_base=1000; Ki/Mi/Gi are always 1024.
// Block size ranges cannot be calibration points.
func fioBlockSizes(opt func(string) string) (readSize, writeSize float64, err error) {
	bs := opt("bs")
	if bs == "" {
		bs = opt("blocksize")
	}
	if bs == "" {
		if opt("bsrange") != "" || opt("blocksize_range") != "" || opt("bssplit") != "" {
			return 0, 0, fmt.Errorf("block size ranges (bsrange/bssplit) cannot be calibration points")
		}
		return 4096, 4096, nil // fio's default
	}
	// kb_base=1000 makes fio's k/m/g (not Ki/Mi/Gi) powers of 1000.
	decimal := opt("kb_base") == "1000"
	parse := func(s string) (float64, error) {
		v, err := ParseSize(s)
		if err != nil || !decimal {
			return v, err
		}
		t := strings.TrimSpace(s)
		switch t[len(t)-1] {
		case 'k', 'K':
			return v / 1024 * 1000, nil
		case 'm', 'M':
			return v / (1 << 20) * 1e6, nil
		case 'g', 'G':
			return v / (1 << 30) * 1e9, nil
		case 't', 'T':
			return v / (1 << 40) * 1e12, nil
		}
		return v, nil
	}
	parts := strings.Split(bs, ",")
	readSize, err = parse(parts[0])
	if err != nil {
		return 0, 0, err
	}
	writeSize = readSize
	if len(parts) > 1 && strings.TrimSpace(parts[1]) != "" {
		if writeSize, err = parse(parts[1]); err != nil {
			return 0, 0, err
		}
	}
	return readSize, writeSize, nil
}
