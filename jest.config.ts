/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  // Suites share one Redis and one machine; each uses its own queue prefix and data dir.
  maxWorkers: 2,
  testTimeout: 60_000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
};

export default config;
