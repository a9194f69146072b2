// The import rules of ARCHITECTURE.md, checked by test/architecture/dependencies.spec.ts (so
// `npm test` and CI run them): no import circles, and dependencies pointing inward only.
// Type-only imports count: a circle of types is a circle a reader has to untangle all the same.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules that import each other, however indirectly: move what both need into a leaf module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports nothing outside itself: no node:*, no library, no clock, no randomness.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { pathNot: '^domain/' },
    },
    {
      name: 'application-inward',
      comment: 'application/ imports domain/, itself, and the schema library its declarations use.',
      severity: 'error',
      from: { path: '^application/' },
      to: { pathNot: ['^(domain|application)/', '^node_modules/typanion/'] },
    },
    {
      name: 'adapters-not-entrypoints',
      comment: 'Adapters implement ports; wiring them is the entrypoints\' job.',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: '^entrypoints/' },
    },
    {
      name: 'entrypoints-own-wiring',
      comment: 'The MCP server, the library and the server wire through entrypoints/compose.ts with their own host ports, never through the command line\'s.',
      severity: 'error',
      from: { path: '^entrypoints/(mcp|library|server)/' },
      to: { path: '^entrypoints/cli/' },
    },
    {
      name: 'shared-wiring-imports-no-entrypoint',
      comment: 'What every entrypoint shares (compose.ts, envelope.ts, host/) leans on none of them; host/server-runtime.ts only loads the server\'s bundle.',
      severity: 'error',
      from: { path: '^entrypoints/(compose|envelope)\\.ts$|^entrypoints/host/', pathNot: '^entrypoints/host/server-runtime\\.ts$' },
      to: { path: '^entrypoints/(cli|mcp|library|server)/' },
    },
  ],
  options: {
    // TypeScript 7 ships no compiler API for dependency-cruiser to parse with: swc parses, and
    // reports type-only imports as imports.
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(build|dist|ui|test|bench|scripts)/' },
  },
};
