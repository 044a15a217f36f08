// Prints the reliability table at the end of a run that included the reliability scenarios.
const fs = require('node:fs');

const COLUMNS = [
  ['scenario', 'scenario'],
  ['requests', 'requests'],
  ['faults', 'faults injected'],
  ['serverErrors', '5xx answers'],
  ['rowsLost', 'rows lost'],
  ['duplicates', 'duplicates'],
  ['recoveryMs', 'recovery ms'],
  ['note', 'note'],
];

class FiguresReporter {
  onRunComplete() {
    const file = process.env.DOCSHELF_RELIABILITY_FIGURES;
    if (!file || !fs.existsSync(file)) return;
    const rows = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    fs.rmSync(file, { force: true });
    if (rows.length === 0) return;
    rows.sort((a, b) => a.scenario.localeCompare(b.scenario));
    const cell = (row, key) => (row[key] === undefined ? '' : String(row[key]));
    const lines = [
      `| ${COLUMNS.map(([, title]) => title).join(' | ')} |`,
      `|${COLUMNS.map(() => '---').join('|')}|`,
      ...rows.map((row) => `| ${COLUMNS.map(([key]) => cell(row, key)).join(' | ')} |`),
    ];
    const total = (key) => rows.reduce((sum, row) => sum + (row[key] ?? 0), 0);
    lines.push(
      `| all | ${total('requests')} | ${total('faults')} | ${total('serverErrors')} | ${total('rowsLost')} | ${total('duplicates')} | | |`,
    );
    process.stdout.write(`\nReliability figures\n\n${lines.join('\n')}\n`);
  }
}

module.exports = FiguresReporter;
