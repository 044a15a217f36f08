import { Writable } from 'node:stream';
import readline from 'node:readline/promises';
import { connect, createKey, listKeys, logIn, logOut, revokeKey } from '@docshelf/client';
import { Option, type Command } from '@commander-js/extra-typings';
import type { Cli } from '../cli';
import { CliError, EXIT } from '../output';
import { forgetSession, readStoredSession, storeSession } from '../settings';
import { action } from './command-kit';

const SESSION_COOKIE = 'docshelf_session';

export function accountCommands(program: Command): void {
  program
    .command('login')
    .summary('log in with a dashboard account and keep the session')
    .description(
      'Logs in as the dashboard does and keeps the session in your config folder (readable by you only), for the ' +
        'commands that need one: keys and ingest-url. The password is asked for on a terminal, else read from ' +
        'DOCSHELF_PASSWORD.',
    )
    .option('-e, --email <email>', 'the account (asked for when left out)')
    .action(
      action(async (cli, options) => {
        const email = options.email ?? (await ask(cli, 'Email: '));
        const password = cli.settings.password ?? (await ask(cli, 'Password: ', { hidden: true }));
        if (!email || !password) throw new CliError('An email and a password are needed to log in.', EXIT.usage);
        const { data, response } = await logIn({
          client: connect({ baseUrl: cli.settings.url }),
          body: { email, password },
        });
        const cookie = response.headers
          .getSetCookie()
          .map((header) => /^([^=]+)=([^;]*)(.*)$/.exec(header))
          .find((match) => match?.[1] === SESSION_COOKIE);
        if (!cookie) throw new CliError(`${cli.settings.url} answered the login without a session cookie.`);
        const expires = /;\s*expires=([^;]+)/i.exec(cookie[3] ?? '')?.[1];
        const file = storeSession({
          url: cli.settings.url,
          email: data.user.email,
          token: decodeURIComponent(cookie[2]!),
          ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
        });
        cli.output.line(`Logged in to ${cli.settings.url} as ${data.user.email} (session kept in ${file}).`);
      }),
    );

  program
    .command('logout')
    .summary('end the kept session')
    .action(
      action(async (cli) => {
        const stored = readStoredSession();
        if (stored && stored.url === cli.settings.url) {
          await logOut({ client: connect({ baseUrl: stored.url, session: stored.token }) }).catch(() => undefined);
        }
        cli.output.line(forgetSession() ? 'Logged out.' : 'No session was kept.');
      }),
    );

  const keys = program
    .command('keys')
    .summary('create, list and revoke API keys (needs docshelf login)')
    .description('API keys are managed with a dashboard session: run docshelf login first.');

  keys
    .command('list', { isDefault: true })
    .summary('list the API keys (the default)')
    .option('--json', 'print the API answer as JSON')
    .action(
      action(async (cli, options) => {
        const { data } = await listKeys({ client: cli.sessionClient() });
        if (options.json) return cli.output.json(data);
        if (data.keys.length === 0) {
          cli.output.line('No API keys. Create one with: docshelf keys create <name>');
          return;
        }
        const { color } = cli.output;
        for (const key of data.keys) {
          cli.output.line(
            `${color.dim(key.id)}  ${`${key.keyPrefix}…`.padEnd(14)} ${key.permissions.padEnd(5)}  ${key.name}` +
              color.dim(
                `  created ${key.createdAt.slice(0, 10)}${key.lastUsedAt ? `, last used ${key.lastUsedAt.slice(0, 10)}` : ''}`,
              ),
          );
        }
      }),
    );

  keys
    .command('create')
    .summary('create an API key and print it (shown once)')
    .argument('<name>', 'what the key is for, e.g. "CI" or "Cursor"')
    .addOption(
      new Option('-p, --permissions <permissions>', 'read, or admin to also write')
        .choices(['read', 'admin'])
        .default('read'),
    )
    .option('--json', 'print the API answer as JSON')
    .action(
      action(async (cli, name: string, options) => {
        const created = await createApiKey(cli, name, options.permissions);
        if (options.json) return cli.output.json(created);
        cli.output.line(created.key);
        cli.output.note(
          cli.output.errColor.dim(
            `${created.permissions} key "${created.name}" (${created.id}): shown once, keep it now.`,
          ),
        );
      }),
    );

  keys
    .command('revoke')
    .summary('revoke an API key')
    .argument('<id>', 'the key id, as keys list shows it')
    .action(
      action(async (cli, id: string) => {
        await revokeKey({ client: cli.sessionClient(), query: { id } });
        cli.output.line(`Revoked key ${id}.`);
      }),
    );
}

export async function createApiKey(cli: Cli, name: string, permissions: 'read' | 'admin') {
  const { data } = await createKey({ client: cli.sessionClient(), body: { name, permissions } });
  return data;
}

/** Asks on the terminal (stderr, so stdout stays for answers); `hidden` echoes nothing of what is typed. */
async function ask(cli: Cli, question: string, { hidden = false } = {}): Promise<string> {
  if (!process.stdin.isTTY) {
    throw new CliError(
      `${question.replace(/: $/, '')} is needed and there is no terminal to ask on (give --email and DOCSHELF_PASSWORD).`,
      EXIT.usage,
    );
  }
  let muted = false;
  // readline writes what is typed to its output; a hidden answer goes nowhere.
  const output = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      if (!muted) cli.output.err.write(chunk);
      done();
    },
  });
  const prompt = readline.createInterface({ input: process.stdin, output, terminal: true });
  try {
    const answer = prompt.question(question);
    muted = hidden;
    return (await answer).trim();
  } finally {
    prompt.close();
    if (hidden) cli.output.err.write('\n');
  }
}
