// Package textcut bounds text that storcast echoes from outside (a request's
// parameters, an upstream's error messages and warnings) before it goes into
// an error, a log line or an answer: the one way it is cut, never inside a
// UTF-8 sequence.
package textcut

import "strings"

// Cut returns s if it holds at most n bytes, else its first n bytes (less a
// UTF-8 sequence cut in two) followed by "...".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
