import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@pipdesk/contract': path.resolve(import.meta.dirname, '../contract/src/index.ts') } },
  // Source maps are built but named by no bundle; the server hands them out only with SERVE_SOURCEMAPS=true.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: 'hidden' },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/ws': { target: 'ws://127.0.0.1:8080', ws: true } },
  },
});
