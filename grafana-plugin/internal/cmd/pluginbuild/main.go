// Command pluginbuild builds and checks the plugin archive (see package
// internal/pluginbuild). Run it from grafana-plugin/:
//
//	go run ./internal/cmd/pluginbuild backend   # dist/gpx_*_<os>_<arch> and the manifest
//	go run ./internal/cmd/pluginbuild zip OUT   # dist/ as OUT, validated
//	go run ./internal/cmd/pluginbuild validate ZIP
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/storcast/storcast/grafana-plugin/internal/pluginbuild"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: pluginbuild backend | zip OUT | validate ZIP")
		return 2
	}
	meta, err := pluginbuild.ReadMeta(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pluginbuild:", err)
		return 1
	}
	expect := pluginbuild.Expect{Meta: meta, Platforms: pluginbuild.Platforms, SourceDir: "."}
	switch {
	case args[0] == "backend" && len(args) == 1:
		err = pluginbuild.BuildBackend(".", "dist", meta, pluginbuild.Platforms, buildTime())
		if err == nil {
			err = pluginbuild.WriteManifest(".", "dist")
		}
	case args[0] == "zip" && len(args) == 2:
		err = pluginbuild.Zip("dist", meta.ID, args[1])
		if err == nil {
			err = pluginbuild.ValidateFile(args[1], expect)
		}
	case args[0] == "validate" && len(args) == 2:
		err = pluginbuild.ValidateFile(args[1], expect)
	default:
		fmt.Fprintln(os.Stderr, "usage: pluginbuild backend | zip OUT | validate ZIP")
		return 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pluginbuild:", err)
		return 1
	}
	return 0
}

// buildTime honours SOURCE_DATE_EPOCH, for reproducible builds.
func buildTime() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0)
		}
	}
	return time.Now()
}
