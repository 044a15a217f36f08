/**
 * Where a pruned keyword search spends its time as a library grows (`npm run bench -- keyword-profile`, only when
 * named): the big-library benchmark's text and questions (same seeds), written through the record store into one
 * SQLite file a size, and its keyword index timed alone (top 40, after a warm-up), with the plan's figures — chunks
 * scored, rounds, essential terms — and, for questions answered in one round, the plan's two queries timed apart:
 * the chunks holding any essential term, and those also holding a frequent term. `KEYWORD_PROFILE_SIZES` (default
 * `10000,200000`) resizes it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteDatabase, SqliteFtsKeywordIndex, SqliteRecordStores, type PrunedPlan } from '@docshelf/adapters';
import { queryTerms } from '@docshelf/core';
import { topicalChunk } from './big-library.bench';
import { percentile, random, topicalQuestions, topicalWords } from './search.bench';

const sizes = (process.env.KEYWORD_PROFILE_SIZES ?? '10000,200000').split(',').map(Number);
const QUESTIONS = 200;
const WORDS = 200;
const LIMIT = 40;
/** The pruned search leaves out terms in more than half the rows (sqlite-fts.pruned-search.ts). */
const WEIGHED_SHARE = 0.5;

const median = (values: number[]) =>
  values.length
    ? percentile(
        [...values].sort((a, b) => a - b),
        50,
      )
    : NaN;

/** Milliseconds `work` took, and what it gave. */
async function timed<T>(work: () => T | Promise<T>): Promise<[number, T]> {
  const started = process.hrtime.bigint();
  const value = await work();
  return [Number(process.hrtime.bigint() - started) / 1e6, value];
}

async function profileSize(size: number): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-keyword-profile-'));
  try {
    const db = openSqliteDatabase(path.join(dir, 'docshelf.sqlite'));
    const next = random(size);
    // As big-library.bench.ts writes it: pages of 20 chunks, each about one of size / 200 topics.
    const text = topicalWords(next, Math.max(10, size / 200));
    const libraryId = `big/library-${size}`;
    const libraries = new SqliteRecordStores(db).libraries;
    for (let sent = 0; sent < size; sent += 5_000) {
      const chunks = Array.from({ length: Math.min(5_000, size - sent) }, (_, i) =>
        topicalChunk(text, sent + i, WORDS),
      );
      await libraries.commitIngestion({
        library: { id: libraryId, name: 'Big library', sourceType: 'json' },
        ownerId: 'bench',
        chunks,
        replace: false,
        ingestionId: `bench-${sent}`,
        now: new Date(),
      });
    }
    const questions = topicalQuestions(next, text, QUESTIONS);
    let plan: PrunedPlan | undefined;
    const index = new SqliteFtsKeywordIndex(db, { onPlan: (p) => (plan = p) });
    const search = (q: string) => index.search({ terms: queryTerms(q), libraryIds: [libraryId], limit: LIMIT });
    for (const q of questions) await search(q);

    const { seq_base: base } = db.prepare('SELECT seq_base FROM libraries WHERE id = ?').get(libraryId) as {
      seq_base: number;
    };
    const count = db.prepare('SELECT count(*) FROM chunk_search WHERE chunk_search MATCH ?').pluck();
    const score = db
      .prepare(
        'SELECT rowid, bm25(chunk_search, 0, 2.5, 1) FROM chunk_search WHERE chunk_search MATCH ? AND rowid BETWEEN ? AND ?',
      )
      .raw();
    const scoreMs = async (match: string): Promise<[number, number]> => {
      const [ms, rows] = await timed(() => score.all(match, base, base + 2 ** 32 - 1));
      return [ms, rows.length];
    };
    const whole: number[] = [];
    const scored: number[] = [];
    const rounds: number[] = [];
    const essentials: number[] = [];
    const terms: number[] = [];
    const rarest: number[] = [];
    const rareMs: number[] = [];
    const rareRows: number[] = [];
    const bothMs: number[] = [];
    const bothRows: number[] = [];
    for (const q of questions) {
      const [ms] = await timed(() => search(q));
      if (!plan) continue;
      whole.push(ms);
      scored.push(plan.scored);
      rounds.push(plan.rounds);
      const quoted = [...new Set(queryTerms(q))].map((term) => `"${term.replace(/"/g, '""')}"`);
      const weighed = quoted
        .map((phrase) => ({ phrase, documents: count.get(phrase) as number }))
        .filter((term) => term.documents > 0 && term.documents <= size * WEIGHED_SHARE)
        .sort((a, b) => a.documents - b.documents);
      essentials.push(plan.essential);
      terms.push(plan.terms);
      if (weighed[0]) rarest.push(weighed[0].documents);
      if (!plan.pruned || plan.rounds !== 1) continue;
      const rare = weighed.slice(0, plan.essential).map((term) => term.phrase);
      const frequent = weighed.slice(plan.essential).map((term) => term.phrase);
      const [a, aRows] = await scoreMs(rare.join(' OR '));
      rareMs.push(a);
      rareRows.push(aRows);
      if (frequent.length === 0) continue;
      const [b, bRows] = await scoreMs(`(${rare.join(' OR ')}) AND (${frequent.join(' OR ')})`);
      bothMs.push(b);
      bothRows.push(bRows);
    }
    db.close();
    return (
      `| ${size.toLocaleString('en')} | ${median(whole).toFixed(1)} ms | ${median(scored).toLocaleString('en')} ` +
      `| ${median(rounds)}, ${median(essentials)} of ${median(terms)} | ${median(rarest).toLocaleString('en')} ` +
      `| ${rareMs.length} | ${median(rareMs).toFixed(1)} ms, ${median(rareRows).toLocaleString('en')} rows ` +
      `| ${median(bothMs).toFixed(1)} ms, ${median(bothRows).toLocaleString('en')} rows |`
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchKeywordProfile(): Promise<void> {
  const rows: string[] = [];
  for (const size of sizes) rows.push(await profileSize(size));
  console.log(
    `\nkeyword profile: the big-library text, ${QUESTIONS} questions, top ${LIMIT}, the keyword index alone (p50s)`,
  );
  console.log(
    "| chunks | keyword index | chunks scored | rounds, essential terms | the rarest term's chunks | one-round questions | query: any essential term | query: essential and frequent |",
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}
