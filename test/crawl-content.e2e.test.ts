import request from 'supertest';
import { describeDocsSiteCrawl } from '@docshelf/testing/e2e/docs-site-crawl';
import { serveFixtures } from '@docshelf/testing/e2e/fixture-site';

const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean);

describeDocsSiteCrawl('what it keeps (chunks, renderers, pages without content) and refuses', (suite) => {
  const { crawl, chunksOf } = suite;

  it('chunks a long page into ~500-word segments with 50-word overlaps and keeps its code block whole', async () => {
    await crawl({
      libraryId: 'fixture/long',
      name: 'Long',
      urls: [`${suite.site.origin}/api/reference.html`],
      maxDepth: 0,
    }).expect(200);
    expect(suite.site.pagesFetched()).toEqual(['/api/reference.html']);
    const chunks = await chunksOf('fixture/long');
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    for (const chunk of chunks.slice(0, -1)) {
      const n = wordsOf(chunk.content).length;
      expect(n).toBeGreaterThan(350);
      expect(n).toBeLessThan(700);
    }
    for (let i = 1; i < chunks.length; i++) {
      const tail = wordsOf(chunks[i - 1]!.content)
        .slice(-20)
        .join(' ');
      expect(chunks[i]!.content.replace(/\s+/g, ' ')).toContain(tail.replace(/\s+/g, ' '));
    }
    // One chunk holds the whole block; an overlap that repeats its tail re-opens the fence with the language.
    const whole = chunks.filter(
      (c) => c.content.includes('createWidget({ id: 0,') && c.content.includes('createWidget({ id: 39,'),
    );
    expect(whole).toHaveLength(1);
    expect(whole[0]!.content).toMatch(
      /```typescript\nconst widget0 = [\s\S]*const widget39 = createWidget\(\{ id: 39, kind: 'gauge' \}\);\n```/,
    );
    for (const chunk of chunks) {
      expect((chunk.content.match(/```/g) ?? []).length % 2).toBe(0);
      if (chunk.content.includes('createWidget')) expect(chunk.content).toContain('```typescript\n');
    }
  });

  it('re-crawls idempotently: same chunk ids, no duplicates', async () => {
    const body = {
      libraryId: 'fixture/again',
      name: 'Again',
      urls: [`${suite.site.origin}/index.html`],
      renderer: 'auto',
    };
    const first = await crawl(body).expect(200);
    const before = (await chunksOf('fixture/again')).map((c) => c.id);
    const second = await crawl(body).expect(200);
    const after = (await chunksOf('fixture/again')).map((c) => c.id);
    expect(second.body.chunksIngested).toBe(first.body.chunksIngested);
    expect(after).toEqual(before);
    expect(new Set(after).size).toBe(after.length);
  });

  it('renderer auto extracts the same chunks as the browser, using it only for the script-rendered page', async () => {
    const urls = [
      `${suite.site.origin}/guide/getting-started.html`,
      `${suite.site.origin}/guide/configuration.html`,
      `${suite.site.origin}/rendered.html`,
    ];
    await crawl({ libraryId: 'fixture/browser', name: 'B', urls }).expect(200);
    await crawl({ libraryId: 'fixture/auto', name: 'A', urls, renderer: 'auto' }).expect(200);
    const strip = (chunks: { id: string; content: string; title?: string }[]) =>
      chunks.map(({ id, content, title }) => ({ id, content, title }));
    const browser = strip(await chunksOf('fixture/browser'));
    expect(strip(await chunksOf('fixture/auto'))).toEqual(browser);
    expect(browser.map((c) => c.content).join('\n')).toContain('SCRIPTRENDERED');
  });

  it('lists a page whose text no rule calls content in errors, and keeps the pages that have content', async () => {
    const prose = 'The only prose of this page stands in a form field, which is never content. '.repeat(6);
    const pages: Record<string, string> = {
      '/start': `<html><head><title>Start</title></head><body><main><h1>Start</h1><p>${'Real content here. '.repeat(8)}</p><a href="/field">Field</a></main></body></html>`,
      '/field': `<html><head><title>Field</title></head><body><main><h1>Field</h1><textarea>${prose}</textarea></main></body></html>`,
    };
    const fields = await serveFixtures({
      routes: (req, res) => {
        const html = pages[new URL(req.url ?? '/', 'http://x').pathname];
        if (!html) return false;
        res.writeHead(200, { 'content-type': 'text/html' }).end(html);
        return true;
      },
    });
    try {
      const res = await crawl({
        libraryId: 'fixture/lost',
        name: 'Lost',
        urls: [`${fields.origin}/start`],
        renderer: 'http',
      }).expect(200);
      expect(res.body).toMatchObject({ pagesCrawled: 2 });
      expect(res.body.errors).toEqual([
        expect.stringMatching(
          new RegExp(`^${fields.origin}/field: no content found in a page whose body holds about \\d+ words of text$`),
        ),
      ]);
      expect((await chunksOf('fixture/lost')).map((c) => new URL(c.url!).pathname)).toContain('/start');
    } finally {
      await fields.close();
    }
  });

  it('answers 400 when no content could be extracted, and validates the request', async () => {
    const none = await crawl({
      libraryId: 'fixture/none',
      name: 'None',
      urls: [`${suite.site.origin}/missing.html`],
    }).expect(400);
    expect(none.body).toMatchObject({ code: 'NO_CONTENT', details: [`${suite.site.origin}/missing.html: HTTP 404`] });
    await request(suite.h.app).get('/api/libraries/fixture/none').expect(404);

    const bad = await crawl({ libraryId: 'x', name: 'X', urls: ['ftp://example.com/'] }).expect(400);
    expect(bad.body.details[0].path).toBe('urls.0');
    await crawl({ libraryId: 'x', name: 'X', urls: [] }).expect(400);
    // A pattern whose matching could take seconds per path is refused before any work starts.
    const slow = await crawl({
      libraryId: 'x',
      name: 'X',
      urls: [`${suite.site.origin}/`],
      includePaths: ['/*a*a*a*b'],
    }).expect(400);
    expect(slow.body.details[0]).toMatchObject({
      path: 'includePaths.0',
      message: expect.stringMatching(/at most 2 '\*' wildcards/),
    });
    const deep = await crawl({
      libraryId: 'x',
      name: 'X',
      urls: [`${suite.site.origin}/`],
      excludePaths: ['/**/a*/**/a*/**/a*/c'],
    }).expect(400);
    expect(deep.body.details[0]).toMatchObject({
      path: 'excludePaths.0',
      message: expect.stringMatching(/at most 2 '\*\*' segments/),
    });
    await request(suite.h.app).get('/api/libraries/x').expect(404);
    await crawl({ name: 'X', urls: [`${suite.site.origin}/`] }).expect(400);
    await request(suite.h.app)
      .post('/api/crawl')
      .send({ libraryId: 'x', name: 'X', urls: [`${suite.site.origin}/`] })
      .expect(401);
    const read = await suite.h.createKey('read');
    await request(suite.h.app)
      .post('/api/crawl')
      .set('Authorization', `Bearer ${read}`)
      .send({ libraryId: 'x', name: 'X', urls: [`${suite.site.origin}/`] })
      .expect(403);
  });
});
