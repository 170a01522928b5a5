// Command gen writes storcast's alerting rules from a thresholds file.
//
//	go run ./alerts/gen [-thresholds alerts/thresholds.yml] [-out alerts/storcast.rules.yml]
//
// With -out - the rules go to standard output.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/storcast/storcast/alerts"
)

func main() { os.Exit(run()) }

func run() int {
	in := flag.String("thresholds", "alerts/thresholds.yml", "thresholds YAML (keys left out keep their default)")
	out := flag.String("out", "alerts/storcast.rules.yml", "rule file to write, - for standard output")
	flag.Parse()
	data, err := os.ReadFile(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		return 1
	}
	t, err := alerts.ParseThresholds(data, *in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		return 1
	}
	rules, err := alerts.Generate(t, filepath.Base(*in))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		return 1
	}
	if *out == "-" {
		_, err = os.Stdout.Write(rules)
	} else {
		err = os.WriteFile(*out, rules, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		return 1
	}
	return 0
}
