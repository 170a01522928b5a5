package logflag

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/spf13/pflag"
)

func TestFlagsStandardLibrary(t *testing.T) {
	var c promslog.Config
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range Flags(&c) {
		fs.Var(f.Value, f.Name, f.Help)
	}
	if c.Level.String() != "info" || c.Format.String() != "logfmt" {
		t.Fatalf("defaults: level %q format %q, want info logfmt", c.Level, c.Format)
	}
	var help strings.Builder
	fs.SetOutput(&help)
	fs.PrintDefaults() // compares each default with a zero Value: must not panic
	for _, want := range []string{"(default info)", "(default logfmt)", "One of: [debug, info, warn, error]", "One of: [logfmt, json]"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, help.String())
		}
	}
	fs.SetOutput(io.Discard)
	if err := fs.Parse([]string{"-log.level=debug", "-log.format=json"}); err != nil {
		t.Fatal(err)
	}
	if c.Level.String() != "debug" || c.Format.String() != "json" {
		t.Errorf("after parse: level %q format %q, want debug json", c.Level, c.Format)
	}
	if err := fs.Parse([]string{"-log.level=loud"}); err == nil || !strings.Contains(err.Error(), "unrecognized log level loud") {
		t.Errorf("bad level: err %v", err)
	}
}

func TestFlagsPflag(t *testing.T) {
	var c promslog.Config
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range Flags(&c) {
		fs.Var(f.Value, f.Name, f.Help)
	}
	usage := fs.FlagUsages()
	for _, want := range []string{"--log.level level", "--log.format format", "(default info)", "(default logfmt)"} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage lacks %q:\n%s", want, usage)
		}
	}
	if err := fs.Parse([]string{"--log.level=warn"}); err != nil {
		t.Fatal(err)
	}
	if c.Level.String() != "warn" || c.Format.String() != "logfmt" {
		t.Errorf("after parse: level %q format %q, want warn logfmt", c.Level, c.Format)
	}
	if err := fs.Parse([]string{"--log.format=xml"}); err == nil || !strings.Contains(err.Error(), "unrecognized log format xml") {
		t.Errorf("bad format: err %v", err)
	}
}
