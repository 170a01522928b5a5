// Command gen writes storcast's Grafana dashboards as JSON.
//
//	go run ./dashboards/gen -out dashboards/json
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/storcast/storcast/dashboards"
)

func main() { os.Exit(run()) }

func run() int {
	out := flag.String("out", "dashboards/json", "directory to write the dashboards' JSON into")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		return 1
	}
	all := dashboards.All()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := all[n].JSON()
		if err == nil {
			err = os.WriteFile(filepath.Join(*out, n), b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			return 1
		}
	}
	return 0
}
