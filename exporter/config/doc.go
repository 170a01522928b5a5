// Package config loads and validates storcast's configuration.
//
// Sources, highest precedence first: command-line flags (only those the user
// set), STORCAST_* environment variables (scalar keys only: the key path in
// upper case with "." replaced by "_", e.g. STORCAST_FIT_INTERVAL or
// STORCAST_PROMETHEUS_URL), the YAML file given by --config.file, and the
// defaults of Default. Decoding is strict: an unknown key anywhere is an
// error. Validate returns the first problem found, as "<key path>: <what is
// wrong>"; each message has a testdata/invalid-*.yml that produces it.
//
// Label matchers are parsed into (name, op, value) and rendered back with the
// value quoted by PromQL's string rules, so a value from a file or a request
// is never pasted raw into a query.
package config
