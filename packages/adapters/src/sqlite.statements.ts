import type { Statement } from 'better-sqlite3';
import type { Database } from './sqlite.database';

const prepared = new WeakMap<Database, Map<string, Statement<unknown[]>>>();

/**
 * The connection's prepared statement for `sql`, prepared once. Preparing a query costs about 0.1 ms once the
 * process has done other work, as much as some of the queries of a search take to run. For fixed SQL texts only.
 */
export function statement(db: Database, sql: string): Statement<unknown[]> {
  let statements = prepared.get(db);
  if (!statements) prepared.set(db, (statements = new Map<string, Statement<unknown[]>>()));
  let found = statements.get(sql);
  if (!found) statements.set(sql, (found = db.prepare(sql)));
  return found;
}
