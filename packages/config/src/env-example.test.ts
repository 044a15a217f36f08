import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES, loadConfig } from './index';

const EXAMPLE = path.join(__dirname, '../../../.env.example');
const CONFIGURATION_PAGE = path.join(__dirname, '../../../docs/configuration.md');

/** `NAME=value` lines of the example, set or commented out (`# NAME=`), in order. */
function exampleLines(): { name: string; value: string; commented: boolean }[] {
  return readFileSync(EXAMPLE, 'utf8')
    .split('\n')
    .flatMap((line) => {
      const match = /^(# ?)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      return match ? [{ name: match[2]!, value: match[3]!, commented: Boolean(match[1]) }] : [];
    });
}

describe('.env.example', () => {
  it('documents every variable the configuration reads, and no other', () => {
    const documented = exampleLines().map((line) => line.name);
    expect([...new Set(documented)].sort()).toEqual([...CONFIG_VARIABLES].sort());
    expect(documented).toHaveLength(new Set(documented).size);
  });

  it('gives values the configuration accepts', () => {
    const env = Object.fromEntries(
      exampleLines()
        .filter((line) => !line.commented)
        .map((line) => [line.name, line.value]),
    );
    expect(() => loadConfig(env)).not.toThrow();
  });
});

describe('docs/configuration.md', () => {
  it('describes every variable the configuration reads, and no other, in its table of variables', () => {
    const described = readFileSync(CONFIGURATION_PAGE, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap(variablesOfRow);
    expect([...new Set(described)].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});

/**
 * The variables a row of the table describes: its first column's `NAME`s (`A` / `B`, `A`, `B`), and for a family
 * `NAME_<KIND>` the names its row lists as `_SUFFIX`es.
 */
function variablesOfRow(line: string): string[] {
  const [, first = '', ...rest] = line.split('|');
  const names = [...first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!);
  const family = /`([A-Z][A-Z0-9_]*)_<[A-Z]+>`/.exec(first);
  if (!family) return names;
  const suffixes = [...rest.join('|').matchAll(/`_([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!);
  return [...names, ...suffixes.map((suffix) => `${family[1]!}_${suffix}`)];
}
