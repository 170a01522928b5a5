// Package redact hides secrets in text that is shown: logs, errors, API
// answers.
package redact

import "regexp"

// userinfo is the "user:password@" of a URL's authority, wherever it sits in
// a string that may not parse as a URL: "http//admin:s3cret@prom:9090" is a
// path to url.Parse and "admin:s3cret@prom" a scheme "admin", so
// URL.Redacted cannot see either password.
var userinfo = regexp.MustCompile(`([^/@:\s]*):[^/@\s]*@`)

// Userinfo replaces the password of every "user:password@" in s with
// "xxxxx", as url.URL.Redacted does.
func Userinfo(s string) string { return userinfo.ReplaceAllString(s, "${1}:xxxxx@") }
