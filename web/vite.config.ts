import { createRequire } from 'node:module';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const contract = { find: '@pipdesk/contract', replacement: path.resolve(import.meta.dirname, '../contract/src/index.ts') };
// React Router's package points every bundler at its development build, whose only difference is
// the developer warnings; a production build takes the production one (1 KB less on the first load).
const reactRouterProduction = {
  find: /^react-router$/,
  replacement: path.join(
    path.dirname(createRequire(import.meta.url).resolve('react-router/package.json')),
    'dist/production/index.mjs',
  ),
};

export default defineConfig(({ command }) => ({
  plugins: [react()],
  resolve: { alias: command === 'build' ? [contract, reactRouterProduction] : [contract] },
  // Source maps are built but named by no bundle; the server hands them out only with SERVE_SOURCEMAPS=true.
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: 'hidden',
    // Browsers that support module scripts (the app's own target) have <link rel="modulepreload">
    // too (Baseline since 2023), so the polyfill is not shipped in the first load.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        codeSplitting: {
          // The dashboard's first load as two files, not a dozen small chunks shared with lazy
          // screens (each its own gzip stream, about 5 KB more in all): the libraries, which
          // change seldom and stay cached, and the app's own first-load code. `$initial` is every
          // module the entry imports statically; lazy screens import these chunks, not copies.
          groups: [
            { name: 'vendor', test: /[\\/]node_modules[\\/]/, tags: ['$initial'], priority: 2 },
            { name: 'first-load', tags: ['$initial'], priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/ws': { target: 'ws://127.0.0.1:8080', ws: true } },
  },
}));
