// Package series reads the names and label names of storcast's exported
// series from the exporter's source (prometheus.NewDesc calls in
// exporter/collector), so that the tests of the alert rules and dashboards
// check them against what storcast really exports, not against a copy.
package series

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// Desc is one exported metric.
type Desc struct {
	Name   string
	Labels []string
}

// FromSource parses the Go files in dir and returns every
// prometheus.NewDesc(name, help, []string{labels...}, ...) (or a call of a
// local wrapper newDesc with the same arguments) whose name is a literal,
// sorted by name.
func FromSource(dir string) ([]Desc, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []Desc
	fset := token.NewFileSet()
	for _, f := range files {
		if m, _ := filepath.Match("*_test.go", filepath.Base(f)); m {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			return nil, err
		}
		ast.Inspect(af, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 3 {
				return true
			}
			// prometheus.NewDesc(...) or a local wrapper newDesc(...) with
			// the same arguments.
			var fn string
			switch f := call.Fun.(type) {
			case *ast.SelectorExpr:
				fn = f.Sel.Name
			case *ast.Ident:
				fn = f.Name
			}
			if fn != "NewDesc" && fn != "newDesc" {
				return true
			}
			name, ok := stringLit(call.Args[0])
			if !ok {
				return true
			}
			d := Desc{Name: name}
			if cl, ok := call.Args[2].(*ast.CompositeLit); ok {
				for _, e := range cl.Elts {
					if l, ok := stringLit(e); ok {
						d.Labels = append(d.Labels, l)
					}
				}
			}
			out = append(out, d)
			return true
		})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no prometheus.NewDesc calls with literal names in %s", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// LabelValues are the values fixtures give each label; labels not listed
// get one value, "x".
var LabelValues = map[string][]string{
	"op":          {"read", "write", "total"},
	"bound":       {"lower", "mean", "upper"},
	"limit":       {"max_iops", "latency_slo"},
	"load_factor": {"1", "1.25", "1.5", "2"},
	"model":       {"conservation", "insideout", "mlisp", "trend"},
	"target":      {"max_iops", "iops", "latency"},
	"collector":   {"capacity"},
}

// Fixtures returns one series selector per combination of label values of
// every Desc, with cluster set to cluster and the extra labels appended.
func Fixtures(descs []Desc, cluster, extra string) []string {
	var out []string
	for _, d := range descs {
		combos := []string{""}
		for _, l := range d.Labels {
			vals := []string{"x"}
			if l == "cluster" {
				vals = []string{cluster}
			} else if v, ok := LabelValues[l]; ok {
				vals = v
			}
			var next []string
			for _, c := range combos {
				for _, v := range vals {
					sep := ""
					if c != "" {
						sep = ","
					}
					next = append(next, c+sep+l+"="+strconv.Quote(v))
				}
			}
			combos = next
		}
		for _, c := range combos {
			if extra != "" {
				if c != "" {
					c += ","
				}
				c += extra
			}
			out = append(out, d.Name+"{"+c+"}")
		}
	}
	return out
}

// Contract is the series contract of issue 4 as the exporter declares it
// (exporter/collector): the fallback of Exported when the exporter's source
// is not in the tree.
var Contract = []Desc{
	{"storcast_headroom_iops", []string{"cluster"}},
	{"storcast_headroom_ratio", []string{"cluster"}},
	{"storcast_latency_knee_iops", []string{"cluster", "bound"}},
	{"storcast_latency_slo_seconds", []string{"cluster"}},
	{"storcast_max_iops", []string{"cluster", "op"}},
	{"storcast_model_accuracy_ratio", []string{"cluster", "model", "target"}},
	{"storcast_model_fit_duration_seconds", []string{"cluster", "model"}},
	{"storcast_model_last_fit_timestamp_seconds", []string{"cluster", "model"}},
	{"storcast_model_stale", []string{"cluster", "model"}},
	{"storcast_model_training_samples", []string{"cluster", "model"}},
	{"storcast_observed_io_size_bytes", []string{"cluster"}},
	{"storcast_observed_iops", []string{"cluster"}},
	{"storcast_observed_read_ratio", []string{"cluster"}},
	{"storcast_predicted_iops", []string{"cluster", "op"}},
	{"storcast_predicted_latency_seconds", []string{"cluster", "load_factor", "bound"}},
	{"storcast_predicted_throughput_bytes", []string{"cluster", "op"}},
	{"storcast_saturation_eta_seconds", []string{"cluster", "limit"}},
	{"storcast_source_up", []string{"cluster"}},
	{"storcast_utilization_ratio", []string{"cluster"}},
}

// Exported returns the series declared in the exporter's collector source
// at dir, or Contract (and from = "contract") when dir does not exist.
func Exported(dir string) (descs []Desc, from string, err error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return Contract, "contract", nil
	}
	descs, err = FromSource(dir)
	return descs, dir, err
}
