// `npm run check:imports` (run by `npm test`): import rules the type checker cannot see, on
// server/src. Type-only imports count: a circle of types still ties the files together (a
// module's types live in its types.ts; its index.ts only composes).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle among server/src files: move the shared types to the module types.ts (index.ts only composes).',
      from: { path: '^server/src/' },
      to: { circular: true },
    },
    {
      name: 'db-knows-no-feature',
      severity: 'error',
      comment: 'The storage layer knows no feature: the app hands db/ the migrations and tables.',
      from: { path: '^server/src/db/', pathNot: '\\.test\\.ts$' },
      // Anything of server/src but db/ itself, the configuration and core/ is a feature (new ones included).
      to: { path: '^server/src/', pathNot: '^server/src/(db/|core/|config[.]ts$)' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An unresolved relative import would hide its circles (packages are left to tsc: the contract may be unbuilt).',
      from: { path: '^server/src/' },
      to: { couldNotResolve: true, path: '^[.]' },
    },
  ],
  options: {
    // Only server/src is checked: packages and the built contract are leaves.
    doNotFollow: { path: ['node_modules', '^contract/'] },
    // Count `import type` too (the TypeScript compiler parses before type imports are erased).
    tsPreCompilationDeps: true,
    moduleSystems: ['es6'],
  },
};
