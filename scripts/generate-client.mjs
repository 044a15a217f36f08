// `npm run generate:client`: writes the API's OpenAPI document to packages/client/openapi.json and generates the typed
// client from it (packages/client/src/generated: one function per operation, named by its operationId, and the types
// of every request and response). Run it after changing an endpoint. `-- --check` writes nothing and fails when the
// committed document or client differ from what the API's current endpoints would generate (a test runs it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@hey-api/openapi-ts';
import { buildOpenApiDocument } from '@docshelf/api/openapi';

const root = path.resolve(import.meta.dirname, '..');
const committed = { document: 'packages/client/openapi.json', client: 'packages/client/src/generated' };

/** Writes the document and the client generated from it into `folder` (the document as `openapi.json`). */
async function generate(folder) {
  const documentFile = path.join(folder, 'openapi.json');
  const output = path.join(folder, 'generated');
  fs.writeFileSync(documentFile, JSON.stringify(buildOpenApiDocument(), null, 2) + '\n');
  await createClient({
    input: documentFile,
    output,
    // Calls answer their data or throw: an error is never mistaken for a result.
    plugins: [{ name: '@hey-api/client-fetch', throwOnError: true }, '@hey-api/typescript', '@hey-api/sdk'],
    logs: { level: 'warn' },
  });
  const prettier = spawnSync(
    path.join(root, 'node_modules/.bin/prettier'),
    ['--config', path.join(root, '.prettierrc.json'), '--write', '--log-level', 'warn', output, documentFile],
    { stdio: 'inherit' },
  );
  if (prettier.status !== 0) throw new Error('prettier failed on the generated client');
  return { documentFile, output };
}

/** Every file under `folder`, as paths relative to it, sorted. */
function filesUnder(folder) {
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

async function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-client-'));
  try {
    const fresh = await generate(scratch);
    if (process.argv.includes('--check')) {
      const differing = [];
      const read = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);
      if (read(fresh.documentFile) !== read(path.join(root, committed.document))) differing.push(committed.document);
      const names = new Set([...filesUnder(fresh.output), ...filesUnder(path.join(root, committed.client))]);
      for (const name of names) {
        if (read(path.join(fresh.output, name)) !== read(path.join(root, committed.client, name))) {
          differing.push(path.join(committed.client, name));
        }
      }
      if (differing.length > 0) {
        process.stderr.write(
          `generate:client: out of step with the API (run npm run generate:client):\n  ${differing.join('\n  ')}\n`,
        );
        process.exit(1);
      }
      process.stdout.write('generate:client: the committed document and client are those the API generates\n');
      return;
    }
    fs.copyFileSync(fresh.documentFile, path.join(root, committed.document));
    fs.rmSync(path.join(root, committed.client), { recursive: true, force: true });
    fs.cpSync(fresh.output, path.join(root, committed.client), { recursive: true });
    process.stdout.write(`generate:client: wrote ${committed.document} and ${committed.client}/\n`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`generate:client: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
