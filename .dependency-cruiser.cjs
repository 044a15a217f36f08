/**
 * The layering, checked by `npm run lint` (dependency-cruiser over every workspace's sources and their tests): core
 * imports nothing of ours and no vendor SDK; the crawler and the queue import only core; the adapters only core and
 * config; only the apps compose packages; the dashboard imports only the API client and core's schemas, the command
 * line only the client; what the tests share (`packages/testing`) is imported by tests alone; no import cycles anywhere.
 */
const SOURCES = '^(packages|apps)/[^/]+/src/';
const VENDOR_SDKS = [
  'openai',
  '@pinecone-database',
  'mongoose',
  'mongodb',
  '@google-cloud',
  'bullmq',
  'ioredis',
  'better-sqlite3',
  'sqlite-vec',
  'usearch',
  'playwright',
  'playwright-core',
  'express',
];
/** Anything of ours outside `allowed`; a package's tests may also use what the tests share (`packages/testing`). */
const ours = (allowed) => `^(apps/|packages/(?!(${[...allowed, 'testing'].join('|')})/))`;
const TESTS = '[.]test[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment:
        'Modules that import each other, directly or around a loop, cannot be read (or loaded) one at a time. The ' +
        "generated API client is not ours to arrange (its types and helpers import each other's types).",
      severity: 'error',
      from: { path: SOURCES, pathNot: '^packages/client/src/generated/' },
      to: { circular: true },
    },
    {
      name: 'only-tests-import-testing',
      comment:
        'Fakes, test targets and contract suites never reach the product: only tests and the testing package use them.',
      severity: 'error',
      from: { path: SOURCES, pathNot: [TESTS, '^packages/testing/'] },
      to: { path: '^packages/testing/' },
    },
    {
      name: 'core-imports-nothing-of-ours',
      comment: 'Core holds the domain and the ports; every other package depends on it, never the other way.',
      severity: 'error',
      from: { path: '^packages/core/src/' },
      to: { path: ours(['core']) },
    },
    {
      name: 'core-imports-no-vendor-sdk',
      comment: 'Core reaches databases, queues, browsers and model APIs only through its ports.',
      severity: 'error',
      from: { path: '^packages/core/src/' },
      to: { path: `node_modules/(${VENDOR_SDKS.join('|')})/` },
    },
    {
      name: 'crawler-imports-only-core',
      severity: 'error',
      from: { path: '^packages/crawler/src/' },
      to: { path: ours(['core', 'crawler']) },
    },
    {
      name: 'queue-imports-only-core',
      severity: 'error',
      from: { path: '^packages/queue/src/' },
      to: { path: ours(['core', 'queue']) },
    },
    {
      name: 'adapters-import-only-core-and-config',
      severity: 'error',
      from: { path: '^packages/adapters/src/' },
      to: { path: ours(['core', 'config', 'adapters']) },
    },
    {
      name: 'config-imports-only-core',
      severity: 'error',
      from: { path: '^packages/config/src/' },
      to: { path: ours(['core', 'config']) },
    },
    {
      name: 'observability-imports-nothing-of-ours',
      severity: 'error',
      from: { path: '^packages/observability/src/' },
      to: { path: ours(['observability']) },
    },
    {
      name: 'client-imports-nothing-of-ours',
      comment: 'The API client is generated from the OpenAPI document: it knows the API only by its HTTP shapes.',
      severity: 'error',
      from: { path: '^packages/client/src/' },
      to: { path: ours(['client']) },
    },
    {
      name: 'cli-imports-only-the-client',
      comment: 'The command line reaches the service only through its REST API, as any client would.',
      severity: 'error',
      from: { path: '^apps/cli/src/' },
      to: { path: '^(apps/(?!cli/)|packages/(?!client/))' },
    },
    {
      name: 'apps-do-not-import-each-other',
      comment: 'Each app composes the packages itself.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'dashboard-imports-only-core-schemas',
      comment:
        "The dashboard runs in the browser: of ours it may use only the API client, core's request and response " +
        'schemas, and the order of library versions (free of I/O), so it lists them as the API reads them.',
      severity: 'error',
      from: { path: '^apps/web/src/' },
      to: { path: '^packages/', pathNot: '^packages/(client/src/|core/src/(schemas|domain/library-version))' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['/dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@docshelf/source', 'types', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
