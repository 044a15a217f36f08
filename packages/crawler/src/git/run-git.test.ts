import fs from 'node:fs';
import path from 'node:path';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';
import { runGit } from './run-git';

describe('runGit', () => {
  it("gives git none of the service user's configuration: only its own hooks folder and no template", async () => {
    const { dir, removeDir } = createTempDir('docshelf-run-git-');
    const config = path.join(dir, 'gitconfig');
    fs.writeFileSync(config, '[core]\n\thooksPath = /somewhere/hooks\n[init]\n\ttemplateDir = /somewhere/template\n');
    const saved = { HOME: process.env.HOME, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL };
    Object.assign(process.env, { HOME: dir, GIT_CONFIG_GLOBAL: config });
    try {
      const sandbox = { home: path.join(dir, 'home'), hooks: path.join(dir, 'hooks') };
      const run = { cwd: dir, sandbox, signal: AbortSignal.timeout(10_000) };
      const hooks = await runGit(['config', '--get-all', 'core.hooksPath'], run);
      expect(hooks.stdout.toString().trim()).toBe(sandbox.hooks);
      await expect(runGit(['config', '--get', 'init.templateDir'], run)).rejects.toMatchObject({ exitCode: 1 });
      const protocols = await runGit(['config', '--get-regexp', '^protocol\\.'], run);
      expect(protocols.stdout.toString().trim().split('\n')).toEqual([
        'protocol.allow never',
        'protocol.http.allow always',
        'protocol.https.allow always',
      ]);
    } finally {
      Object.assign(process.env, saved);
      removeDir();
    }
  });
});
