// The dashboard's first load: the gzipped size of the JS the browser must fetch before it can show
// `/` (the entry chunk and every chunk it imports statically, each counted once). Lazily loaded
// routes and chart libraries are not counted: they come with the pages that need them.
//
//   node bench/web-bundle.mjs                 # builds the web app (with a manifest) into .tmp/web-bundle, then measures
//   node bench/web-bundle.mjs --dir web/dist  # measures a build that already has .vite/manifest.json
//
// Exits 1 over BUDGET_KB (150 KB, gzip level 9 as scripts/precompress.mjs serves it).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..');
const BUDGET_KB = 150;

const dirArg = process.argv.indexOf('--dir');
const outDir = dirArg > 0 ? path.resolve(process.argv[dirArg + 1]) : path.join(root, '.tmp', 'web-bundle');
if (dirArg < 0) {
  // Its own folder, so the build the server hands out (web/dist) is left as it is.
  execFileSync(
    'npx',
    ['vite', 'build', '--manifest', '--sourcemap', 'false', '--emptyOutDir', '--outDir', outDir, '--logLevel', 'warn'],
    {
      cwd: path.join(root, 'web'),
      stdio: 'inherit',
    },
  );
}
const manifestPath = path.join(outDir, '.vite', 'manifest.json');
if (!existsSync(manifestPath)) {
  console.error(`No manifest at ${manifestPath}: build with \`vite build --manifest\`.`);
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
if (!entryKey) {
  console.error('The manifest names no entry chunk.');
  process.exit(2);
}

/** The entry and its static imports, depth first, each once. */
const seen = new Set();
const chunks = [];
(function walk(key) {
  if (seen.has(key)) return;
  seen.add(key);
  const chunk = manifest[key];
  chunks.push(chunk);
  for (const imported of chunk.imports ?? []) walk(imported);
})(entryKey);

const rows = chunks
  .filter((c) => c.file.endsWith('.js'))
  .map((c) => {
    const body = readFileSync(path.join(outDir, c.file));
    const brotli = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    return { file: c.file, raw: body.length, gzip: gzipSync(body, { level: 9 }).length, brotli };
  });
const kb = (n) => (n / 1024).toFixed(1);
for (const r of rows) console.log(`${r.file.padEnd(44)} ${kb(r.raw).padStart(8)} KB  ${kb(r.gzip).padStart(7)} KB gzip`);
const total = rows.reduce((sum, r) => sum + r.gzip, 0);
const brotli = rows.reduce((sum, r) => sum + r.brotli, 0);
const lazy = Object.values(manifest).filter((c) => c.file.endsWith('.js') && !chunks.includes(c)).length;
console.log(
  `dashboard initial JS: ${kb(total)} KB gzip in ${rows.length} file(s) (budget ${BUDGET_KB} KB; ${kb(brotli)} KB as brotli); ${lazy} chunk(s) load later`,
);
if (total > BUDGET_KB * 1024) {
  console.error(`Over budget by ${kb(total - BUDGET_KB * 1024)} KB.`);
  process.exit(1);
}
