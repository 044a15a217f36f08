import { CooccurrenceCounts, countWindowPairs } from './cooccurrence-counts';

const asObject = (counts: CooccurrenceCounts) => {
  const { target, context, weight } = counts.pairs();
  return Object.fromEntries(Array.from(weight, (w, i) => [`${target[i]}:${context[i]}`, w]));
};

describe('CooccurrenceCounts', () => {
  it('sums the weights of each pair, growing past its first slots', () => {
    const counts = new CooccurrenceCounts(16);
    for (let round = 0; round < 3; round++) for (let t = 0; t < 100; t++) counts.add(t * 1000, t % 7, 0.5);
    expect(counts.size).toBe(100);
    const pairs = asObject(counts);
    expect(pairs['0:0']).toBe(1.5);
    expect(pairs['99000:1']).toBe(1.5);
  });

  it('counts the pairs of a window both ways, nearer pairs weighing more, never across a passage end', () => {
    const counts = new CooccurrenceCounts();
    // Terms 0 1 2 | 0 3, window 2; term 3 is no context.
    countWindowPairs(Int32Array.from([0, 1, 2, -1, 0, 3]), 3, 2, counts);
    expect(asObject(counts)).toEqual({ '0:1': 1, '1:0': 1, '1:2': 1, '2:1': 1, '0:2': 0.5, '2:0': 0.5, '3:0': 1 });
  });

  it('refuses ids its 32-bit keys cannot hold', () => {
    expect(() => new CooccurrenceCounts().add(0, 1 << 15, 1)).toThrow(RangeError);
  });
});
