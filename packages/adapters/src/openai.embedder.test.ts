import OpenAI from 'openai';
import { AppError } from '@docshelf/core';
import { describeEmbedderContract } from '@docshelf/testing/contracts/embedder.contract';
import { OpenAiEmbedder, type OpenAiEmbedderOptions } from './openai.embedder';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { startOpenAiFake, type OpenAiFake } from '@docshelf/testing/fakes/openai-fake';

const embedderFor = (fake: OpenAiFake, overrides: Partial<OpenAiEmbedderOptions> = {}) =>
  new OpenAiEmbedder({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    model: 'text-embedding-3-small',
    dimensions: 256,
    maxConcurrency: 4,
    maxRetries: 3,
    timeoutMs: 10_000,
    ...overrides,
  });

announceContractTarget(
  'Embedder',
  'openai (official SDK)',
  'HTTP fake of POST /v1/embeddings on 127.0.0.1 (testing/openai-fake.ts)',
);
describeEmbedderContract('openai against the HTTP fake of /v1/embeddings', async () => {
  const fake = await startOpenAiFake();
  return { embedder: embedderFor(fake), cleanup: () => fake.close() };
});

describe('OpenAiEmbedder limits and failures', () => {
  let fake: OpenAiFake;

  beforeEach(async () => {
    fake = await startOpenAiFake();
  });

  afterEach(async () => {
    await fake.close();
  });

  it('the fake rejects what the API rejects: 2,049 inputs, an empty string, over 300,000 tokens, a bad key', async () => {
    const client = new OpenAI({ apiKey: fake.apiKey, baseURL: fake.baseUrl, maxRetries: 0 });
    const create = (input: string[]) =>
      client.embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'float' });
    await expect(create(Array.from({ length: 2_049 }, (_, i) => `text ${i}`))).rejects.toMatchObject({ status: 400 });
    await expect(create(['fine', ''])).rejects.toMatchObject({ status: 400 });
    const long = 'word '.repeat(6_000);
    await expect(create(Array.from({ length: 40 }, () => long))).rejects.toMatchObject({ status: 400 });
    await expect(create(['x'.repeat(10) + ' word'.repeat(9_000)])).rejects.toMatchObject({ status: 400 });
    const stranger = new OpenAI({ apiKey: 'sk-wrong', baseURL: fake.baseUrl, maxRetries: 0 });
    await expect(stranger.embeddings.create({ model: 'text-embedding-3-small', input: ['x'] })).rejects.toMatchObject({
      status: 401,
    });
    expect((await create(Array.from({ length: 2_048 }, (_, i) => `text ${i}`))).data).toHaveLength(2_048);
  });

  it('splits 5,000 inputs into requests of at most 2,048 and keeps their order', async () => {
    const texts = Array.from({ length: 5_000 }, (_, i) => `chunk number ${i} about topic ${i % 7}`);
    const vectors = await embedderFor(fake).embed(texts);
    expect(vectors).toHaveLength(5_000);
    const ok = fake.requests.filter((r) => r.status === 200);
    expect(ok.length).toBe(3);
    expect(ok.every((r) => r.inputs <= 2_048)).toBe(true);
    const [again] = await embedderFor(fake).embed([texts[4_321] as string]);
    expect(vectors[4_321]).toEqual(again);
  });

  it('keeps every request under 300,000 tokens and truncates an input over the per-input limit', async () => {
    const longText = 'lorem ipsum dolor sit amet '.repeat(1_400); // about 7,300 tokens by the estimate
    const huge = 'alpha beta gamma delta '.repeat(5_000); // about 26,000 tokens: must be cut
    const vectors = await embedderFor(fake).embed([...Array.from({ length: 60 }, () => longText), huge]);
    expect(vectors).toHaveLength(61);
    const ok = fake.requests.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(1);
    expect(ok.every((r) => r.tokens <= 300_000)).toBe(true);
    expect(fake.requests.every((r) => r.status === 200)).toBe(true);
  });

  it('sends a single space for empty and blank texts instead of failing', async () => {
    const vectors = await embedderFor(fake).embed(['', '   ', 'text']);
    expect(vectors).toHaveLength(3);
    expect(fake.requests.map((r) => r.status)).toEqual([200]);
  });

  it('retries a 429 after the retry-after-ms it names, then succeeds', async () => {
    fake.failNext(1, 429, { 'retry-after-ms': '400' });
    const vectors = await embedderFor(fake).embed(['rate limited once']);
    expect(vectors).toHaveLength(1);
    expect(fake.requests.map((r) => r.status)).toEqual([429, 200]);
    const waited = (fake.requests[1]?.at as number) - (fake.requests[0]?.at as number);
    expect(waited).toBeGreaterThanOrEqual(380);
  });

  it('honours retry-after in seconds and retries 5xx with backoff', async () => {
    fake.failNext(1, 429, { 'retry-after': '1' });
    fake.failNext(1, 503);
    await embedderFor(fake).embed(['busy']);
    expect(fake.requests.map((r) => r.status)).toEqual([429, 503, 200]);
    expect((fake.requests[1]?.at as number) - (fake.requests[0]?.at as number)).toBeGreaterThanOrEqual(950);
  });

  it('gives up after maxRetries with a retryable AppError', async () => {
    fake.failNext(3, 429, { 'retry-after-ms': '10' });
    const failure = await embedderFor(fake, { maxRetries: 2 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'EMBEDDING_FAILED', status: 502, retryable: true });
    expect(fake.requests).toHaveLength(3);
  });

  it('fails clearly, without retrying, on a wrong key', async () => {
    const failure = await embedderFor(fake, { apiKey: 'sk-wrong' })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({
      code: 'EMBEDDING_FAILED',
      retryable: false,
      message: expect.stringContaining('401'),
    });
  });

  it('runs at most maxConcurrency requests at once', async () => {
    fake.setDelay(50);
    const texts = Array.from({ length: 12 }, (_, i) => `t${i} ${'word '.repeat(30_000 / 12)}`);
    await embedderFor(fake, {
      maxConcurrency: 2,
      limits: { maxInputsPerRequest: 1, maxTokensPerRequest: 300_000, maxTokensPerInput: 8_191 },
    }).embed(texts);
    expect(fake.requests).toHaveLength(12);
    expect(fake.maxInFlight).toBe(2);
  });

  it('holds every embed call of one embedder to maxConcurrency together, and sends no more of a call once it failed', async () => {
    fake.setDelay(50);
    const limits = { maxInputsPerRequest: 1, maxTokensPerRequest: 300_000, maxTokensPerInput: 8_191 };
    const embedder = embedderFor(fake, { maxConcurrency: 2, limits });
    const texts = (call: string) => Array.from({ length: 4 }, (_, i) => `${call} ${i}`);
    await Promise.all([embedder.embed(texts('a')), embedder.embed(texts('b')), embedder.embed(texts('c'))]);
    expect(fake.requests).toHaveLength(12);
    expect(fake.maxInFlight).toBe(2);

    fake.failNext(1, 400);
    const failure = await embedderFor(fake, { maxConcurrency: 1, limits })
      .embed(texts('d'))
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'EMBEDDING_FAILED', message: expect.stringContaining('400') });
    expect(fake.requests).toHaveLength(13);
  });

  it('rejects vectors of another size than configured, naming both', async () => {
    // ada-002 takes no `dimensions` parameter and always answers 1536.
    const failure = await embedderFor(fake, { model: 'text-embedding-ada-002', dimensions: 256 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({
      code: 'EMBEDDING_FAILED',
      message: expect.stringMatching(/1536 dimensions, expected 256/),
    });
  });
});
