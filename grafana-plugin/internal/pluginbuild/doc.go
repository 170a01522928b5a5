// Package pluginbuild builds, packages and checks the plugin archive that
// Grafana installs, without Mage or the create-plugin toolchain:
//
//   - BuildBackend cross-compiles ./pkg (CGO off, stripped, with the SDK's
//     build info linked in) into dist/<executable>_<os>_<arch>;
//   - WriteManifest writes dist/go_plugin_build_manifest, the SDK's list of
//     "sha256:path" of every Go source, which Grafana's plugin review uses to
//     tie the binaries to the sources;
//   - Zip puts dist/ under one folder named after the plugin id, keeping the
//     executables' run bits;
//   - Validate checks an archive the way Grafana's plugin validator does:
//     one folder named after the id, a valid plugin.json whose version is
//     package.json's, every platform's executable with its run bit and the
//     right binary format, module.js as an AMD module, README, CHANGELOG,
//     LICENSE, logos, the manifest matching the sources, and no debug
//     leftovers (source maps, tests, coverage, editor files).
package pluginbuild
