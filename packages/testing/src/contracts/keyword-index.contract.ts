import type { ChunkInput, KeywordIndex, KeywordQuery, LibraryStore } from '@docshelf/core';
import { announceContractTarget } from '../targets/announce-target';

export interface KeywordIndexHarness {
  /** The library store whose writes the index follows. */
  libraries: LibraryStore;
  keywords: KeywordIndex;
  cleanup(): Promise<void>;
}

/** What an adapter's ranking can promise; an engine without inverse document frequency says so, and why. */
export type KeywordIndexCapabilities = { bm25: true } | { bm25: false; reason: string };

const T0 = new Date('2025-01-01T00:00:00.000Z');

const chunk = (id: string, content: string, title = `Section ${id}`): ChunkInput => ({
  id,
  title,
  content,
  url: `https://docs.example.com/${id}`,
});

/**
 * Behaviour every KeywordIndex adapter must show, driven through the record store it belongs to: the index follows
 * every chunk write, replace and delete with no call of its own.
 */
export function describeKeywordIndexContract(
  label: string,
  create: () => Promise<KeywordIndexHarness>,
  capabilities: KeywordIndexCapabilities = { bm25: true },
): void {
  const rarity = 'ranks by BM25: a rarer term outweighs a common one';
  if (!capabilities.bm25) announceContractTarget('KeywordIndex', label, `"${rarity}" skipped: ${capabilities.reason}`);

  describe(`KeywordIndex contract: ${label}`, () => {
    let harness: KeywordIndexHarness;

    beforeEach(async () => {
      harness = await create();
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    const ingest = (libraryId: string, chunks: ChunkInput[], replace = false) =>
      harness.libraries.commitIngestion({
        library: { id: libraryId, name: libraryId, sourceType: 'llms_txt' },
        ownerId: 'owner',
        chunks,
        replace,
        ingestionId: `${libraryId}-${Date.now()}`,
        now: T0,
      });
    const search = (terms: string[], libraryIds: string[] | null = null, limit = 10) =>
      harness.keywords.search({ terms, libraryIds, limit } satisfies KeywordQuery);
    const ids = async (...args: Parameters<typeof search>) => (await search(...args)).map((hit) => hit.chunkId);

    it('finds chunks by words of their content and of their title, best first, with the library and a score', async () => {
      await ingest('acme/docs', [
        chunk('install', 'Run the installer and answer its questions about the target directory.', 'Installation'),
        chunk('config', 'The configuration file lives in the home directory.', 'Configuration'),
        chunk('other', 'Nothing relevant is written here at all.', 'Misc'),
      ]);
      const hits = await search(['configuration']);
      expect(hits.map((h) => h.chunkId)).toEqual(['config']);
      expect(hits[0]).toMatchObject({ libraryId: 'acme/docs', chunkId: 'config', score: expect.any(Number) });
      // An index that reports the chunk's page reports the right one.
      if (hits[0]!.url !== undefined) expect(hits[0]!.url).toBe('https://docs.example.com/config');
      expect(await ids(['installer'])).toEqual(['install']);
      expect(await ids(['directory'])).toEqual(expect.arrayContaining(['install', 'config']));
      expect(await ids(['absentword'])).toEqual([]);
    });

    const ingestRankingFixture = () =>
      ingest('acme/docs', [
        chunk('common-1', 'widget widget widget usage', 'One'),
        chunk('common-2', 'widget placement and widget sizing', 'Two'),
        chunk('rare', 'the gizmo is configured once; widget', 'Three'),
        chunk('body-only', 'a note about throttling the queue and other things that come up', 'Four'),
        chunk('titled', 'how requests are limited when they arrive too fast for the queue', 'Throttling'),
      ]);

    if (capabilities.bm25) {
      it(rarity, async () => {
        await ingestRankingFixture();
        expect((await ids(['gizmo', 'widget']))[0]).toBe('rare');
      });
    } else {
      it.skip(`${rarity} — skipped: ${capabilities.reason}`, () => {});
    }

    it('ranks more occurrences above fewer and a title match above a body match, best first', async () => {
      await ingestRankingFixture();
      const widget = await ids(['widget']);
      expect(widget.indexOf('common-1')).toBeLessThan(widget.indexOf('rare'));
      expect((await ids(['throttling']))[0]).toBe('titled');
      const scores = (await search(['widget'])).map((hit) => hit.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    });

    it('matches any of the terms and stems English words', async () => {
      await ingest('acme/docs', [
        chunk('remove', 'This function removes the file from disk.'),
        chunk('connect', 'Connections are retried.'),
      ]);
      expect(await ids(['removing', 'nonexistentterm'])).toEqual(['remove']);
      expect(await ids(['connected'])).toEqual(['connect']);
    });

    it('searches only the libraries asked for; null searches all, an empty list none', async () => {
      await ingest('acme/a', [chunk('a1', 'shared topic in library a')]);
      await ingest('acme/b', [chunk('b1', 'shared topic in library b')]);
      await ingest('acme/a-b', [chunk('c1', 'shared topic in library a-b')]);
      expect((await search(['shared'], ['acme/a'])).map((h) => [h.libraryId, h.chunkId])).toEqual([['acme/a', 'a1']]);
      expect((await search(['shared'], ['acme/a', 'acme/b'])).map((h) => h.libraryId).sort()).toEqual([
        'acme/a',
        'acme/b',
      ]);
      expect((await search(['shared'])).map((h) => h.libraryId).sort()).toEqual(['acme/a', 'acme/a-b', 'acme/b']);
      expect(await search(['shared'], [])).toEqual([]);
      expect(await search(['shared'], ['acme/none'])).toEqual([]);
    });

    it("finds a page's later chunks by the words of the page's lead", async () => {
      const page = 'https://docs.example.com/scalar';
      await ingest('acme/docs', [
        {
          id: 'intro',
          title: 'scalar(1)',
          url: page,
          content: 'scalar - A tool for managing large repositories\n\n## SYNOPSIS',
        },
        { id: 'options', title: 'scalar(1) › OPTIONS', url: page, content: '--full-clone clones the whole history.' },
        { id: 'other', title: 'clone', url: 'https://docs.example.com/clone', content: 'Cloning copies history.' },
      ]);
      expect((await ids(['managing'])).sort()).toEqual(['intro', 'options']);
    });

    it('follows updates, replaces and deletes with no stale hit', async () => {
      await ingest('acme/docs', [
        chunk('one', 'the old wording of the page'),
        chunk('two', 'a second page about kittens'),
      ]);
      await ingest('acme/docs', [chunk('one', 'the new phrasing of the page')]);
      expect(await ids(['wording'])).toEqual([]);
      expect(await ids(['phrasing'])).toEqual(['one']);
      await ingest('acme/docs', [chunk('three', 'only this one is left about puppies')], true);
      expect(await ids(['kittens'])).toEqual([]);
      expect(await ids(['phrasing'])).toEqual([]);
      expect(await ids(['puppies'])).toEqual(['three']);
      await harness.libraries.deleteLibrary('acme/docs');
      expect(await ids(['puppies'])).toEqual([]);
    });

    it('keeps to the limit and treats query syntax as plain words', async () => {
      await ingest(
        'acme/docs',
        Array.from({ length: 12 }, (_, i) => chunk(`c${i}`, `repeated topic number ${i}`)),
      );
      expect(await search(['topic'], null, 5)).toHaveLength(5);
      for (const term of ['"', 'AND', 'NOT', 'NEAR', '*', 'topic"', 'title:', '-', '$where', '{a b}']) {
        await expect(search([term, 'topic'], ['acme/docs'])).resolves.toEqual(expect.any(Array));
      }
      expect(await search([], null)).toEqual([]);
    });
  });
}
