/** The dashboard user the browser tests log in as (created at boot from ADMIN_EMAIL and ADMIN_PASSWORD). */
export const ADMIN = { email: 'admin@docshelf.test', password: 'correct horse battery' };

/** Environment variables the global setup sets for the tests. */
export const E2E_ENV = {
  baseUrl: 'DOCSHELF_E2E_BASE_URL',
  siteOrigin: 'DOCSHELF_E2E_SITE_ORIGIN',
  gitOrigin: 'DOCSHELF_E2E_GIT_ORIGIN',
} as const;

export function e2eEnv(name: keyof typeof E2E_ENV): string {
  const value = process.env[E2E_ENV[name]];
  if (!value) throw new Error(`${E2E_ENV[name]} is not set: run the browser tests with apps/web/playwright.config.ts`);
  return value;
}

/** The fixture site's page that waits for the test (see global-setup.ts). */
export const HELD_PAGE = '/api/reference.html';
