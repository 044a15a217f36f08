import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from './error-codes';

const API_REFERENCE = path.join(__dirname, '../../../docs/api.md');

/** The rows of the API reference's table of error codes: code, statuses, meaning. */
function documentedCodes(): string[][] {
  const errors = readFileSync(API_REFERENCE, 'utf8').split(/^## Errors$/m)[1] ?? '';
  return errors
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

describe('ERROR_CODES', () => {
  it('is the table of codes in the API reference (docs/api.md, Errors), row for row', () => {
    const expected = Object.entries(ERROR_CODES).map(([code, { statuses, meaning }]) => [
      `\`${code}\``,
      statuses.join(', '),
      meaning,
    ]);
    expect(documentedCodes()).toEqual(expected);
  });

  it('gives every code a status of an error and a meaning', () => {
    for (const { statuses, meaning } of Object.values(ERROR_CODES)) {
      expect(statuses.length).toBeGreaterThan(0);
      for (const status of statuses) expect(status >= 400 && status <= 599).toBe(true);
      expect(meaning.length).toBeGreaterThan(10);
    }
  });
});
