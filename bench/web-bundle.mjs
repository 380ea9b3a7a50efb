// The dashboard's first load: the gzipped size of the JS the browser must fetch before it can show
// `/` (the HTML's scripts: its module entry, every chunk that imports statically, each counted once,
// and its classic scripts). Lazily loaded routes and chart libraries are not counted: they come with
// the pages that need them. The dashboard's own lazy parts (the lower panels, the alert watch, the
// shortcuts help), which it asks for once it shows, are printed apart, not counted.
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

/** A chunk and its static imports, depth first, each once across every walk. */
const seen = new Set();
function walk(key, into) {
  if (seen.has(key)) return;
  seen.add(key);
  const chunk = manifest[key];
  into.push(chunk);
  for (const imported of chunk.imports ?? []) walk(imported, into);
}
const chunks = [];
walk(entryKey, chunks);

// The manifest's walk must be what the HTML makes the browser fetch: its module script and
// modulepreload links are Vite's list of the entry's static imports. A difference is a bug here.
const html = readFileSync(path.join(outDir, 'index.html'), 'utf8');
const attr = (tag, name) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const tags = html.match(/<(script|link)\b[^>]*>/g) ?? [];
const moduleFiles = tags
  .filter((t) => (t.startsWith('<script') && /type="module"/.test(t)) || /rel="modulepreload"/.test(t))
  .map((t) => (attr(t, 'src') ?? attr(t, 'href') ?? '').replace(/^\//, ''));
const walked = chunks.filter((c) => c.file.endsWith('.js')).map((c) => c.file);
if (moduleFiles.sort().join() !== [...walked].sort().join()) {
  console.error(`The HTML loads ${moduleFiles.join(', ')}; the manifest's walk found ${walked.join(', ')}.`);
  process.exit(2);
}
// Classic scripts (public/theme-init.js, run before the page paints) are fetched before it too.
const classic = tags
  .filter((t) => t.startsWith('<script') && !/type="module"/.test(t) && attr(t, 'src'))
  .map((t) => (attr(t, 'src') ?? '').replace(/^\//, ''));

const measure = (file) => {
  const body = readFileSync(path.join(outDir, file));
  const brotli = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  return { file, raw: body.length, gzip: gzipSync(body, { level: 9 }).length, brotli };
};
const rows = [...walked, ...classic].map(measure);
const kb = (n) => (n / 1024).toFixed(1);
const print = (r) => console.log(`${r.file.padEnd(44)} ${kb(r.raw).padStart(8)} KB  ${kb(r.gzip).padStart(7)} KB gzip`);
rows.forEach(print);
const total = rows.reduce((sum, r) => sum + r.gzip, 0);
const brotli = rows.reduce((sum, r) => sum + r.brotli, 0);
const lazy = Object.values(manifest).filter((c) => c.file.endsWith('.js') && !chunks.includes(c)).length;
console.log(
  `dashboard initial JS: ${kb(total)} KB gzip in ${rows.length} file(s) (budget ${BUDGET_KB} KB; ${kb(brotli)} KB as brotli); ${lazy} chunk(s) load later`,
);

// What the dashboard asks for once it shows (React.lazy in DashboardPage and AppLayout): not part
// of the budget, printed so the first load is not made small by moving weight just past it.
const AFTER_FIRST_LOAD = [
  'src/features/news/TradingNewsPanel.tsx',
  'src/features/market/PairsGrid.tsx',
  'src/features/alerts/AlertWatch.tsx',
  'src/features/tools/HotkeysHelp.tsx',
];
const after = [];
for (const src of AFTER_FIRST_LOAD) {
  if (!manifest[src]) console.warn(`(no chunk for ${src}: update AFTER_FIRST_LOAD)`);
  else walk(src, after);
}
const afterRows = after.filter((c) => c.file.endsWith('.js')).map((c) => measure(c.file));
const afterTotal = afterRows.reduce((sum, r) => sum + r.gzip, 0);
console.log(
  `then, once the dashboard shows (lazy panels, alert watch, shortcuts help): ${kb(afterTotal)} KB gzip in ${afterRows.length} file(s)`,
);
if (total > BUDGET_KB * 1024) {
  console.error(`Over budget by ${kb(total - BUDGET_KB * 1024)} KB.`);
  process.exit(1);
}
