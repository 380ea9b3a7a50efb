import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

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

/** zod's modules that turn a schema into JSON Schema. */
const ZOD_JSON_SCHEMA = /(^|[\\/])(to-json-schema|json-schema-processors)\.js$/;
const STUB = '\0zod-without-json-schema:';

/**
 * Every zod schema has `.toJSONSchema()`, so zod's JSON Schema generator (about 5 KB of gzip) comes
 * into any bundle that uses zod. Only the server converts schemas (the OpenAPI document); the web
 * only parses answers and socket messages. So the web's production build gets, in place of those
 * two modules, one with the same exports that throws when called. The exports are read from
 * the installed zod, so an upgrade that adds one still builds. Parsing never calls them (the
 * dashboard's answers are validated as before); `bench/web-bundle.mjs` shows the saving.
 */
function zodWithoutJsonSchema(): Plugin {
  return {
    name: 'pipdesk:zod-without-json-schema',
    apply: 'build',
    enforce: 'pre',
    resolveId(source, importer) {
      if (!importer || !/[\\/]node_modules[\\/]zod[\\/]/.test(importer) || !ZOD_JSON_SCHEMA.test(source)) return null;
      return STUB + path.resolve(path.dirname(importer), source);
    },
    async load(id) {
      if (!id.startsWith(STUB)) return null;
      const real: Record<string, unknown> = await import(pathToFileURL(id.slice(STUB.length)).href);
      const names = Object.keys(real).filter((name) => name !== 'default');
      return [
        'function unavailable() { throw new Error("zod\'s JSON Schema conversion is not part of the web build"); }',
        // createStandardJSONSchemaMethod(schema, io) is called when a schema's `~standard` is read: it gives the thrower.
        ...names.map((name) => `export const ${name} = ${/Method$/.test(name) ? '() => unavailable' : 'unavailable'};`),
      ].join('\n');
    },
  };
}

/** The contract's call entries (`contract/src/operations/*.ts`). */
const OPERATION_ENTRIES = /[\\/]contract[\\/]src[\\/]operations[\\/][^\\/]+\.ts$/;
/** A `summary:` or `description:` line of an entry whose value is one string literal. */
const DOC_STRING = /^\s*(summary|description):\s*(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`),[ \t]*$/gm;

/**
 * Each call's entry in the contract carries its documentation (`summary`, `description`: the API
 * document and its page are built from them on the server). The web only sends calls and reads
 * answers, and no code of it reads those two, so its production build drops them: the first load
 * carries every entry it calls, and their words cost about as much as their code.
 */
function contractWithoutDocs(): Plugin {
  return {
    name: 'pipdesk:contract-without-docs',
    apply: 'build',
    transform(code, id) {
      if (!OPERATION_ENTRIES.test(id)) return null;
      return { code: code.replace(DOC_STRING, ''), map: null };
    },
  };
}

export default defineConfig(({ command }) => ({
  plugins: [react(), zodWithoutJsonSchema(), contractWithoutDocs()],
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
