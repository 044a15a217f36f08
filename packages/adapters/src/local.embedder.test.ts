import { describeEmbedderContract } from '@docshelf/testing/contracts/embedder.contract';
import { LocalEmbedder } from './local.embedder';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';

announceContractTarget('Embedder', 'local', 'in-process, no network');
describeEmbedderContract('LocalEmbedder', async () => ({ embedder: new LocalEmbedder(), cleanup: async () => {} }));
describeEmbedderContract('LocalEmbedder (64 dimensions)', async () => ({
  embedder: new LocalEmbedder(64),
  cleanup: async () => {},
}));

describe('LocalEmbedder', () => {
  it('defaults to 256 dimensions and the local-hash-v1 model', () => {
    const embedder = new LocalEmbedder();
    expect(embedder.dimensions).toBe(256);
    expect(embedder.model).toBe('local-hash-v1');
  });

  it('gives bit-identical vectors across instances', async () => {
    const text = 'Server components render on the server.';
    const [a] = await new LocalEmbedder().embed([text]);
    const [b] = await new LocalEmbedder().embed([text]);
    expect(a).toEqual(b);
  });

  it('ignores case and punctuation', async () => {
    const [a, b] = await new LocalEmbedder().embed(['Hello, World!', 'hello world']);
    expect(a).toEqual(b);
  });

  it('embeds empty text as the fixed unit vector on index 0', async () => {
    const [empty, blank] = await new LocalEmbedder(8).embed(['', '  ']);
    expect(empty).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(blank).toEqual(empty);
  });

  it('rejects invalid dimensions', () => {
    expect(() => new LocalEmbedder(0)).toThrow();
    expect(() => new LocalEmbedder(2.5)).toThrow();
  });
});
