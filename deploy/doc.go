// Package deploy holds the files docker-compose.yml mounts (Prometheus,
// Alertmanager and storcast configuration, the image's Dockerfile) and the
// test that keeps them consistent: every file the compose file mounts exists
// (or is a documented build output), every URL between the services names a
// compose service and the port that service listens on, the Prometheus,
// Alertmanager and storcast configurations pass their own checkers.
// `docker compose config` is not run (no compose plugin in CI; see
// docs/operations.md).
package deploy
