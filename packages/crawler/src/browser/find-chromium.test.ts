import { existsSync } from 'node:fs';
import { CHROMIUM_CANDIDATES, findChromium } from './find-chromium';

describe('findChromium', () => {
  const existing = process.execPath;
  const missing = '/nonexistent/chromium';

  it('prefers the configured path when it exists', () => {
    expect(findChromium(existing, ['/bin/sh'])).toBe(existing);
  });

  it('falls back to the first candidate that exists', () => {
    expect(findChromium(missing, [missing, '/bin/sh', existing])).toBe('/bin/sh');
    expect(findChromium(undefined, [missing, existing])).toBe(existing);
  });

  it('finds nothing when nothing exists', () => {
    expect(findChromium(missing, [missing])).toBeUndefined();
  });

  it('looks in the usual places by default', () => {
    expect(findChromium()).toBe(CHROMIUM_CANDIDATES.find((path) => existsSync(path)));
  });
});
