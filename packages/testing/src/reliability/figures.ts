import fs from 'node:fs';

/** One line of the reliability table: what a scenario tried, what it broke, and what the service lost or doubled. */
export interface Figure {
  scenario: string;
  /** Requests sent to the service. */
  requests: number;
  /** Faults injected: processes killed, Redis stopped, engines failing, hostile answers. */
  faults: number;
  /** 5xx answers; 0 wherever the input was bad. */
  serverErrors: number;
  /** Rows that should exist and do not (chunks, vectors, jobs). */
  rowsLost: number;
  /** Rows, vectors, backups or deliveries that exist twice. */
  duplicates: number;
  /** Time to recover after the fault ended, in ms, where there is one. */
  recoveryMs?: number;
  note?: string;
}

/** Appends a figure for the table the reliability run prints at its end (packages/testing/src/jest/figures-reporter.cjs). */
export function recordFigure(figure: Figure): void {
  const file = process.env.DOCSHELF_RELIABILITY_FIGURES;
  if (!file) return;
  fs.appendFileSync(file, `${JSON.stringify(figure)}\n`);
}
