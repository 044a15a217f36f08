import type { Database } from './sqlite.database';
import { statement } from './sqlite.statements';

/** Rows of an index or of one library's key range, and the tokens they hold in all columns. */
export interface Totals {
  rows: number;
  tokens: number;
}

/** One library's figures, with the tokens of each of its rows by key (less the range's first). */
export interface LibraryTotals extends Totals {
  lengths: Int32Array;
}

/** Counts kept between writes; the cache is emptied when it grows past this many entries. */
const MAX_CACHED = 20_000;

/** What is kept of one library until its chunks are written: its figures and the rows matching each phrase. */
interface LibraryRecord {
  writes: number;
  totals: LibraryTotals;
  counts: Map<string, number>;
}

/**
 * What BM25 counts, read from the FTS5 table `chunk_search`'s own records: the whole index's rows and tokens (what
 * FTS5's bm25() ranks with), each library's (its key range's docsize rows) and the rows matching a phrase in either.
 * A library's figures and counts are kept until its own chunks are written (`chunk_writes`, kept by triggers, counts
 * the writes of each key range, by any process), so a crawl of another library does not make them read again; the
 * whole index's counts are kept until the next write to the database.
 */
export class KeywordStatistics {
  private counts = new Map<string, number>();
  private libraries = new Map<number, LibraryRecord>();
  private cached = 0;
  private stamp = '';

  constructor(private readonly db: Database) {}

  /** Forgets the whole index's counts when the database was written since (by this connection or another). */
  refresh(): void {
    const version = statement(this.db, 'PRAGMA data_version').pluck().get() as number;
    const changes = statement(this.db, 'SELECT total_changes()').pluck().get() as number;
    const stamp = `${version}:${changes}`;
    if (stamp !== this.stamp) {
      this.cached -= this.counts.size;
      this.counts = new Map();
      this.stamp = stamp;
    }
    if (this.cached >= MAX_CACHED) {
      this.counts = new Map();
      this.libraries = new Map();
      this.cached = 0;
    }
  }

  /** The whole index's rows and tokens, from FTS5's averages record; null if it cannot be read. */
  store(): Totals | null {
    const record = statement(this.db, 'SELECT block FROM chunk_search_data WHERE id = 1').get() as
      { block: Buffer } | undefined;
    if (!record) return null;
    const [rows, ...columns] = readVarints(record.block);
    return rows === undefined ? null : { rows, tokens: columns.reduce((sum, n) => sum + n, 0) };
  }

  /** The rows of one library's key range and their tokens, from FTS5's sizes of each row (its docsize records). */
  library(range: [number, number]): LibraryTotals {
    return this.record(range).totals;
  }

  /** How many rows match `match` (a quoted phrase), in a library's key range or in the whole index. */
  documents(match: string, range: [number, number] | null): number {
    const counts = range ? this.record(range).counts : this.counts;
    let documents = counts.get(match);
    if (documents === undefined) {
      documents = range
        ? (statement(this.db, `${COUNT} AND rowid BETWEEN ? AND ?`)
            .pluck()
            .get(match, ...range) as number)
        : (statement(this.db, COUNT).pluck().get(match) as number);
      counts.set(match, documents);
      this.cached++;
    }
    return documents;
  }

  /** The library's record, read again when its chunks were written since it was kept. */
  private record(range: [number, number]): LibraryRecord {
    const writes =
      (statement(this.db, 'SELECT writes FROM chunk_writes WHERE seq_base = ?').pluck().get(range[0]) as
        number | undefined) ?? 0;
    let record = this.libraries.get(range[0]);
    if (!record || record.writes !== writes) {
      if (record) this.cached -= record.counts.size + 1;
      record = { writes, totals: this.readTotals(range), counts: new Map() };
      this.libraries.set(range[0], record);
      this.cached++;
    }
    return record;
  }

  private readTotals(range: [number, number]): LibraryTotals {
    const sizes = statement(this.db, 'SELECT id, sz FROM chunk_search_docsize WHERE id BETWEEN ? AND ? ORDER BY id')
      .raw()
      .all(...range) as [number, Buffer][];
    const lengths = new Int32Array(sizes.length > 0 ? sizes[sizes.length - 1]![0] - range[0] + 1 : 0);
    let tokens = 0;
    for (const [id, sz] of sizes) tokens += lengths[id - range[0]] = sumVarints(sz);
    return { rows: sizes.length, tokens, lengths };
  }
}

const COUNT = 'SELECT count(*) FROM chunk_search WHERE chunk_search MATCH ?';

/** SQLite's variable-length integer (1–9 bytes, big-endian groups of 7 bits, the ninth byte whole), as FTS5 writes it. */
export function readVarint(bytes: Uint8Array): number | null {
  return readVarints(bytes, 1)[0] ?? null;
}

/** The varints one after another in `bytes` (at most `limit`). */
export function readVarints(bytes: Uint8Array, limit = Infinity): number[] {
  const values: number[] = [];
  let value = 0;
  let length = 0;
  for (let i = 0; i < bytes.length && values.length < limit; i++) {
    const byte = bytes[i]!;
    if (length === 8) {
      values.push(value * 256 + byte);
      [value, length] = [0, 0];
      continue;
    }
    value = value * 128 + (byte & 0x7f);
    length++;
    if ((byte & 0x80) === 0) {
      values.push(value);
      [value, length] = [0, 0];
    }
  }
  return values;
}

/** The tokens of a row in all its columns: the sum of the varints of its docsize record (no array, once a row). */
export function sumVarints(bytes: Uint8Array): number {
  let sum = 0;
  let value = 0;
  let length = 0;
  for (const byte of bytes) {
    if (length === 8) {
      sum += value * 256 + byte;
      [value, length] = [0, 0];
    } else if ((byte & 0x80) === 0) {
      sum += value * 128 + byte;
      [value, length] = [0, 0];
    } else {
      value = value * 128 + (byte & 0x7f);
      length++;
    }
  }
  return sum;
}
