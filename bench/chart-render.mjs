// The chart in a real browser (issue 34): how long 5,000 candles with four indicators (SMA, Bollinger
// Bands, RSI, MACD) take from handing the data over to the chart's paint that shows them, and the
// main-thread cost of one live tick (the newest candle moved, each indicator one step, the legend,
// the chart's repaint).
//
//   node bench/chart-render.mjs                      # builds the bench page, runs it in Chromium
//   node bench/chart-render.mjs --ticks 1000 --draws 30 --no-record
//   node bench/chart-render.mjs --new-every 2 --no-record   # every 2nd tick opens a candle (the rare folds show)
//
// The page is the app's own ChartView (web/src/features/chart/bench/chartBench.tsx) built by Vite
// with the app's settings, alone on a page: the layers over it (drawings, trade tools) need the
// signed-in app and are left out. The chart box is the pair page's (1,200 × 600 px with the two
// oscillator panes), showing the newest 120 candles as the pair page does in timeframe mode; "fit"
// draws all 5,000 in the width. Exits 1 when a goal is missed: draw p99 ≤ 250 ms, tick p99 ≤ 4 ms.
import { createReadStream, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright';
import { parseArgs, root } from './lib.mjs';
import { record } from './results.mjs';

const args = parseArgs(process.argv.slice(2));
const TICKS = Number(args.ticks ?? 500);
const DRAWS = Number(args.draws ?? 20);
/** Every how many ticks one opens a new candle. */
const NEW_EVERY = Number(args['new-every'] ?? 60);
const CANDLES = 5_000;
const DRAW_GOAL_MS = 250;
const TICK_GOAL_MS = 4;

const webDir = path.join(root, 'web');
const outDir = path.join(root, '.tmp', 'chart-bench');
const entry = path.join(webDir, 'src/features/chart/bench/chartBench.tsx');
const layers = path.join(webDir, 'src/features/chart/bench/benchLayers.tsx');

// Built with the app's plugins and alias (web/vite.config.ts), in production mode, into a folder of its own.
const { build } = await import('vite');
const { default: react } = await import('@vitejs/plugin-react');
await build({
  configFile: false,
  root: webDir,
  logLevel: 'warn',
  mode: 'production',
  plugins: [
    react(),
    {
      name: 'bench-layers',
      enforce: 'pre',
      resolveId(source, importer) {
        if (source === './ChartLayers' && importer?.replaceAll('\\', '/').endsWith('features/chart/ChartView.tsx')) return layers;
        return null;
      },
    },
  ],
  resolve: { alias: { '@pipdesk/contract': path.join(root, 'contract/src/index.ts') } },
  build: {
    outDir,
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: { input: entry, output: { entryFileNames: 'bench.js', assetFileNames: '[name][extname]' } },
  },
});
const styles = readdirSync(outDir).filter((f) => f.endsWith('.css'));
writeFileSync(
  path.join(outDir, 'index.html'),
  `<!doctype html><html lang="en" data-theme="dark"><head><meta charset="utf-8"><title>chart bench</title>${styles
    .map((f) => `<link rel="stylesheet" href="/${f}">`)
    .join('')}</head><body><script type="module" src="/bench.js"></script></body></html>`,
);

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const server = createServer((req, res) => {
  const file = path.join(
    outDir,
    path.normalize(new URL(req.url ?? '/', 'http://x').pathname === '/' ? 'index.html' : (req.url ?? '')),
  );
  if (!file.startsWith(outDir) || !existsSync(file)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  // As the browser suite runs it (e2e/playwright.config.ts): no GPU here, so the canvas is drawn in software.
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
});
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
const stats = (values) => ({
  p50: +quantile(values, 0.5).toFixed(2),
  p99: +quantile(values, 0.99).toFixed(2),
  max: +Math.max(...values).toFixed(2),
  n: values.length,
});

let result;
const version = browser.version();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(url);
  await page.waitForFunction(() => window.__pipdeskChartBench !== undefined);

  // Warm-up: the first draw compiles the code paths; not counted.
  await page.evaluate(async (n) => {
    const bench = window.__pipdeskChartBench;
    await bench.draw(n);
    await bench.draw(n, { remount: false, seed: 2 });
    await bench.ticks(60);
  }, CANDLES);

  const mount = [];
  const change = [];
  const fit = [];
  for (let i = 0; i < DRAWS; i++) {
    // A fresh chart (opening the page), then the same chart handed another 5,000 (a change of timeframe or pair).
    const seed = i % 2;
    mount.push(await page.evaluate(([n, s]) => window.__pipdeskChartBench.draw(n, { seed: 10 + s }), [CANDLES, seed]));
    change.push(
      await page.evaluate(([n, s]) => window.__pipdeskChartBench.draw(n, { remount: false, seed: 20 + s }), [CANDLES, seed]),
    );
  }
  for (let i = 0; i < Math.max(3, Math.ceil(DRAWS / 4)); i++)
    fit.push(await page.evaluate(([n, s]) => window.__pipdeskChartBench.draw(n, { fit: true, seed: 30 + s }), [CANDLES, i % 2]));

  // The live ticks on a fresh 5,000-candle chart showing its newest 120.
  await page.evaluate((n) => window.__pipdeskChartBench.draw(n, { seed: 40 }), CANDLES);
  const ticks = await page.evaluate(([n, every]) => window.__pipdeskChartBench.ticks(n, every), [TICKS, NEW_EVERY]);
  if (errors.length > 0) throw new Error(`errors in the page: ${errors.join('; ')}`);

  result = {
    draw_mount_ms: stats(mount),
    draw_new_data_ms: stats(change),
    draw_fit_all_ms: stats(fit),
    tick_total_ms: stats(ticks.total),
    tick_update_ms: stats(ticks.update),
    tick_paint_ms: stats(ticks.paint),
    tick_new_candle_ms: stats(ticks.opened),
    tick_new_candle_worst: [...ticks.opened]
      .sort((a, b) => b - a)
      .slice(0, 5)
      .map((v) => +v.toFixed(1)),
    idle_jobs: ticks.idle.length,
    idle_max_ms: +Math.max(0, ...ticks.idle).toFixed(1),
    idle_total_ms: +ticks.idle.reduce((a, b) => a + b, 0).toFixed(1),
  };
} finally {
  await browser.close();
  server.close();
}

console.log(`5,000 candles, SMA 20, BB 20 2, RSI 14, MACD 12 26 9 (Chromium ${version}, software canvas):`);
const row = (label, s) =>
  console.log(
    `  ${label.padEnd(42)} p50 ${String(s.p50).padStart(7)}  p99 ${String(s.p99).padStart(7)}  max ${String(s.max).padStart(7)} ms  (n=${s.n})`,
  );
row('draw, new chart (mount → painted)', result.draw_mount_ms);
row('draw, new data on the chart (→ painted)', result.draw_new_data_ms);
row('draw, all 5,000 in view (mount → painted)', result.draw_fit_all_ms);
row('live tick, main thread (update + repaint)', result.tick_total_ms);
row('  of which React, candle, indicators, legend', result.tick_update_ms);
row('  of which the chart repaint', result.tick_paint_ms);
row(`  the ticks that open a candle (1 in ${NEW_EVERY})`, result.tick_new_candle_ms);
console.log(`    the worst of them: ${result.tick_new_candle_worst.join(', ')} ms`);
console.log(
  `  work put off to idle time (tails folded, bars laid ahead): ${result.idle_jobs} jobs, the longest ${result.idle_max_ms} ms, ${result.idle_total_ms} ms in all`,
);

record('chart-render.chromium', {
  'draw mount p99 ms': { value: result.draw_mount_ms.p99, better: 'lower' },
  'draw new data p99 ms': { value: result.draw_new_data_ms.p99, better: 'lower' },
  'tick p50 ms': { value: result.tick_total_ms.p50, better: 'lower' },
  'tick p99 ms': { value: result.tick_total_ms.p99, better: 'lower' },
  'new-candle tick p99 ms': { value: result.tick_new_candle_ms.p99, better: 'lower' },
});

const drawWorst = Math.max(result.draw_mount_ms.p99, result.draw_new_data_ms.p99);
const missed = [];
if (drawWorst > DRAW_GOAL_MS) missed.push(`draw p99 ${drawWorst} ms > ${DRAW_GOAL_MS} ms`);
if (result.tick_total_ms.p99 > TICK_GOAL_MS) missed.push(`tick p99 ${result.tick_total_ms.p99} ms > ${TICK_GOAL_MS} ms`);
if (missed.length > 0) {
  console.error(`Goal missed: ${missed.join('; ')}`);
  process.exit(1);
}
console.log(`Goals met: draw p99 ≤ ${DRAW_GOAL_MS} ms, tick p99 ≤ ${TICK_GOAL_MS} ms.`);
