package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: scorer plan|score|whatif-curve|latency-record|insideout-record|catalog|catalog-rate|catalog-loo|catalog-check [flags]")
		return 2
	}
	switch args[0] {
	case "plan":
		fs := flag.NewFlagSet("plan", flag.ContinueOnError)
		fs.SetOutput(stderr)
		sysKind := fs.String("system", "ceph", "storage system: ceph (fio JSON calibration) or swift (calibration YAML)")
		cal := fs.String("calibration", "", "calibration file (ceph: fio JSON; swift: calibration YAML)")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		sys, err := systemFor(*sysKind)
		if err != nil {
			fmt.Fprintln(stderr, "scorer plan:", err)
			return 2
		}
		data, err := os.ReadFile(*cal)
		if err != nil {
			fmt.Fprintln(stderr, "scorer plan:", err)
			return 1
		}
		steps, err := sys.PlanFrom(data)
		if err != nil {
			fmt.Fprintln(stderr, "scorer plan:", err)
			return 1
		}
		if err := WritePlan(stdout, steps); err != nil {
			fmt.Fprintln(stderr, "scorer plan:", err)
			return 1
		}
		return 0
	case "score":
		return runScore(args[1:], stdout, stderr)
	case "whatif-curve":
		return runWhatIfCurve(args[1:], stdout, stderr)
	case "latency-record":
		return runLatencyRecord(args[1:], stdout, stderr)
	case "insideout-record":
		return runInsideOutRecord(args[1:], stdout, stderr)
	case "catalog":
		return runCatalog(args[1:], stdout, stderr)
	case "catalog-rate":
		return runCatalogRate(args[1:], stdout, stderr)
	case "catalog-loo":
		return runCatalogLOO(args[1:], stdout, stderr)
	case "catalog-check":
		return runCatalogCheck(args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "scorer: unknown command %q (want plan, score, whatif-curve, latency-record, insideout-record, catalog, catalog-rate, catalog-loo or catalog-check)\n", args[0])
		return 2
	}
}
