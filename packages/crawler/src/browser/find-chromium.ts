import { existsSync } from 'node:fs';

export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The configured Chromium if it exists, else the first one installed in a usual place. */
export function findChromium(
  configured?: string,
  candidates: readonly string[] = CHROMIUM_CANDIDATES,
): string | undefined {
  if (configured && existsSync(configured)) return configured;
  return candidates.find((path) => existsSync(path));
}
