const shared = {
  testEnvironment: 'node',
  // Workspace packages resolve to their TypeScript sources under this condition (see their package.json "exports").
  testEnvironmentOptions: { customExportConditions: ['node', 'node-addons', '@docshelf/source'] },
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
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
      globalSetup: '<rootDir>/test/reliability/support/global-setup.cjs',
    },
  ],
  // A whole-run option: scenarios that take longer say so per test.
  testTimeout: 60_000,
  // Suites share one Redis and one machine; each uses its own queue prefix and data dir.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/reliability/figures-reporter.cjs', '<rootDir>/test/support/summary-reporter.cjs'],
};

module.exports = config;
