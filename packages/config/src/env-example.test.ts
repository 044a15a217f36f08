import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES, loadConfig } from './index';

const EXAMPLE = path.join(__dirname, '../../../.env.example');

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
