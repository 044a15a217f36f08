#!/usr/bin/env node
// The docshelf command: the CLI compiled to apps/cli/dist (by scripts/setup.sh and npm run build).
'use strict';
let cli;
try {
  cli = require('../dist/main.js');
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('dist/main.js')) {
    process.stderr.write(
      'docshelf is not built yet: run npm run build (or scripts/setup.sh) in the Docshelf checkout.\n',
    );
    process.exit(1);
  }
  throw error;
}
cli.main(process.argv).catch((error) => {
  process.stderr.write(`docshelf: ${error && error.stack ? error.stack : error}\n`);
  process.exitCode = 1;
});
