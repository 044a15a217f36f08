/**
 * Plain Okapi BM25 (k1 1.2, b 0.75) over title + content: lowercased words, no stemming, no stop words, no field
 * weights. The textbook baseline the service's ranking is compared with, computed here, outside the service.
 */
export interface BaselineDoc {
  id: string;
  text: string;
}

const K1 = 1.2;
const B = 0.75;
const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

export class PlainBm25 {
  private readonly postings = new Map<string, Map<number, number>>();
  private readonly lengths: number[] = [];
  private readonly ids: string[] = [];
  private readonly averageLength: number;

  constructor(docs: BaselineDoc[]) {
    docs.forEach((doc, index) => {
      const tokens = words(doc.text);
      this.ids.push(doc.id);
      this.lengths.push(tokens.length);
      for (const token of tokens) {
        const posting = this.postings.get(token) ?? new Map<number, number>();
        posting.set(index, (posting.get(index) ?? 0) + 1);
        this.postings.set(token, posting);
      }
    });
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.lengths.length);
  }

  search(query: string, limit: number): string[] {
    const scores = new Map<number, number>();
    const n = this.ids.length;
    for (const term of new Set(words(query))) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5));
      for (const [doc, tf] of posting) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[doc]!) / this.averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / norm);
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([doc]) => this.ids[doc]!);
  }
}
