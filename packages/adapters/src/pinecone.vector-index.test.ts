import { Pinecone } from '@pinecone-database/pinecone';
import { describeVectorIndexContract } from '@docshelf/testing/contracts/vector-index.contract';
import { PineconeVectorIndex, batchUpsertRecords } from './pinecone.vector-index';
import { toChunkId, toVectorId } from './pinecone.vector-ids';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { startPineconeFake, type PineconeFake } from '@docshelf/testing/fakes/pinecone-fake';

const indexOn = (fake: PineconeFake, dimensions = fake.dimension) =>
  new PineconeVectorIndex({ apiKey: fake.apiKey, indexHost: fake.url, dimensions });

announceContractTarget(
  'VectorIndex',
  'pinecone (official SDK)',
  'HTTP fake of the Pinecone data plane on 127.0.0.1 (testing/pinecone-fake.ts)',
);
describeVectorIndexContract('pinecone against the HTTP fake of its data plane', async () => {
  const fake = await startPineconeFake({ dimension: 8 });
  return { index: indexOn(fake), cleanup: () => fake.close() };
});

describe('PineconeVectorIndex within Pinecone limits', () => {
  let fake: PineconeFake;
  const unit = (dimension: number, i: number) =>
    Array.from({ length: dimension }, (_, d) => (d === i % dimension ? 1 : 0.001 * (i % 97)));

  afterEach(async () => {
    await fake.close();
  });

  it('the fake refuses an unbatched 1,001-record upsert and a request over 2 MB, as Pinecone does', async () => {
    fake = await startPineconeFake({ dimension: 8 });
    const raw = new Pinecone({ apiKey: fake.apiKey }).index({ host: fake.url }).namespace('lib');
    const records = Array.from({ length: 1_001 }, (_, i) => ({ id: `r${i}`, values: unit(8, i) }));
    await expect(raw.upsert({ records })).rejects.toThrow(/1001 vectors/);
    await fake.close();
    fake = await startPineconeFake({ dimension: 1536 });
    const big = new Pinecone({ apiKey: fake.apiKey }).index({ host: fake.url }).namespace('lib');
    const heavy = Array.from({ length: 200 }, (_, i) => ({
      id: `r${i}`,
      values: unit(1536, i).map((v) => v + 0.123456789),
    }));
    await expect(big.upsert({ records: heavy })).rejects.toThrow(/2MB/);
  });

  it('batches 2,500 records into upserts of at most 1,000, and 1,536-dimension records under 2 MB', async () => {
    fake = await startPineconeFake({ dimension: 1536 });
    const index = indexOn(fake);
    await index.upsert(
      'vercel/next.js',
      Array.from({ length: 2_500 }, (_, i) => ({
        chunkId: `c${i}`,
        values: unit(1536, i).map((v) => v + 0.123456789),
      })),
    );
    expect(await index.count('vercel/next.js')).toBe(2_500);
    const upserts = fake.requests.filter((r) => r.path === '/vectors/upsert');
    expect(upserts.every((r) => r.status === 200 && (r.records as number) <= 1_000 && r.bytes <= 2 * 1024 * 1024)).toBe(
      true,
    );
    expect(upserts.length).toBeGreaterThan(3);

    const small = Array.from({ length: 2_500 }, (_, i) => ({ id: `c${i}`, values: [1, 0] }));
    expect(batchUpsertRecords(small).map((b) => b.length)).toEqual([1_000, 1_000, 500]);
  });

  it('deletes 2,500 chunks in requests of at most 1,000 ids and deletes the namespace with the library', async () => {
    fake = await startPineconeFake({ dimension: 8 });
    const index = indexOn(fake);
    await index.upsert(
      'lib',
      Array.from({ length: 2_600 }, (_, i) => ({ chunkId: `c${i}`, values: unit(8, i) })),
    );
    await index.deleteChunks(
      'lib',
      Array.from({ length: 2_500 }, (_, i) => `c${i}`),
    );
    expect(await index.count('lib')).toBe(100);
    expect(fake.requests.filter((r) => r.path === '/vectors/delete').length).toBe(3);
    await index.deleteLibrary('lib');
    expect(fake.namespaces.has('lib')).toBe(false);
    expect(fake.requests.some((r) => r.method === 'DELETE' && r.path === '/namespaces/lib' && r.status === 202)).toBe(
      true,
    );
    await expect(index.deleteLibrary('lib')).resolves.toBeUndefined();
    await expect(index.deleteChunks('never', ['a'])).resolves.toBeUndefined();
  });

  it('uses one namespace per library id and the chunk id as record id', async () => {
    fake = await startPineconeFake({ dimension: 8 });
    await indexOn(fake).upsert('vercel/next.js', [{ chunkId: 'intro', values: unit(8, 1) }]);
    expect([...fake.namespaces.keys()]).toEqual(['vercel/next.js']);
    expect([...(fake.namespaces.get('vercel/next.js')?.keys() ?? [])]).toEqual(['intro']);
    expect(fake.requests.every((r) => r.apiVersion)).toBe(true);
  });

  it('round-trips unusual and over-long chunk ids through query results', async () => {
    fake = await startPineconeFake({ dimension: 8 });
    const index = indexOn(fake);
    const ids = ['naïve/über#1', '100%', 'x'.repeat(512), 'é'.repeat(200), 'plain id'];
    await index.upsert(
      'lib',
      ids.map((chunkId, i) => ({ chunkId, values: unit(8, i) })),
    );
    expect((await index.query('lib', unit(8, 0), 10)).map((m) => m.chunkId).sort()).toEqual([...ids].sort());
    expect(toVectorId('100%').id).toBe('100%25');
    expect(toVectorId('é'.repeat(200))).toMatchObject({ hashed: true });
    expect(toChunkId(toVectorId('naïve/über#1').id)).toBe('naïve/über#1');
    await index.deleteChunks('lib', ids);
    expect(await index.count('lib')).toBe(0);
  });

  it('refuses an index of other dimensions with a clear message and a wrong key', async () => {
    fake = await startPineconeFake({ dimension: 8 });
    await expect(indexOn(fake, 16).upsert('lib', [{ chunkId: 'a', values: unit(16, 0) }])).rejects.toThrow(
      'Pinecone index has 8 dimensions, the embedder produces 16',
    );
    const stranger = new PineconeVectorIndex({ apiKey: 'wrong', indexHost: fake.url, dimensions: 8 });
    await expect(stranger.count('lib')).rejects.toThrow();
  });

  it('resolves the index host by name through a custom controller host', async () => {
    fake = await startPineconeFake({ dimension: 8 });
    const byName = new PineconeVectorIndex({
      apiKey: fake.apiKey,
      indexName: fake.indexName,
      controllerHost: fake.url,
      dimensions: 8,
    });
    await byName.upsert('lib', [{ chunkId: 'a', values: unit(8, 0) }]);
    expect(await byName.count('lib')).toBe(1);
    expect(fake.requests.some((r) => r.path === `/indexes/${fake.indexName}`)).toBe(true);
  });
});
