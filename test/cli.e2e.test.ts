import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { ADMIN, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { DOCSHELF_BIN, runCli, runInTerminal } from '@docshelf/testing/e2e/cli-process';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { freePort } from '@docshelf/testing/e2e/service-process';
import { buildZip } from '@docshelf/testing/targets/build-archive';
import { buildGitRepository, startGitHttpServer } from '@docshelf/testing/targets/git-http-server';

// The docshelf command (apps/cli) against the real API and worker (one process, real Redis and SQLite), crawling the
// fixture site on 127.0.0.1: run as a person runs it, in a pseudo-terminal (util-linux `script`), and as a script
// runs it, with pipes.
const SITE = path.resolve(__dirname, 'fixtures/docs-site');
/** The escape character that starts a terminal's colour and cursor sequences. */
const ESC = '\u001b';

describe('docshelf command', () => {
  let h: Harness;
  let site: FixtureServer;
  let slowSite: FixtureServer;
  let slowerSite: FixtureServer;
  let url: string;
  let adminKey: string;
  let readKey: string;
  let configHome: string;
  /** The environment of a user of this server with an admin key and no colours forced either way. */
  let env: Record<string, string>;

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    url = await h.baseUrl();
    site = await serveFixtures({ root: SITE });
    // Each page answered a little later, so a crawl is seen advancing and can be interrupted while it runs.
    slowSite = await serveFixtures({ root: SITE, delayMs: 250 });
    // Slow enough that a crawl interrupted at its first page is still crawling when the question is answered.
    slowerSite = await serveFixtures({ root: SITE, delayMs: 3000 });
    adminKey = await h.createKey('admin', 'cli admin');
    readKey = await h.createKey('read', 'cli read');
    configHome = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-cli-config-'));
    env = { DOCSHELF_URL: url, DOCSHELF_API_KEY: adminKey, XDG_CONFIG_HOME: configHome };
  });

  afterAll(async () => {
    await Promise.all([site?.close(), slowSite?.close(), slowerSite?.close()]);
    await h?.close();
    fs.rmSync(configHome, { recursive: true, force: true });
  });

  const jobOf = async (id: string) =>
    (await request(h.app).get(`/api/jobs/${id}`).set('Authorization', `Bearer ${adminKey}`).expect(200)).body;
  const jobIdIn = (text: string) => /job ([0-9a-f-]{36})/.exec(text)?.[1];

  it('crawls with a progress bar that advances and ends, then says what it wrote', async () => {
    const run = runInTerminal(
      ['crawl', `${slowSite.origin}/`, '--library', 'cli/site', '--name', 'CLI site', '--renderer', 'http'],
      env,
    );
    expect(await run.exited).toBe(0);
    const text = run.text();
    // The bar's amounts, as drawn while the crawl ran: pages answered of those found so far.
    const amounts = [...text.matchAll(/crawling\s+\S+\s+(\d+)\/(\d+) pages/g)].map((m) => Number(m[1]));
    expect(new Set(amounts).size).toBeGreaterThanOrEqual(2);
    expect(amounts).toEqual([...amounts].sort((a, b) => a - b));
    expect(text).toMatch(/done\s+█{24}/); // and ends full
    expect(run.raw()).toMatch(/█/); // a bar, drawn in place on the terminal (cursor moves)
    expect(run.raw()).toContain(`${ESC}[1G`);
    expect(text).toMatch(/✗ http:\/\/127\.0\.0\.1:\d+\/missing\.html: HTTP 404/);
    expect(text).toMatch(/✓ Crawled 6 of \d+ pages \(1 failed\) into cli\/site: \d+ chunks, embedded/);
    expect(run.raw()).toContain(`${ESC}[32m✓`); // colours on a terminal

    const library = (await request(h.app).get('/api/libraries/cli/site').set('Authorization', `Bearer ${adminKey}`))
      .body.library;
    expect(library).toMatchObject({ name: 'CLI site' });
    expect(library.chunkCount).toBeGreaterThan(0);
  });

  it('asks on Ctrl-C, and cancels the crawl when told to', async () => {
    const run = runInTerminal(
      ['crawl', `${slowSite.origin}/`, '--library', 'cli/cancelled', '--renderer', 'http'],
      env,
    );
    await run.waitFor(/crawling\s+\S+\s+[1-9]\d*\/\d+ pages/);
    run.type('\x03');
    await run.waitFor(/Cancel the job\? \[y\/N\]/);
    run.type('y\r');
    expect(await run.exited).toBe(130);
    const id = jobIdIn(run.text())!;
    expect(run.text()).toContain(`Job ${id} was cancelled`);
    expect((await jobOf(id)).state).toBe('cancelled');
  });

  it('leaves the crawl running when told to, and jobs watch follows it to its end', async () => {
    const run = runInTerminal(['crawl', `${slowerSite.origin}/`, '--library', 'cli/left', '--renderer', 'http'], env);
    await run.waitFor(/crawling\s+\S+\s+[1-9]\d*\/\d+ pages/);
    run.type('\x03');
    await run.waitFor(/Cancel the job\? \[y\/N\]/);
    run.type('n\r');
    expect(await run.exited).toBe(130);
    const id = jobIdIn(run.text())!;
    expect(run.text()).toContain(`docshelf jobs watch ${id}`);
    expect((await jobOf(id)).state).not.toBe('cancelled');

    const watch = runInTerminal(['jobs', 'watch', id], env);
    expect(await watch.exited).toBe(0);
    expect(watch.text()).toMatch(/✓ Crawled 6 of \d+ pages \(1 failed\) into cli\/left/);
    expect((await jobOf(id)).state).toBe('completed');
  });

  it('prints only the final result with --json, and no colours off a terminal', async () => {
    const run = await runCli(
      ['crawl', `${site.origin}/`, '--library', 'cli/json', '--renderer', 'http', '--json', '--replace'],
      env,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ success: true, libraryId: 'cli/json', pagesCrawled: 6 });
    expect(result.errors).toEqual([expect.stringMatching(/missing\.html: HTTP 404/)]);

    // Without --json and without a terminal: progress as plain lines on stderr, the summary on stdout, no escapes.
    const plain = await runCli(['crawl', `${site.origin}/`, '--library', 'cli/json', '--renderer', 'http'], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout + plain.stderr).not.toContain(ESC);
    expect(plain.stdout).toMatch(/^✓ Crawled 6 of \d+ pages \(1 failed, 6 unchanged\) into cli\/json/);
    expect(plain.stderr).toMatch(/crawling/);
  });

  it('searches and prints ranked results, the words asked for highlighted on a terminal', async () => {
    const plain = await runCli(['search', 'install widgetry', '--library', 'cli/json', '--limit', '3'], env);
    expect(plain.code).toBe(0);
    const titles = [...plain.stdout.matchAll(/^(\d+)\. (.+)$/gm)].map((m) => m[2]);
    expect(titles.length).toBeGreaterThan(0);
    expect(titles.length).toBeLessThanOrEqual(3);
    expect(titles[0]).toBe('Getting started');
    expect(plain.stdout).toMatch(new RegExp(`${site.origin}/guide/getting-started\\.html · cli/json`));
    expect(plain.stdout).not.toContain(ESC);

    const tty = runInTerminal(['search', 'install widgetry', '--library', 'cli/json', '--limit', '1'], env);
    expect(await tty.exited).toBe(0);
    expect(tty.raw()).toMatch(new RegExp(`${ESC}\\[1m${ESC}\\[33m[Ii]nstall${ESC}\\[39m${ESC}\\[22m`));

    const json = await runCli(['search', 'install', '--library', 'cli/json', '--json'], env);
    expect(JSON.parse(json.stdout).results[0]).toMatchObject({ libraryId: 'cli/json' });

    const none = runInTerminal(['search', 'install', '--library', 'cli/json', '--limit', '1'], {
      ...env,
      NO_COLOR: '1',
    });
    expect(await none.exited).toBe(0);
    expect(none.raw()).not.toContain(`${ESC}[33m`);
  });

  it("prints a library's packed context for a prompt, within the token budget", async () => {
    const run = await runCli(['context', 'cli/json', 'how do I install widgetry', '--tokens', '300'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('npm install widgetry');
    expect(run.stdout).toMatch(/Source: http:\/\/127\.0\.0\.1:\d+\/guide\/getting-started\.html \(cli\/json/);
    const json = await runCli(['context', 'cli/json', 'install', '--tokens', '300', '--json'], env);
    expect(JSON.parse(json.stdout).tokens).toBeLessThanOrEqual(300);
  });

  it("lists jobs, a library's only with --library", async () => {
    const jobs = await runCli(['jobs', '--library', 'cli/json'], env);
    expect(jobs.code).toBe(0);
    const lines = jobs.stdout.trim().split('\n');
    expect(lines.length).toBe(2); // the two crawls of cli/json, newest first
    for (const line of lines) expect(line).toMatch(/^[0-9a-f-]{36}\s+crawl\s+completed\s+cli\/json\s/);
  });

  it('lists libraries and shows one', async () => {
    const list = await runCli(['libraries', '--filter', 'cli/'], env);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+CHUNKS\s+EMBEDDED\s+UPDATED$/);
    expect(list.stdout).toMatch(/^cli\/site\s+CLI site\s+\d+\s+100%/m);
    const one = await runCli(['library', 'cli/site'], env);
    expect(one.stdout).toMatch(/^cli\/site$/m);
    expect(one.stdout).toMatch(/Source\s+crawl http:\/\/127\.0\.0\.1:\d+\//);
    const missing = await runCli(['library', 'cli/none'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/LIBRARY_NOT_FOUND/);
  });

  it('ingests pre-chunked JSON from stdin and embeds a library with --all', async () => {
    const payload = {
      libraryId: 'cli/ingested',
      name: 'Ingested',
      chunks: [
        { id: 'a', content: 'Gauges show one value against a maximum.' },
        { id: 'b', content: 'Charts plot values over time.' },
      ],
      skipEmbeddings: true,
    };
    const ingest = await runCli(['ingest', '-'], env, JSON.stringify(payload));
    expect(ingest.stderr).not.toMatch(/error/);
    expect(ingest.stdout).toMatch(/✓ Ingested 2 chunks into cli\/ingested/);
    const embed = await runCli(['embed', 'cli/ingested', '--all', '--json'], env);
    expect(embed.code).toBe(0);
    expect(JSON.parse(embed.stdout)).toMatchObject({ libraryId: 'cli/ingested', processed: 2 });
    const bad = await runCli(['ingest', '-'], env, '{"chunks": [');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/stdin is not JSON/);
  });

  it('reads a git repository and an uploaded archive into libraries', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-cli-git-'));
    buildGitRepository(root, 'widget', [
      { files: { 'docs/guide.md': '# Guide\n\nTurn the widget on with `widget start`.\n', 'src/a.ts': 'x' } },
    ]);
    const git = await startGitHttpServer({ root });
    try {
      const read = await runCli(['ingest-git', git.repoUrl('widget'), '--library', 'cli/git'], env);
      expect(read.stderr).not.toMatch(/error/);
      expect(read.stdout).toMatch(/^✓ Read 1 file into cli\/git: \d+ chunks?/);
    } finally {
      await git.close();
      fs.rmSync(root, { recursive: true, force: true });
    }

    const archive = path.join(configHome, 'docs.zip');
    fs.writeFileSync(
      archive,
      await buildZip({ 'intro.md': '# Intro\n\nThe widget is small.\n', 'usage.md': '# Usage\n\nStart it.\n' }),
    );
    const uploaded = await runCli(['ingest-archive', archive, '--library', 'cli/archive', '--json'], env);
    expect(uploaded.code).toBe(0);
    expect(JSON.parse(uploaded.stdout)).toMatchObject({ libraryId: 'cli/archive', filesIngested: 2 });
    const missing = await runCli(
      ['ingest-archive', path.join(configHome, 'none.zip'), '--library', 'cli/archive'],
      env,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read .*none\.zip/);
  });

  it('logs in, creates, lists and revokes keys with the kept session', async () => {
    const login = await runCli(['login', '--email', ADMIN.email], { ...env, DOCSHELF_PASSWORD: ADMIN.password });
    expect(login.code).toBe(0);
    const stored = path.join(configHome, 'docshelf', 'session.json');
    expect(fs.statSync(stored).mode & 0o777).toBe(0o600);

    const created = await runCli(['keys', 'create', 'from the cli', '--permissions', 'read'], env);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^dsk_[0-9a-f]{64}$/);
    // The new key works: it searches.
    const withKey = await runCli(['search', 'install', '--library', 'cli/json'], { ...env, DOCSHELF_API_KEY: key });
    expect(withKey.code).toBe(0);

    const listed = await runCli(['keys', 'list', '--json'], env);
    const mine = JSON.parse(listed.stdout).keys.find((k: { name: string }) => k.name === 'from the cli');
    expect(mine).toMatchObject({ permissions: 'read', keyPrefix: key.slice(0, mine.keyPrefix.length) });

    const revoked = await runCli(['keys', 'revoke', mine.id], env);
    expect(revoked.code).toBe(0);
    const refused = await runCli(['search', 'install'], { ...env, DOCSHELF_API_KEY: key });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/refused the API key: Invalid or revoked API key/);

    // What only a session may do besides keys: ingest one URL (here an llms.txt file), followed like any job.
    const ingested = await runCli(['ingest-url', `${site.origin}/llms.txt`, '--library', 'cli/llms'], env);
    expect(ingested.stderr).not.toMatch(/error/);
    expect(ingested.stdout).toMatch(/✓ Ingested \d+ chunks? into cli\/llms/);

    // An MCP setup with a read key made for it, which then answers on /mcp.
    const setup = await runCli(['mcp-config', '--client', 'cursor', '--create-key'], env);
    expect(setup.code).toBe(0);
    const authorization = JSON.parse(setup.stdout).mcpServers.docshelf.headers.Authorization as string;
    expect(authorization).toMatch(/^Bearer dsk_[0-9a-f]{64}$/);
    const listedKeys = JSON.parse((await runCli(['keys', '--json'], env)).stdout).keys;
    expect(listedKeys).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'MCP: cursor', permissions: 'read' })]),
    );
    const tools = await request(h.app)
      .post('/mcp')
      .set('Authorization', authorization)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(tools.status).toBe(200);
    expect(tools.text).toContain('resolve-library-id');

    const logout = await runCli(['logout'], env);
    expect(logout.stdout).toContain('Logged out.');
    const noSession = await runCli(['keys', 'list'], env);
    expect(noSession.code).toBe(4);
    expect(noSession.stderr).toMatch(/docshelf login/);
  });

  it('prints each MCP client its own setup, filled with this server', async () => {
    const mcp = `${url}/mcp`;
    const setup = async (client: string) => {
      const run = await runCli(['mcp-config', '--client', client, '--key', 'dsk_test'], env);
      expect(run.code).toBe(0);
      return run.stdout;
    };
    expect(await setup('claude-code')).toBe(
      `claude mcp add --transport http docshelf ${mcp} --header "Authorization: Bearer dsk_test"\n`,
    );
    expect(JSON.parse(await setup('cursor'))).toEqual({
      mcpServers: { docshelf: { url: mcp, headers: { Authorization: 'Bearer dsk_test' } } },
    });
    expect(JSON.parse(await setup('vscode'))).toEqual({
      servers: { docshelf: { type: 'http', url: mcp, headers: { Authorization: 'Bearer dsk_test' } } },
    });
    expect(JSON.parse(await setup('windsurf'))).toEqual({
      mcpServers: { docshelf: { serverUrl: mcp, headers: { Authorization: 'Bearer dsk_test' } } },
    });
    expect(JSON.parse(await setup('claude-desktop'))).toEqual({
      mcpServers: {
        docshelf: {
          command: 'npx',
          args: ['-y', 'mcp-remote', mcp, '--header', 'Authorization:${DOCSHELF_AUTHORIZATION}'],
          env: { DOCSHELF_AUTHORIZATION: 'Bearer dsk_test' },
        },
      },
    });
    expect(await setup('codex')).toContain(
      `[mcp_servers.docshelf]\nurl = "${mcp}"\nbearer_token_env_var = "DOCSHELF_API_KEY"\n`,
    );

    // The key each setup holds answers on the MCP endpoint.
    const placeholder = await runCli(['mcp-config', '--client', 'cursor'], env);
    expect(placeholder.stdout).toContain('dsk_<your read key>');
    const unknown = await runCli(['mcp-config', '--client', 'emacs'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Allowed choices are claude-code, cursor, vscode, windsurf, claude-desktop, codex/);
  });

  it('says clearly what is wrong: no server, a wrong or weak key, a bad argument', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const closed = await runCli(['libraries'], { ...env, DOCSHELF_URL: nobody });
    expect(closed.code).toBe(3);
    expect(closed.stderr).toContain(`No Docshelf server answered at ${nobody} (connect ECONNREFUSED`);

    const wrong = await runCli(['search', 'install'], { ...env, DOCSHELF_API_KEY: `dsk_${'0'.repeat(64)}` });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(/refused the API key: Invalid or revoked API key/);

    const weak = await runCli(['crawl', `${site.origin}/`, '--library', 'cli/weak'], {
      ...env,
      DOCSHELF_API_KEY: readKey,
    });
    expect(weak.code).toBe(4);
    expect(weak.stderr).toMatch(/read permission/);

    const badNumber = await runCli(['crawl', `${site.origin}/`, '--library', 'cli/bad', '--max-pages', 'many'], env);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toMatch(/--max-pages <n>.*must be a whole number/);

    const refused = await runCli(['crawl', 'not a url', '--library', 'cli/bad'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/VALIDATION_FAILED/);
    expect((await request(h.app).get('/api/libraries/cli/bad').set('Authorization', `Bearer ${adminKey}`)).status).toBe(
      404,
    );

    const noJob = await runCli(['jobs', 'watch', '00000000-0000-4000-8000-000000000000'], env);
    expect(noJob.code).toBe(1);
    expect(noJob.stderr).toMatch(/not found \(404 JOB_NOT_FOUND\)/);

    const unknownCommand = await runCli(['crawll'], env);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toMatch(/unknown command 'crawll'/);
  });

  it('runs as npx docshelf in the checkout (the bin npm links for the workspace)', () => {
    const help = spawnSync('npx', ['--no-install', 'docshelf', '--help'], {
      cwd: path.resolve(__dirname, '..'),
      encoding: 'utf8',
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: docshelf \[options\] \[command\]/);
  });

  it('ends quietly when its reader stops early (docshelf --help | head -1)', async () => {
    const piped = spawnSync('sh', ['-c', `"${process.execPath}" "${DOCSHELF_BIN}" --help | head -1`], {
      encoding: 'utf8',
    });
    expect(piped.stdout).toBe('Usage: docshelf [options] [command]\n');
    expect(piped.stderr).toBe('');
  });

  it('explains every command with --help', async () => {
    const top = await runCli(['--help'], env);
    expect(top.code).toBe(0);
    const listed = top.stdout.slice(top.stdout.indexOf('Commands:'), top.stdout.indexOf('Examples:'));
    const commands = [...listed.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands).toEqual(
      expect.arrayContaining([
        'crawl',
        'ingest',
        'embed',
        'search',
        'context',
        'libraries',
        'keys',
        'jobs',
        'mcp-config',
      ]),
    );
    for (const command of [...commands, 'jobs watch', 'keys create']) {
      const help = await runCli([...command.split(' '), '--help'], env);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: docshelf ${command}`);
    }
  });
});
