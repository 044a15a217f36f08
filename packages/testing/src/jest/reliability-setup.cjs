// Where the reliability scenarios write their figures; the figures reporter prints them when the run ends.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async () => {
  const file = path.join(os.tmpdir(), `docshelf-reliability-${process.pid}.jsonl`);
  fs.writeFileSync(file, '');
  process.env.DOCSHELF_RELIABILITY_FIGURES = file;
};
