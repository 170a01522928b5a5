package conservation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// fioOutput is the part of `fio --output-format=json` that calibration needs.
// In client/server mode (fio --client=host1 --client=host2 ...) the per-host
// jobs are in client_stats, next to an "All clients" sum.
type fioOutput struct {
	Version       string     `json:"fio version"`
	GlobalOptions fioOptions `json:"global options"`
	Jobs          []fioJob   `json:"jobs"`
	ClientStats   []fioJob   `json:"client_stats"`
}

type fioJob struct {
	JobName       string       `json:"jobname"`
	GroupID       int          `json:"groupid"`
	Error         int          `json:"error"`
	Hostname      string       `json:"hostname"`
	GlobalOptions fioOptions   `json:"global options"`
	JobOptions    fioOptions   `json:"job options"`
	Read          fioDirection `json:"read"`
	Write         fioDirection `json:"write"`
}

// fioOptions is one options section of fio's JSON ("job options", "global
// options") in the order written. fio writes a section in its job file's
// order (a key given twice, twice) and applies the options in that order,
// so of rwmixread and rwmixwrite, which set each other, the later one
// counts: a map would lose which that is.
type fioOptions []fioOption

type fioOption struct{ name, value string }

func (o *fioOptions) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*o = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("options must be a JSON object, got %v", tok)
	}
	var opts fioOptions
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, ok := tok.(string)
		if !ok {
			return fmt.Errorf("options: key %v is not a string", tok)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		opts = append(opts, fioOption{name, fmt.Sprint(v)})
	}
	*o = opts
	return nil
}

// last is the last setting in the section of any of names (the aliases of
// one option, or options that set each other) and the name it was given
// under.
func (o fioOptions) last(names ...string) (name, value string, ok bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if slices.Contains(names, o[i].name) {
			return o[i].name, o[i].value, true
		}
	}
	return "", "", false
}

// fioSetting is the setting a job runs with of one option given under any
// of names, and the name that set it ("", "" when none did).
type fioSetting func(names ...string) (name, value string)

type fioDirection struct {
	IOPS float64 `json:"iops"`
}

// ImportFio turns fio JSON output into calibration points, one per block
// size. Jobs that are 100% read (rw=read|randread, or a mixed rw with
// rwmixread=100) give T_read100; 100% write jobs give T_write100; mixed jobs
// (rw=randrw|rw with rwmixread strictly between 0 and 100, 50 by default,
// one block size) give mixed points (total IOPS at that read ratio), which
// fix the interference γ; a mixed job with separate read and write sizes
// (bs=4k,64k) gives a mixed-size point, which fixes the interference
// between sizes η; trim jobs are skipped. Jobs of one reporting
// group (same groupid, i.e. no stonewall between them) ran concurrently, so
// their IOPS are summed.
//
// Several groups with the same pattern, size and load setting (iodepth and
// numjobs) are repeated runs: the figure is their mean and the runs are
// kept (Point.ReadRuns, ...). When groups differ in load setting (an iodepth
// sweep), the setting with the highest mean is the saturated figure.
// Options are taken as fio applies them: the job's setting of an option,
// under any of its names (rw or readwrite, bs or blocksize, and rwmixread
// or rwmixwrite, which set each other), replaces the global one whole;
// within a section the last one given counts (rwmixwrite=30 after
// rwmixread=60: 70% reads); a bssplit in either overrides bs in either, a
// bsrange in either is refused; unset, fio's defaults (rw=read, bs=4k,
// rwmixread=50). Text before the JSON object (fio prints
// warnings there) is skipped. Every calibrated size needs both a read and a
// write measurement. What imports makes a model: NewModel's refusal is
// returned as the import's.
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
	// A measurement: one pattern (kind; read percent for mixed jobs) at one
	// size under one load setting.
	type meas struct {
		kind    fioJobKind
		mix     float64
		size    float64
		wsize   float64 // a mixed job's write size when it differs from size
		setting string
	}
	type key struct {
		group int
		meas
	}
	sums := map[key]float64{}
	names := map[key][]string{}
	groupMeas := map[int]map[meas]bool{} // what each reporting group measured
	groupJobs := map[int][]string{}
	for i, j := range jobs {
		if field == "client_stats" && j.JobName == "All clients" {
			continue // the sum of the others
		}
		name := fmt.Sprintf("%s[%d] (%s)", field, i, j.JobName)
		if j.Error != 0 {
			return Calibration{}, inputError(name, "fio reported error %d", j.Error)
		}
		// fio starts a job from the global options and applies the job's
		// over them: the first section that sets an option decides it.
		set := func(names ...string) (string, string) {
			for _, sec := range []fioOptions{j.JobOptions, j.GlobalOptions, out.GlobalOptions} {
				if n, v, ok := sec.last(names...); ok {
					return n, v
				}
			}
			return "", ""
		}
		opt := func(k string) string { _, v := set(k); return v }
		kind, mix, err := fioKind(set)
		if err != nil {
			return Calibration{}, inputError(name, "%v", err)
		}
		if kind == fioSkip {
			continue
		}
		readSize, writeSize, err := fioBlockSizes(set)
		if err != nil {
			return Calibration{}, inputError(name+".bs", "%v", err)
		}
		k := key{group: j.GroupID, meas: meas{kind: kind, size: readSize, setting: "iodepth=" + opt("iodepth") + " numjobs=" + opt("numjobs")}}
		var iops float64
		switch kind {
		case fioRead:
			iops = j.Read.IOPS
		case fioWrite:
			k.size, iops = writeSize, j.Write.IOPS
		case fioMixed:
			if readSize != writeSize {
				k.wsize = writeSize // a mixed-size point (bs=4k,64k)
			}
			k.mix, iops = mix, j.Read.IOPS+j.Write.IOPS
		}
		if !check.Finite(iops) || iops < 0 {
			return Calibration{}, inputError(name, "IOPS must be a finite number >= 0, got %v", iops)
		}
		sums[k] += iops
		if groupMeas[k.group] == nil {
			groupMeas[k.group] = map[meas]bool{}
		}
		groupMeas[k.group][k.meas] = true
		groupJobs[k.group] = append(groupJobs[k.group], j.JobName)
		label := j.JobName
		if j.Hostname != "" {
			label = j.Hostname + "/" + label
		}
		names[k] = append(names[k], label)
	}
	// Jobs of one group ran at once: of one pattern and size, their IOPS
	// add up to the point's; of several, each is only a share of the load
	// the cluster served, no saturated point of its own.
	for _, g := range slices.Sorted(maps.Keys(groupMeas)) {
		if ms := groupMeas[g]; len(ms) > 1 {
			return Calibration{}, inputError("fio", "reporting group %d ran jobs of different patterns, sizes or settings at the same time (%s): each measured a share of the load, not a saturated point; put stonewall between them", g, strings.Join(groupJobs[g], ", "))
		}
	}
	// Runs per measurement, in group order.
	groups := make([]key, 0, len(sums))
	for k := range sums {
		groups = append(groups, k)
	}
	sort.Slice(groups, func(a, b int) bool { return groups[a].group < groups[b].group })
	type runSet struct {
		runs   []float64
		groups []string
		names  []string
	}
	byMeas := map[meas]*runSet{}
	for _, k := range groups {
		rs := byMeas[k.meas]
		if rs == nil {
			rs = &runSet{}
			byMeas[k.meas] = rs
		}
		rs.runs = append(rs.runs, sums[k])
		rs.groups = append(rs.groups, strconv.Itoa(k.group))
		rs.names = append(rs.names, strings.Join(names[k], ","))
	}
	// Per pattern and size, the setting with the highest mean.
	type pattern struct {
		kind  fioJobKind
		mix   float64
		size  float64
		wsize float64
	}
	best := map[pattern]*runSet{}
	for m, rs := range byMeas {
		p := pattern{m.kind, m.mix, m.size, m.wsize}
		if b, ok := best[p]; !ok || mean(rs.runs) > mean(b.runs) || mean(rs.runs) == mean(b.runs) && rs.groups[0] < b.groups[0] {
			best[p] = rs
		}
	}
	figure := func(rs *runSet) (float64, []float64) {
		if len(rs.runs) == 1 {
			return rs.runs[0], nil
		}
		return mean(rs.runs), append([]float64(nil), rs.runs...)
	}
	describe := func(dir string, rs *runSet) string {
		if len(rs.runs) == 1 {
			return fmt.Sprintf("%s group %s (%s)", dir, rs.groups[0], rs.names[0])
		}
		return fmt.Sprintf("%s groups %s (%d runs: %s)", dir, strings.Join(rs.groups, "+"), len(rs.runs), strings.Join(rs.names, "; "))
	}
	var sizes []float64
	hasPure := false
	for p := range best {
		switch p.kind {
		case fioRead:
			sizes = append(sizes, p.size)
			hasPure = true
		case fioWrite:
			hasPure = true
			if _, ok := best[pattern{fioRead, 0, p.size, 0}]; !ok {
				return Calibration{}, inputError("fio", "block size %g bytes has a 100%% write job but no 100%% read job", p.size)
			}
		}
	}
	if !hasPure {
		return Calibration{}, inputError("fio", "no 100%% read or 100%% write job found (mixed jobs alone cannot calibrate: they need the pure points of their size)")
	}
	sort.Float64s(sizes)
	version := out.Version
	if version == "" {
		version = "fio"
	}
	var c Calibration
	for _, s := range sizes {
		w, ok := best[pattern{fioWrite, 0, s, 0}]
		if !ok {
			return Calibration{}, inputError("fio", "block size %g bytes has a 100%% read job but no 100%% write job", s)
		}
		r := best[pattern{fioRead, 0, s, 0}]
		rv, rr := figure(r)
		wv, wr := figure(w)
		c.Points = append(c.Points, Point{IOSizeBytes: s, ReadIOPS: rv, WriteIOPS: wv, ReadRuns: rr, WriteRuns: wr,
			Source: fmt.Sprintf("%s: %s, %s", version, describe("read", r), describe("write", w))})
	}
	var mixes []pattern
	for p := range best {
		if p.kind == fioMixed {
			mixes = append(mixes, p)
		}
	}
	sort.Slice(mixes, func(a, b int) bool {
		if mixes[a].size != mixes[b].size {
			return mixes[a].size < mixes[b].size
		}
		if mixes[a].wsize != mixes[b].wsize {
			return mixes[a].wsize < mixes[b].wsize
		}
		return mixes[a].mix < mixes[b].mix
	})
	for _, p := range mixes {
		rs := best[p]
		v, vr := figure(rs)
		label := fmt.Sprintf("%g%% read", p.mix)
		if p.wsize != 0 {
			label = fmt.Sprintf("%g%% read (reads %g B, writes %g B)", p.mix, p.size, p.wsize)
		}
		c.Mixed = append(c.Mixed, MixedPoint{IOSizeBytes: p.size, WriteIOSizeBytes: p.wsize, ReadRatio: p.mix / 100, IOPS: v, Runs: vr,
			Source: fmt.Sprintf("%s: %s", version, describe(label, rs))})
	}
	if err := checkModel(c); err != nil {
		return Calibration{}, err
	}
	return c, nil
}

type fioJobKind int

const (
	fioSkip fioJobKind = iota
	fioRead
	fioWrite
	fioMixed
)

// fioKind returns the job's pattern and, for a mixed job, its read percent.
func fioKind(set fioSetting) (fioJobKind, float64, error) {
	_, rw := set("rw", "readwrite")
	if i := strings.IndexByte(rw, ':'); i >= 0 {
		rw = rw[:i] // "randread:8" (sequential offset modifier)
	}
	switch rw {
	case "", "read", "randread":
		return fioRead, 0, nil
	case "write", "randwrite":
		return fioWrite, 0, nil
	case "trim", "randtrim", "trimwrite":
		return fioSkip, 0, nil
	case "rw", "readwrite", "randrw":
		mix := 50.0
		// fio: rwmixread=x sets the writes to 100 − x, rwmixwrite the
		// other way round, so one setting of the two.
		if name, v := set("rwmixread", "rwmixwrite"); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("%s %q: not a number", name, v)
			}
			mix = f
			if name == "rwmixwrite" {
				mix = 100 - f
			}
		}
		switch {
		case mix == 100:
			return fioRead, 0, nil
		case mix == 0:
			return fioWrite, 0, nil
		case mix > 0 && mix < 100:
			return fioMixed, mix, nil
		}
		return 0, 0, fmt.Errorf("read percent %v: must be in 0..100", mix)
	}
	return 0, 0, fmt.Errorf("rw %q: unknown I/O pattern", rw)
}

// fioBlockSizes reads bs (or blocksize); "4k,64k" gives separate read and
// write sizes as in fio, with fio's units (fioSize: under its default
// kb_base=1024, k is 1024 and KiB 1000).
// A bssplit (4k/85:64k/15, optionally a second list after a comma for the
// writes) gives the op-weighted mean size of its split: a calibration at a
// workload's own size split, which carries the interference between sizes
// that mean sizes from counters hide. Block size ranges (bsrange) cannot be
// calibration points.
//
// fio sizes the I/O from a bssplit or bsrange whenever one is set, bs only
// filling in what they leave unset, so either overrides bs whichever
// section each is in (fio 3.33: a global bssplit=4k/50:64k/50 with a job's
// bs=64k ran a mean of 34.8 KB).
func fioBlockSizes(set fioSetting) (readSize, writeSize float64, err error) {
	// kb_base=1000 makes fio's k/m/g (not Ki/Mi/Gi) powers of 1000.
	_, kb := set("kb_base")
	decimal := kb == "1000"
	if _, v := set("bsrange", "blocksize_range"); v != "" {
		return 0, 0, fmt.Errorf("block size ranges (bsrange) cannot be calibration points")
	}
	if _, split := set("bssplit"); split != "" {
		parts := strings.Split(split, ",")
		if readSize, err = bssplitMean(parts[0], decimal); err != nil {
			return 0, 0, err
		}
		writeSize = readSize
		if len(parts) > 1 && strings.TrimSpace(parts[1]) != "" {
			if writeSize, err = bssplitMean(parts[1], decimal); err != nil {
				return 0, 0, err
			}
		}
		return readSize, writeSize, nil
	}
	_, bs := set("bs", "blocksize")
	if bs == "" {
		return 4096, 4096, nil // fio's default
	}
	parse := func(s string) (float64, error) { return fioSize(s, decimal) }
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

// fioSize parses one of fio's sizes as fio does. In fio's default
// compatibility mode (kb_base=1024) the suffixes are the opposite of the
// standards: k, m, g, t, p (with or without a trailing b) are powers of
// 1024 and the IEC Ki, Mi, ... powers of 1000, so bs=4KiB runs 4,000-byte
// IOs; under kb_base=1000 they are the standard ones (4k is 4,000 bytes,
// 4KiB 4,096).
func fioSize(s string, decimal bool) (float64, error) {
	v, written, err := sizeNumberUnit(s)
	if err != nil {
		return 0, err
	}
	// fio matches the IEC reading on the whole "kib" ("mib", ...); "4ki"
	// and "4kb" are "4k", "512b" is 512.
	unit := strings.ToLower(written)
	iec := len(unit) == 3 && strings.HasSuffix(unit, "ib")
	if iec {
		unit = unit[:1]
	} else {
		unit = strings.TrimSuffix(strings.TrimSuffix(unit, "b"), "i")
	}
	exp := 0
	if unit != "" {
		exp = strings.Index("kmgtp", unit) + 1
		if len(unit) != 1 || exp == 0 {
			return 0, fmt.Errorf("size %q: unknown unit %q", s, written)
		}
	} else if iec {
		return 0, fmt.Errorf("size %q: unknown unit %q", s, written)
	}
	base := 1000.0
	if iec == decimal {
		base = 1024
	}
	v *= math.Pow(base, float64(exp))
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("size %q: must be > 0", s)
	}
	return v, nil
}

// bssplitMean is the mean size of one direction's bssplit,
// size/percent:size/percent... weighted by the share of ops (fio's
// percentages count I/Os); entries without a percentage share what the
// others leave, evenly, as in fio.
func bssplitMean(split string, decimal bool) (float64, error) {
	var sum, pct float64
	var blank []float64
	for _, e := range strings.Split(split, ":") {
		size, p, hasPct := strings.Cut(strings.TrimSpace(e), "/")
		v, err := fioSize(size, decimal)
		if err != nil {
			return 0, fmt.Errorf("bssplit %q: %v", split, err)
		}
		if !hasPct || strings.TrimSpace(p) == "" {
			blank = append(blank, v)
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(f >= 0 && f <= 100) {
			return 0, fmt.Errorf("bssplit %q: percentage %q must be a number in 0..100", split, p)
		}
		sum += f * v
		pct += f
	}
	if pct > 100+1e-9 || len(blank) == 0 && pct <= 0 {
		return 0, fmt.Errorf("bssplit %q: percentages add up to %g, must be at most 100 and not all 0", split, pct)
	}
	if len(blank) > 0 {
		each := (100 - pct) / float64(len(blank))
		for _, v := range blank {
			sum += each * v
		}
		pct = 100
	}
	return sum / pct, nil
}
