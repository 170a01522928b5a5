// Copies what Grafana needs beside module.js into dist/, with plugin.json's
// %VERSION% and %TODAY% filled in. %TODAY% is the date of this version's
// CHANGELOG entry, so the same sources always build the same plugin.json.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
const entry = changelog.match(new RegExp(`^## ${version.replace(/\./g, '\\.')} \\((\\d{4}-\\d{2}-\\d{2})\\)`, 'm'));
if (!entry) {
  throw new Error(`CHANGELOG.md has no "## ${version} (YYYY-MM-DD)" entry for package.json's version`);
}

mkdirSync(join(dist, 'img'), { recursive: true });
const pluginJSON = readFileSync(join(root, 'src', 'plugin.json'), 'utf8')
  .replaceAll('%VERSION%', version)
  .replaceAll('%TODAY%', entry[1]);
JSON.parse(pluginJSON); // fail here, not in Grafana
writeFileSync(join(dist, 'plugin.json'), pluginJSON);
for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE']) {
  copyFileSync(join(root, f), join(dist, f));
}
copyFileSync(join(root, 'src', 'img', 'logo.svg'), join(dist, 'img', 'logo.svg'));
