// Package config loads, validates and checks storcast's configuration.
//
// One decoder builds a Config: it starts from Default, decodes the YAML file
// given by --config.file onto it, then the STORCAST_* environment variables
// (every single-valued key outside lists: the key path in upper case with
// "." replaced by "_", e.g. STORCAST_FIT_INTERVAL or STORCAST_PROMETHEUS_URL),
// then the command-line flags the user set. The yaml tags of Config are the
// key names; the environment names are derived from them and each flag names
// its key. Decoding is strict: an unknown key, a key given twice, a value of
// the wrong type (a map where a list belongs, 2.5 retries) and a second YAML
// document are errors. Label matchers are decoded into Matcher values, as
// durations are decoded into time.Duration.
//
// Then three steps, each returning the first problem as "<key path>: <what is
// wrong>" (each message has a testdata/invalid-*.yml that produces it):
// Load ends with Validate, which reads nothing but the Config and changes
// nothing (bounds, names, matchers, PromQL of generic clusters), and
// CheckFiles checks what the Config names on disk (calibration files decode,
// the web config and the HTTP client's certificate and secret files exist,
// state_dir is or can become a directory). `storcast --config.check`,
// start-up and every reload run all three.
//
// Label matchers are parsed into (name, op, value) and rendered back with the
// value quoted by PromQL's string rules, so a value from a file or a request
// is never pasted raw into a query.
package config
