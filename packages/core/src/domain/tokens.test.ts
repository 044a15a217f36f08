import { estimateTokens } from './tokens';

describe('estimateTokens', () => {
  it('grows with the text and counts code punctuation', () => {
    expect(estimateTokens('')).toBe(0);
    const prose = 'The quick brown fox jumps over the lazy dog';
    expect(estimateTokens(prose)).toBeGreaterThanOrEqual(9);
    expect(estimateTokens(prose)).toBeLessThanOrEqual(14);
    expect(estimateTokens('foo(bar, { a: 1 });')).toBeGreaterThan(estimateTokens('foo bar a 1'));
    expect(estimateTokens(Array(10).fill(prose).join(' '))).toBeGreaterThan(estimateTokens(prose) * 9);
  });
});
