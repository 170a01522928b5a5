// Package testtool is what the tests that run real programs share: finding
// a program on PATH (Need), a free loopback port (FreePort, FreeAddr,
// FindFreeAddr), starting a server process and stopping it at cleanup
// (Start; StartGroup for a command of one's own), waiting for it to answer
// over HTTP (Process.WaitHTTP), Prometheus on a free port (StartPrometheus)
// and its query API (Query, GetJSON).
//
// The contract, for every test that uses it:
//
//   - A program missing from PATH fails the test when the environment has
//     CI=true and skips it otherwise (scripts/install-test-deps.sh installs
//     them all).
//   - Servers listen on 127.0.0.1 only.
//   - A started process runs in its own process group with its output in a
//     log file; at cleanup the group gets SIGTERM, then SIGKILL after 10 s,
//     and when the test failed the last 8 kB of the log are printed. A test
//     binary that dies without its cleanups (its -timeout, Ctrl-C, a
//     signal) takes the group with it: a guard process SIGKILLs it.
//
// It is for tests only: nothing outside *_test.go files imports it.
package testtool
