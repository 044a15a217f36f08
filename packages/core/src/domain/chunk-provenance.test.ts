import { createHash } from 'node:crypto';
import { stampIngestedChunks, stampPageChunks } from './chunk-provenance';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const NOW = new Date('2025-03-04T05:06:07.000Z');

describe('stampIngestedChunks', () => {
  it("stamps every chunk with the ingest's time and its page's hash: the page's chunk texts as sent, joined", () => {
    const stamped = stampIngestedChunks(
      [
        { id: 'a1', content: 'First part.', url: 'https://d.test/a' },
        { id: 'b1', content: 'Other page.', url: 'https://d.test/b' },
        { id: 'a2', content: 'Second part.', url: 'https://d.test/a' },
        { id: 'loose', content: 'No page at all.' },
      ],
      NOW,
    );
    expect(stamped.map((c) => c.fetchedAt)).toEqual(Array(4).fill('2025-03-04T05:06:07.000Z'));
    expect(stamped.map((c) => [c.id, c.contentHash])).toEqual([
      ['a1', sha256('First part.\n\nSecond part.')],
      ['b1', sha256('Other page.')],
      ['a2', sha256('First part.\n\nSecond part.')],
      ['loose', sha256('No page at all.')],
    ]);
    expect(stamped[0]).toMatchObject({ id: 'a1', content: 'First part.', url: 'https://d.test/a' });
  });
});

describe('stampPageChunks', () => {
  it("gives each chunk of a page the page's fetch time and hash", () => {
    const page = { fetchedAt: NOW.toISOString(), contentHash: 'abc' };
    expect(stampPageChunks([{ id: 'x', content: 'X' }], page)).toEqual([{ id: 'x', content: 'X', ...page }]);
  });
});
