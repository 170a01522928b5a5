package promfake

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/prometheus/promql/parser"
)

var promQL = parser.NewParser(parser.Options{})

// HostAggregate answers a query of the form package source sends for host
// metrics (source.HostQueries):
//
//	label_replace(AGG(X), "stat", "NAME", "", "") or label_replace(...) ...
//
// It takes the per-host series of X from perHost (called with X's inner
// query as the PromQL parser prints it) and aggregates them at each time
// the way PromQL does: avg, sum, count, stddev (population) and
// quantile(φ, ...) (rank φ·(N−1), linear between neighbours), over the
// hosts with a sample at that time; no host, no sample. X may be
// avg_over_time((inner)[range:step]): each host's mean over the times in
// [t−range, t] that are multiples of step (how Prometheus aligns a
// subquery), skipping gaps. ok is false when q has another form.
func HostAggregate(q string, perHost func(inner string) []Series) (out []Series, ok bool) {
	expr, err := promQL.ParseExpr(q)
	if err != nil {
		return nil, false
	}
	var parts []parser.Expr
	var collect func(e parser.Expr)
	collect = func(e parser.Expr) {
		if b, isOr := e.(*parser.BinaryExpr); isOr && b.Op == parser.LOR {
			collect(b.LHS)
			collect(b.RHS)
			return
		}
		parts = append(parts, e)
	}
	collect(expr)
	operands := map[string]*operand{}
	for _, p := range parts {
		call, isCall := p.(*parser.Call)
		if !isCall || call.Func.Name != "label_replace" || len(call.Args) != 5 {
			return nil, false
		}
		agg, isAgg := unparen(call.Args[0]).(*parser.AggregateExpr)
		name, isName := call.Args[2].(*parser.StringLiteral)
		if !isAgg || !isName || len(agg.Grouping) > 0 {
			return nil, false
		}
		phi := 0.0
		switch agg.Op {
		case parser.AVG, parser.SUM, parser.COUNT, parser.STDDEV:
		case parser.QUANTILE:
			n, isNum := unparen(agg.Param).(*parser.NumberLiteral)
			if !isNum {
				return nil, false
			}
			phi = n.Val
		default:
			return nil, false
		}
		o, err := newOperand(agg.Expr, perHost)
		if err != nil {
			return nil, false
		}
		if prev, seen := operands[o.key]; seen {
			o = prev
		} else {
			operands[o.key] = o
		}
		k := len(o.aggs)
		o.aggs = append(o.aggs, aggregation{agg.Op, phi})
		out = append(out, Series{Labels: map[string]string{"stat": name.Val}, Value: func(t time.Time) float64 { return o.at(t)[k] }})
	}
	return out, true
}

func unparen(e parser.Expr) parser.Expr {
	for {
		p, ok := e.(*parser.ParenExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

// operand is the per-host series under one or more aggregations, each
// time's aggregates computed once (the answer's series are read one after
// the other; only the aggregates are kept, not the hosts' values).
type operand struct {
	key          string
	hosts        []Series
	smooth, step time.Duration // avg_over_time subquery (0: none)
	aggs         []aggregation

	mu   sync.Mutex
	memo map[int64][]float64
}

type aggregation struct {
	op  parser.ItemType
	phi float64
}

func newOperand(e parser.Expr, perHost func(string) []Series) (*operand, error) {
	o := &operand{key: e.String(), memo: map[int64][]float64{}}
	inner := unparen(e)
	if call, ok := inner.(*parser.Call); ok && call.Func.Name == "avg_over_time" && len(call.Args) == 1 {
		if sq, ok := call.Args[0].(*parser.SubqueryExpr); ok {
			o.smooth, o.step = sq.Range, sq.Step
			inner = unparen(sq.Expr)
		}
	}
	o.hosts = perHost(inner.String())
	return o, nil
}

// at returns the aggregates at t, in the order of o.aggs.
func (o *operand) at(t time.Time) []float64 {
	ms := t.UnixMilli()
	o.mu.Lock()
	defer o.mu.Unlock()
	if a, ok := o.memo[ms]; ok {
		return a
	}
	v := o.values(t)
	a := make([]float64, len(o.aggs))
	for k, g := range o.aggs {
		a[k] = stat(v, g.op, g.phi)
	}
	o.memo[ms] = a
	return a
}

// values returns the hosts' values at t, sorted (gaps left out).
func (o *operand) values(t time.Time) []float64 {
	ms := t.UnixMilli()
	v := make([]float64, 0, len(o.hosts))
	for _, h := range o.hosts {
		x := h.Value(t)
		if o.step > 0 {
			step := o.step.Milliseconds()
			first := ms - o.smooth.Milliseconds()
			first += (step - first%step) % step // the first multiple of step in range
			var sum float64
			var n int
			for u := first; u <= ms; u += step {
				if y := h.Value(time.UnixMilli(u)); !math.IsNaN(y) {
					sum += y
					n++
				}
			}
			x = math.NaN()
			if n > 0 {
				x = sum / float64(n)
			}
		}
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	slices.Sort(v)
	return v
}

// stat is one aggregation of sorted values (NaN: none).
func stat(v []float64, op parser.ItemType, phi float64) float64 {
	n := float64(len(v))
	if len(v) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	switch op {
	case parser.SUM:
		return sum
	case parser.COUNT:
		return n
	case parser.AVG:
		return sum / n
	case parser.STDDEV:
		mean, ss := sum/n, 0.0
		for _, x := range v {
			ss += (x - mean) * (x - mean)
		}
		return math.Sqrt(ss / n)
	case parser.QUANTILE:
		rank := phi * (n - 1)
		lo := math.Max(0, math.Floor(rank))
		hi := math.Min(n-1, lo+1)
		w := rank - math.Floor(rank)
		return v[int(lo)]*(1-w) + v[int(hi)]*w
	}
	return math.NaN()
}
