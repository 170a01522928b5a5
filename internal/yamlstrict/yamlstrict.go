// Package yamlstrict is the one strict YAML decoding of storcast's input
// files (calibration, rule-set catalog, the foreign sections of storcast.yml):
// exactly one document, no key that matches no field, and yaml.v3's errors
// turned into one line without Go type names.
//
// It decodes bytes already read and imports nothing but yaml.v3, so the pure
// forecaster packages can use it.
package yamlstrict

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	// ErrEmpty is returned by Decode for input that holds no document.
	ErrEmpty = errors.New("empty document")
	// ErrMoreDocuments is returned by Decode for input that holds
	// anything after its first document.
	ErrMoreDocuments = errors.New("more than one YAML document")
)

// Decode decodes the one YAML document of data into v. Decoding is strict:
// a key that matches no field of v is an error (yaml.v3's KnownFields). It
// returns ErrEmpty when data holds no document, ErrMoreDocuments when
// anything follows the first (a second document, or text that does not
// parse), and otherwise yaml.v3's error unchanged: Message and Problems make
// it readable.
func Decode(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return ErrEmpty
		}
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return ErrMoreDocuments
	}
	return nil
}

// Problem is one message of a yaml.v3 error.
type Problem struct {
	// Msg is the message in one line without Go type names, e.g.
	// "line 4: unknown field read_iop".
	Msg string
	// UnknownField is the key that matches no field when that is the
	// problem ("read_iop"), else empty.
	UnknownField string
}

// unknownField matches yaml.v3's "field x not found in type pkg.T", the type
// also an anonymous struct ("struct { A int "yaml:\"a\"" }", spaces and
// all: the type ends the message).
var unknownField = regexp.MustCompile(`field (\S+) not found in type (?:struct \{.*\}|\S+)`)

// Problems splits err into its messages: one per error of a
// *yaml.TypeError (wrapped or not), with "field x not found in type pkg.T"
// written "unknown field x"; otherwise the one message of err without its
// "yaml: " prefix.
func Problems(err error) []Problem {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []Problem{problem(strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	ps := make([]Problem, len(te.Errors))
	for i, e := range te.Errors {
		ps[i] = problem(e)
	}
	return ps
}

func problem(msg string) Problem {
	p := Problem{Msg: unknownField.ReplaceAllString(msg, "unknown field $1")}
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		p.UnknownField = m[1]
	}
	return p
}

// Message is err's Problems in one line, separated by "; ".
func Message(err error) string {
	ps := Problems(err)
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Msg
	}
	return strings.Join(msgs, "; ")
}
