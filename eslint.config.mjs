// One lint configuration for every workspace: typescript-eslint's type-aware recommended rules for TypeScript, the
// plain recommended rules for the few JavaScript files; formatting is Prettier's (`eslint-config-prettier` turns off
// the rules it owns).
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // packages/client/src/generated is written by `npm run generate:client` (@hey-api/openapi-ts), not by hand.
    ignores: [
      '**/dist/',
      '**/node_modules/',
      'coverage/',
      'data/',
      '.cache/',
      'test/fixtures/docs-site/',
      'packages/client/src/generated/',
    ],
  },
  eslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
  {
    rules: {
      // A leading underscore names what is deliberately unused: an interface's parameter, or a key left out of a rest copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // These implement Promise-returning ports over synchronous drivers (better-sqlite3, in-memory maps), as do the
    // tests' doubles: `async` keeps the port's contract that a failure rejects rather than throws, so an async body
    // with no `await` is intended.
    files: [
      '**/*.test.ts',
      'test/**/*.ts',
      'packages/adapters/src/sqlite*.ts',
      'packages/adapters/src/local*.embedder.ts',
      'packages/testing/src/**/*.ts',
    ],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    // Tests, contract suites, benchmarks and the retrieval eval read untyped HTTP and JSON bodies (supertest's `res.body`, `response.json()`, parsed
    // job payloads), declared `any` where a test reads one, and check their shape with `expect`, which is the type check
    // there; jest's `expect(fn)` also takes
    // methods unbound on purpose.
    files: [
      '**/*.test.ts',
      '**/*.spec.ts',
      'test/**/*.ts',
      'bench/**/*.ts',
      'eval/**/*.ts',
      'packages/testing/src/**/*.ts',
      'apps/web/e2e/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs', 'jest.config.js', 'jest.unit.config.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
