// Dependencies published as ES modules only (and their own such dependencies), as patterns of package names.
const ESM_ONLY = [
  'p-limit',
  'p-timeout',
  'yocto-queue',
  'cssomnom',
  // unified, remark and micromark (the Markdown parser of git sources) and their family
  'unified',
  'bail',
  'trough',
  'devlop',
  'is-plain-obj',
  'vfile(-message)?',
  'unist-util-[\\w-]+',
  '(remark|mdast-util|micromark)(-[\\w-]+)?',
  'estree-util-[\\w-]+',
  'character-(entities|reference)[\\w-]*',
  'decode-named-character-reference',
  'is-(alphabetical|alphanumerical|decimal|hexadecimal)',
  'parse-entities',
  'stringify-entities',
  'ccount',
  'fault',
  'longest-streak',
  'markdown-table',
  'zwitch',
  'escape-string-regexp',
];
const ESM_ONLY_FILES = `/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`;
// linkedom is CommonJS but keeps ES-module-only versions of css-select and its family in its own node_modules.
const NESTED_ESM_ONLY = '/node_modules/linkedom/node_modules/';

const shared = {
  testEnvironment: 'node',
  // Workspace packages resolve to their TypeScript sources under this condition (see their package.json "exports").
  testEnvironmentOptions: { customExportConditions: ['node', 'node-addons', '@docshelf/source'] },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
    [ESM_ONLY_FILES]: ['@swc/jest', { jsc: { target: 'es2022' } }],
    [`${NESTED_ESM_ONLY}.+\\.js$`]: ['@swc/jest', { jsc: { target: 'es2022' } }],
  },
  // Jest cannot require() an ES module before Node 24.9, so the ESM-only packages are compiled to CommonJS for it.
  transformIgnorePatterns: [`^(?!.*${NESTED_ESM_ONLY}).*/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
};

/** @type {import('jest').Config} */
const config = {
  projects: [
    {
      ...shared,
      displayName: 'service',
      testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/reliability/'],
    },
    {
      // Faults and abuse against real processes; `npm run test:reliability` runs these alone and prints their table.
      ...shared,
      displayName: 'reliability',
      testMatch: ['<rootDir>/test/reliability/**/*.rel.test.ts'],
      globalSetup: '<rootDir>/packages/testing/src/jest/reliability-setup.cjs',
    },
  ],
  // A whole-run option: scenarios that take longer say so per test.
  testTimeout: 60_000,
  // Suites share one Redis and one machine; each uses its own queue prefix and data dir.
  maxWorkers: 2,
  // The longest suites start first, so that none starts last and runs on alone.
  testSequencer: '<rootDir>/packages/testing/src/jest/slow-first-sequencer.cjs',
  reporters: [
    'default',
    '<rootDir>/packages/testing/src/jest/figures-reporter.cjs',
    '<rootDir>/packages/testing/src/jest/summary-reporter.cjs',
  ],
};

module.exports = config;
