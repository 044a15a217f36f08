// `npm run test:unit`: the fast tier. The packages' and apps' own tests (use cases on in-memory ports, SQLite in
// process, routes through supertest) straight from the sources: no build, no Redis, no Chromium, under a minute.
// The tests that need Redis (the queue) or Chromium (the browser pool, the page loader) run in `npm test` only.
const { projects, ...shared } = require('./jest.config');

const service = projects.find((project) => project.displayName === 'service');

/** @type {import('jest').Config} */
module.exports = {
  ...shared,
  reporters: ['default'],
  projects: [
    {
      ...service,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        '<rootDir>/packages/queue/',
        '<rootDir>/packages/crawler/src/browser/',
        '<rootDir>/packages/crawler/src/crawl/',
        '<rootDir>/packages/crawler/src/extract/http-matches-browser.test.ts',
      ],
    },
  ],
};
