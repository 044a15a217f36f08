import { countTokens } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

const PLAIN = { disallowedSpecial: new Set<string>() };
const tokensOf = (text: string) => countTokens(text, PLAIN);

/** A small handbook: each chunk about one thing, so a question has one right answer. */
const HANDBOOK = [
  {
    id: 'install',
    title: 'Widgets › Installation',
    url: 'https://acme.example/install',
    content:
      'Install the widget toolkit with npm install acme-widgets. Node 18 or newer is required; the postinstall step compiles a small native addon.',
  },
  {
    id: 'cache',
    title: 'Widgets › Caching',
    url: 'https://acme.example/cache',
    content:
      'Rendered widgets are cached in memory for five minutes. Set cacheTtl to zero to turn the cache off, or call widget.invalidate() after a change.',
  },
  {
    id: 'themes',
    title: 'Widgets › Themes',
    url: 'https://acme.example/themes',
    content:
      'A theme is a JSON file of colours and spacing. Pass theme: "dark" to use the dark palette, or load your own file with loadTheme(path).',
  },
  {
    id: 'errors',
    title: 'Widgets › Troubleshooting',
    url: 'https://acme.example/errors',
    content:
      'When a widget throws ERR_WIDGET_DETACHED it was rendered after its container was removed from the page. Mount it again before calling render.',
  },
  {
    id: 'auth',
    title: 'Server › Authentication',
    url: 'https://acme.example/auth',
    content:
      'Every request to the widget server needs a bearer token. Tokens expire after one hour; refresh them with the /token endpoint.',
  },
  {
    id: 'deploy',
    title: 'Server › Deployment',
    url: 'https://acme.example/deploy',
    content: 'Deploy the widget server behind a reverse proxy. Health checks go to /healthz and readiness to /readyz.',
  },
];

/** One long page in three chunks that share 12 words of overlap, the way the crawler's chunker writes them. */
function overlappingPage(): { id: string; title: string; url: string; content: string }[] {
  const words = Array.from({ length: 150 }, (_, i) => `rotation${i % 7 === 0 ? ' keys' : ''} step${i}`)
    .join(' ')
    .split(' ');
  const parts = [words.slice(0, 80), words.slice(68, 160), words.slice(148)];
  return parts.map((part, i) => ({
    id: `rotate-${i}`,
    title: 'Server › Key rotation',
    url: 'https://acme.example/rotation',
    content: part.join(' '),
  }));
}

describe('retrieval: search, context, chunks, library filter (API + worker + Redis + SQLite)', () => {
  let h: Harness;
  let admin: string;
  let reader: string;

  beforeAll(async () => {
    h = await startHarness();
    admin = await h.createKey('admin');
    reader = await h.createKey('read');
    await ingest({
      libraryId: 'acme/widgets',
      name: 'Acme Widgets',
      description: 'The Acme widget toolkit',
      chunks: HANDBOOK,
    });
  });
  afterAll(async () => h.close());

  const ingest = (body: object) =>
    request(h.app).post('/api/ingest').set('Authorization', `Bearer ${admin}`).send(body).expect(200);
  const get = (path: string, key = reader) => request(h.app).get(path).set('Authorization', `Bearer ${key}`);

  it('searches hybrid when the library has vectors and answers the documented shape, best first', async () => {
    const res = await get('/api/search?q=how do I turn off the cache&libraryId=acme/widgets').expect(200);
    expect(res.body.query).toBe('how do I turn off the cache');
    expect(res.body.mode).toBe('hybrid');
    expect(res.body.results[0]).toEqual({
      libraryId: 'acme/widgets',
      libraryVersion: null,
      chunkId: 'cache',
      title: 'Widgets › Caching',
      url: 'https://acme.example/cache',
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      content: HANDBOOK[1]!.content,
      score: expect.any(Number),
      tokens: tokensOf(HANDBOOK[1]!.content),
    });
    const scores = res.body.results.map((r: { score: number }) => r.score);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    for (const result of res.body.results) expect(result.tokens).toBe(tokensOf(result.content));

    expect((await get('/api/search?q=ERR_WIDGET_DETACHED').expect(200)).body.results[0].chunkId).toBe('errors');
    expect(
      (await get('/api/search?q=dark palette&limit=1').expect(200)).body.results.map(
        (r: { chunkId: string }) => r.chunkId,
      ),
    ).toEqual(['themes']);
  });

  it('searches by keyword alone for a library without vectors, and says so', async () => {
    await ingest({
      libraryId: 'acme/plain',
      name: 'Plain',
      skipEmbeddings: true,
      chunks: [{ id: 'p1', content: 'Reticulating splines takes a while.' }],
    });
    const res = await get('/api/search?q=reticulating splines&libraryId=acme/plain').expect(200);
    expect(res.body.mode).toBe('keyword');
    expect(res.body.results).toEqual([
      {
        libraryId: 'acme/plain',
        libraryVersion: null,
        chunkId: 'p1',
        title: null,
        url: null,
        fetchedAt: expect.any(String),
        contentHash: expect.any(String),
        content: 'Reticulating splines takes a while.',
        score: expect.any(Number),
        tokens: expect.any(Number),
      },
    ]);
    // Across both libraries one of them has vectors, so both rankings run.
    const both = await get('/api/search?q=splines&libraryId=acme/plain&libraryId=acme/widgets').expect(200);
    expect(both.body.mode).toBe('hybrid');
    expect(both.body.results[0].chunkId).toBe('p1');
  });

  it('finds what a replace wrote and nothing it removed, then nothing at all after delete', async () => {
    await ingest({
      libraryId: 'acme/changing',
      name: 'Changing',
      chunks: [{ id: 'old', content: 'The legacy gearbox manual explains clutch adjustment.' }],
    });
    expect((await get('/api/search?q=gearbox clutch&libraryId=acme/changing').expect(200)).body.results).toHaveLength(
      1,
    );

    await ingest({
      libraryId: 'acme/changing',
      name: 'Changing',
      replace: true,
      chunks: [{ id: 'new', content: 'The electric motor guide covers battery charging.' }],
    });
    const stale = await get('/api/search?q=gearbox clutch&libraryId=acme/changing').expect(200);
    expect(stale.body.results.map((r: { chunkId: string }) => r.chunkId)).not.toContain('old');
    const fresh = await get('/api/search?q=battery charging&libraryId=acme/changing').expect(200);
    expect(fresh.body.results[0].chunkId).toBe('new');
    for (const mode of ['keyword', 'vector']) {
      const res = await get(`/api/search?q=legacy gearbox manual clutch&libraryId=acme/changing&mode=${mode}`).expect(
        200,
      );
      expect(res.body.results.map((r: { chunkId: string }) => r.chunkId)).not.toContain('old');
    }

    await request(h.app).delete('/api/libraries/acme/changing').set('Authorization', `Bearer ${admin}`).expect(200);
    const gone = await get('/api/search?q=battery charging').expect(200);
    expect(gone.body.results.filter((r: { libraryId: string }) => r.libraryId === 'acme/changing')).toEqual([]);
    await get('/api/search?q=battery&libraryId=acme/changing').expect(404);
  });

  it("packs context within budgets of 100, 1,000 and 5,000 tokens by the tokenizer's own count", async () => {
    const filler = Array.from({ length: 40 }, (_, i) => ({
      id: `filler-${i}`,
      title: `Reference › Option ${i}`,
      url: `https://acme.example/reference/${i}`,
      content: `Option ${i} of the widget renderer controls ${'layout spacing and widget rendering behaviour '.repeat(20)}`,
    }));
    await ingest({ libraryId: 'acme/big', name: 'Big', chunks: filler });
    for (const budget of [100, 1_000, 5_000]) {
      const txt = await get(`/api/context?libraryId=acme/big&query=widget rendering layout&tokens=${budget}`).expect(
        200,
      );
      expect(txt.headers['content-type']).toMatch(/^text\/plain/);
      expect(txt.text.length).toBeGreaterThan(0);
      expect(tokensOf(txt.text)).toBeLessThanOrEqual(budget);

      const json = await get(
        `/api/context?libraryId=acme/big&query=widget rendering layout&tokens=${budget}&format=json`,
      ).expect(200);
      expect(Object.keys(json.body).sort()).toEqual(['libraryId', 'pieces', 'query', 'tokens']);
      expect(json.body.tokens).toBeLessThanOrEqual(budget);
      expect(json.body.pieces.length).toBeGreaterThan(0);
      let sum = 0;
      for (const piece of json.body.pieces) {
        expect(Object.keys(piece).sort()).toEqual([
          'chunkId',
          'content',
          'contentHash',
          'fetchedAt',
          'libraryId',
          'libraryVersion',
          'title',
          'tokens',
          'url',
        ]);
        expect(piece.url).toMatch(/^https:\/\/acme\.example\/reference\//);
        expect(piece.title).toMatch(/^Reference › Option/);
        expect(piece.tokens).toBe(tokensOf(piece.content));
        expect(txt.text).toContain(piece.url);
        sum += piece.tokens;
      }
      expect(sum).toBeLessThanOrEqual(budget);
      // A larger budget holds more of the library.
      if (budget === 5_000) expect(json.body.pieces.length).toBeGreaterThan(4);
    }
  });

  it('merges neighbouring chunks of one page in page order and writes their overlap once', async () => {
    const page = overlappingPage();
    await ingest({ libraryId: 'acme/rotation', name: 'Rotation', chunks: page });
    const res = await get('/api/context?libraryId=acme/rotation&query=rotation keys&tokens=5000&format=json').expect(
      200,
    );
    expect(res.body.pieces).toHaveLength(1);
    const [piece] = res.body.pieces;
    expect(piece.chunkId).toBe('rotate-0');
    const words = piece.content.split(' ');
    // step0 … step149 each exactly once, in order.
    const steps = words.filter((w: string) => w.startsWith('step'));
    expect(steps).toEqual(Array.from({ length: 150 }, (_, i) => `step${i}`));
  });

  it('pages through chunks with their text until nextOffset is null', async () => {
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const res: request.Response = await get(`/api/chunks?libraryId=acme/widgets&offset=${offset}&limit=4`).expect(
        200,
      );
      expect(res.body.total).toBe(HANDBOOK.length);
      for (const chunk of res.body.chunks) {
        expect(Object.keys(chunk).sort()).toEqual(['content', 'id', 'title', 'tokenCount', 'url']);
      }
      seen.push(...res.body.chunks.map((c: { id: string }) => c.id));
      offset = res.body.nextOffset;
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen).toEqual(HANDBOOK.map((c) => c.id));
    const first = (await get('/api/chunks?libraryId=acme/widgets').expect(200)).body;
    expect(first.chunks[0]).toEqual({
      id: 'install',
      title: 'Widgets › Installation',
      url: 'https://acme.example/install',
      content: HANDBOOK[0]!.content,
      tokenCount: expect.any(Number),
    });
    expect(first.nextOffset).toBeNull();
  });

  it('filters and ranks libraries by q and still lists every library without it, with no credential', async () => {
    await ingest({
      libraryId: 'vercel/next.js',
      name: 'Next.js',
      description: 'The React framework',
      chunks: [{ id: 'n', content: 'Pages and routing.' }],
    });
    const byName = await request(h.app).get('/api/libraries?q=nextjs').expect(200);
    expect(byName.body.libraries.map((l: { id: string }) => l.id)).toEqual(['vercel/next.js']);
    const byDescription = await request(h.app).get('/api/libraries?q=react').expect(200);
    expect(byDescription.body.libraries.map((l: { id: string }) => l.id)).toEqual(['vercel/next.js']);
    const byWord = await request(h.app).get('/api/libraries?q=acme widgets').expect(200);
    expect(byWord.body.libraries[0].id).toBe('acme/widgets');
    expect((await request(h.app).get('/api/libraries?q=zzzz').expect(200)).body.libraries).toEqual([]);
    const all = await request(h.app).get('/api/libraries').expect(200);
    expect(all.body.libraries.length).toBeGreaterThanOrEqual(5);
  });

  it('takes a read key, an admin key or a session, and answers 401 without a credential', async () => {
    await get('/api/search?q=cache', reader).expect(200);
    await get('/api/search?q=cache', admin).expect(200);
    const cookie = await h.login();
    await request(h.app).get('/api/context?libraryId=acme/widgets&query=cache').set('Cookie', cookie).expect(200);
    for (const path of [
      '/api/search?q=cache',
      '/api/context?libraryId=acme/widgets&query=cache',
      '/api/chunks?libraryId=acme/widgets',
    ]) {
      const res = await request(h.app).get(path).expect(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
    await request(h.app).get('/api/search?q=cache').set('Authorization', 'Bearer dsk_nope').expect(401);
  });

  it.each([
    ['/api/search?q=', 400],
    ['/api/search?q=%20%20', 400],
    ['/api/search', 400],
    ['/api/search?q=a&q=b', 400],
    ['/api/search?q=cache&limit=0', 400],
    ['/api/search?q=cache&limit=51', 400],
    ['/api/search?q=cache&limit=ten', 400],
    ['/api/search?q=cache&mode=semantic', 400],
    ['/api/search?q=cache&libraryId=..%2Fetc', 400],
    ['/api/search?q=cache&libraryId=acme/missing', 404],
    ['/api/search?q=cache&libraryId=acme/plain&mode=vector', 400],
    ['/api/context?libraryId=acme/widgets&query=cache&tokens=99', 400],
    ['/api/context?libraryId=acme/widgets&query=cache&tokens=100001', 400],
    ['/api/context?libraryId=acme/widgets&query=cache&format=xml', 400],
    ['/api/context?libraryId=acme/widgets', 400],
    ['/api/context?libraryId=acme/missing&query=cache', 404],
    ['/api/chunks?libraryId=acme/widgets&limit=501', 400],
    ['/api/chunks?libraryId=acme/widgets&offset=-1', 400],
    ['/api/chunks', 400],
    ['/api/chunks?libraryId=acme/missing', 404],
  ])('%s → %i in the error shape', async (path, status) => {
    const res = await get(path).expect(status);
    expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String), code: expect.any(String) }));
  });
});

describe('retrieval with PUBLIC_SEARCH=true', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ PUBLIC_SEARCH: 'true' });
    const admin = await h.createKey('admin');
    await request(h.app)
      .post('/api/ingest')
      .set('Authorization', `Bearer ${admin}`)
      .send({
        libraryId: 'open/docs',
        name: 'Open',
        chunks: [{ id: 'a', content: 'Anyone may read this page about lighthouses.' }],
      })
      .expect(200);
  });
  afterAll(async () => h.close());

  it('answers search, context and chunks without a credential, but still refuses an invalid key', async () => {
    expect((await request(h.app).get('/api/search?q=lighthouses').expect(200)).body.results[0].chunkId).toBe('a');
    await request(h.app).get('/api/context?libraryId=open/docs&query=lighthouses').expect(200);
    await request(h.app).get('/api/chunks?libraryId=open/docs').expect(200);
    await request(h.app).get('/api/search?q=lighthouses').set('Authorization', 'Bearer dsk_invalid').expect(401);
  });
});
