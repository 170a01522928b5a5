package yamlstrict

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

type inner struct {
	B int `yaml:"b"`
}

type doc struct {
	A     int   `yaml:"a"`
	Inner inner `yaml:"inner"`
	Anon  struct {
		C    int `yaml:"c"`
		Deep struct {
			D int `yaml:"d"`
		} `yaml:"deep"`
	} `yaml:"anon"`
}

func TestDecode(t *testing.T) {
	var d doc
	if err := Decode([]byte("a: 1\ninner: {b: 2}\n"), &d); err != nil || d != (doc{A: 1, Inner: inner{B: 2}}) {
		t.Fatalf("Decode = %+v, %v", d, err)
	}
	for in, want := range map[string]error{
		"":                   ErrEmpty,
		"# only a comment\n": ErrEmpty,
		"a: 1\n---\na: 2\n":  ErrMoreDocuments,
		"a: 1\n--- [\n":      ErrMoreDocuments,
	} {
		if err := Decode([]byte(in), &doc{}); !errors.Is(err, want) {
			t.Errorf("Decode(%q) = %v, want %v", in, err, want)
		}
	}
}

func TestMessage(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ps   []Problem
	}{
		{
			"a: 1\nc: 2\n",
			"line 2: unknown field c",
			[]Problem{{"line 2: unknown field c", "c"}},
		},
		{
			"a: x\ninner:\n  b: 1\n  d: 2\n",
			"line 1: cannot unmarshal !!str `x` into int; line 4: unknown field d",
			[]Problem{{"line 1: cannot unmarshal !!str `x` into int", ""}, {"line 4: unknown field d", "d"}},
		},
		{
			// An anonymous struct's type is named in full by yaml.v3.
			"anon:\n  c: 1\n  e: 2\n  deep: {d: 3, f: 4}\n",
			"line 3: unknown field e; line 4: unknown field f",
			[]Problem{{"line 3: unknown field e", "e"}, {"line 4: unknown field f", "f"}},
		},
		{
			"a: [\n",
			"line 1: did not find expected node content",
			[]Problem{{"line 1: did not find expected node content", ""}},
		},
	} {
		err := Decode([]byte(tc.in), &doc{})
		if err == nil {
			t.Fatalf("Decode(%q): no error", tc.in)
		}
		if got := Message(err); got != tc.want {
			t.Errorf("Message(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Problems(err); !reflect.DeepEqual(got, tc.ps) {
			t.Errorf("Problems(%q) = %q, want %q", tc.in, got, tc.ps)
		}
	}
	// A wrapped *yaml.TypeError is still split.
	err := Decode([]byte("c: 1\n"), &doc{})
	if got := Message(fmt.Errorf("wrapped: %w", err)); got != "line 1: unknown field c" {
		t.Errorf("Message of a wrapped error = %q", got)
	}
}
