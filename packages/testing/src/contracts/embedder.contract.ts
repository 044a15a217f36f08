import type { Embedder, EmbedScope } from '@docshelf/core';

export interface EmbedderHarness {
  embedder: Embedder;
  /** The library the texts are embedded for, when the embedder learns from a library's own text. */
  scope?: EmbedScope;
  cleanup(): Promise<void>;
}

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * (b[i] as number), 0);
const norm = (a: number[]) => Math.sqrt(cosine(a, a));

/** Behaviour every Embedder adapter must show; vectors are compared with tolerance so remote models qualify too. */
export function describeEmbedderContract(label: string, create: () => Promise<EmbedderHarness>): void {
  describe(`Embedder contract: ${label}`, () => {
    let harness: EmbedderHarness;
    let embedder: Pick<Embedder, 'model' | 'dimensions'> & { embed(texts: string[]): Promise<number[][]> };

    beforeEach(async () => {
      harness = await create();
      const { model, dimensions } = harness.embedder;
      embedder = { model, dimensions, embed: (texts) => harness.embedder.embed(texts, harness.scope) };
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    it('names its model and dimensions', () => {
      expect(embedder.model).toEqual(expect.any(String));
      expect(embedder.model.length).toBeGreaterThan(0);
      expect(Number.isInteger(embedder.dimensions)).toBe(true);
      expect(embedder.dimensions).toBeGreaterThan(0);
    });

    it('returns one finite unit-length vector of the declared size per text, in order', async () => {
      const texts = ['Install the package with npm.', 'Routing in the app directory', 'x'];
      const vectors = await embedder.embed(texts);
      expect(vectors).toHaveLength(texts.length);
      for (const vector of vectors) {
        expect(vector).toHaveLength(embedder.dimensions);
        expect(vector.every(Number.isFinite)).toBe(true);
        expect(norm(vector)).toBeCloseTo(1, 3);
      }
      const [single] = await embedder.embed([texts[1] as string]);
      expect(cosine(single as number[], vectors[1] as number[])).toBeGreaterThan(0.999);
    });

    it('returns an empty list for no texts', async () => {
      expect(await embedder.embed([])).toEqual([]);
    });

    it('is deterministic for the same text', async () => {
      const [first] = await embedder.embed(['How do I configure middleware?']);
      const [second] = await embedder.embed(['How do I configure middleware?']);
      expect(cosine(first as number[], second as number[])).toBeGreaterThan(0.999);
    });

    it('scores similar texts clearly above unrelated ones', async () => {
      const [query, similar, unrelated] = await embedder.embed([
        'how to configure routing middleware in next.js',
        'Configuring middleware for routing in Next.js applications',
        'chocolate cake recipe with butter and sugar',
      ]);
      const similarScore = cosine(query as number[], similar as number[]);
      const unrelatedScore = cosine(query as number[], unrelated as number[]);
      expect(similarScore).toBeGreaterThan(unrelatedScore + 0.2);
    });

    it('embeds empty and whitespace-only text without NaN', async () => {
      for (const vector of await embedder.embed(['', '   \n\t'])) {
        expect(vector).toHaveLength(embedder.dimensions);
        expect(vector.every(Number.isFinite)).toBe(true);
        expect(norm(vector)).toBeGreaterThan(0);
      }
    });
  });
}
