// Package logflag gives a command promslog's standard --log.level and
// --log.format flags, with the names, defaults and help of promslog/flag
// (which registers only on a kingpin application), for the standard
// library's flag package and for pflag alike.
package logflag

import (
	"flag"
	"strings"

	"github.com/prometheus/common/promslog"
)

// Flag is one logging flag: what a flag set's Var takes.
type Flag struct {
	Name  string
	Help  string
	Value Value
}

// Flags sets c's level and format to promslog's defaults (info, logfmt) and
// returns the two flags that change them.
func Flags(c *promslog.Config) []Flag {
	c.Level = promslog.NewLevel()
	c.Format = promslog.NewFormat()
	_ = c.Level.Set("info")
	_ = c.Format.Set("logfmt")
	return []Flag{
		{"log.level", "Only log messages with the given severity or above. One of: [" + strings.Join(promslog.LevelFlagOptions, ", ") + "]", Value{c.Level, "level"}},
		{"log.format", "Output format of log messages. One of: [" + strings.Join(promslog.FormatFlagOptions, ", ") + "]", Value{c.Format, "format"}},
	}
}

// Value is promslog's Level or Format as a value of both flag packages: its
// zero value prints (the flag package prints a default by comparing it with
// a zero Value, and a zero promslog.Level cannot print) and Type names the
// argument in pflag's help.
type Value struct {
	v   flag.Value
	typ string
}

func (v Value) String() string {
	if v.v == nil {
		return ""
	}
	return v.v.String()
}

// Set parses s as promslog does.
func (v Value) Set(s string) error { return v.v.Set(s) }

// Type is the argument's name in pflag's help.
func (v Value) Type() string { return v.typ }
