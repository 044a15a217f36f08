import { compareNewestFirst, newestFirst, versionIdRange } from './library-version';

const at = (id: string, createdAt = '2025-01-01T00:00:00.000Z') => ({ id, createdAt });

describe('newestFirst', () => {
  it('orders semantic versions by semver, not by string', () => {
    const ordered = newestFirst([at('x@1.2.0'), at('x@1.10.0'), at('x@1.10.0-rc.1'), at('x@0.9.9')]);
    expect(ordered.map((l) => l.id)).toEqual(['x@1.10.0', 'x@1.10.0-rc.1', 'x@1.2.0', 'x@0.9.9']);
  });

  it('orders versions that are not both semver by creation, latest first, then by id', () => {
    expect(compareNewestFirst(at('x@3.11', '2025-01-01'), at('x@3.9', '2025-02-01'))).toBeGreaterThan(0);
    expect(compareNewestFirst(at('x@1.0.0', '2025-03-01'), at('x@latest', '2025-02-01'))).toBeLessThan(0);
    expect(compareNewestFirst(at('x@a'), at('x@b'))).toBeLessThan(0);
  });
});

describe('versionIdRange', () => {
  it('covers exactly the ids that start with the base id and "@"', () => {
    const [from, below] = versionIdRange('demo/lib');
    const inRange = (id: string) => id >= from && id < below;
    expect(['demo/lib@1', 'demo/lib@zzz', 'demo/lib@1.0+b'].every(inRange)).toBe(true);
    expect(
      ['demo/lib', 'demo/lib-x@1', 'demo/lib.js@1', 'demo/lib/x@1', 'demo/libA@1', 'demo/li@1'].some(inRange),
    ).toBe(false);
  });
});
