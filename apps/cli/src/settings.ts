import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the command finds its server and credential: flags first, then the environment, then a stored login. */
export interface Settings {
  /** The server's origin, without a trailing slash. */
  url: string;
  apiKey?: string;
  /** The session `docshelf login` stored for this server, if any. */
  session?: string;
  /** For `docshelf login` without a terminal to ask on: `DOCSHELF_PASSWORD`. */
  password?: string;
}

export const DEFAULT_URL = 'http://localhost:3000';

/** A session `docshelf login` keeps: for one server, until it expires. */
export interface StoredSession {
  url: string;
  email: string;
  token: string;
  expiresAt?: string;
}

/**
 * The user's config folder for docshelf: `$XDG_CONFIG_HOME/docshelf`, else `~/.config/docshelf` (`%APPDATA%\docshelf`
 * on Windows). Written out rather than taken from env-paths, which is an ES module only and this command is not.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'docshelf');
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'docshelf');
}

const sessionFile = (env: NodeJS.ProcessEnv) => path.join(configDir(env), 'session.json');

export function readStoredSession(env: NodeJS.ProcessEnv = process.env): StoredSession | undefined {
  try {
    const stored = JSON.parse(fs.readFileSync(sessionFile(env), 'utf8')) as Partial<StoredSession>;
    if (typeof stored.url !== 'string' || typeof stored.token !== 'string') return undefined;
    if (stored.expiresAt && Date.parse(stored.expiresAt) <= Date.now()) return undefined;
    return { url: stored.url, email: String(stored.email ?? ''), token: stored.token, expiresAt: stored.expiresAt };
  } catch {
    return undefined;
  }
}

/** Stores the session readable by its owner only (0600, in a 0700 folder), replacing any other. */
export function storeSession(session: StoredSession, env: NodeJS.ProcessEnv = process.env): string {
  const file = sessionFile(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(session, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(temporary, file);
  return file;
}

export function forgetSession(env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    fs.unlinkSync(sessionFile(env));
    return true;
  } catch {
    return false;
  }
}

/** The server URL as given, checked and without its trailing slash. */
export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`"${raw}" is not a URL; give the server as e.g. ${DEFAULT_URL}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`"${raw}" is not an http(s) URL; give the server as e.g. ${DEFAULT_URL}`);
  }
  return url.href.replace(/\/+$/, '');
}

export function resolveSettings(
  flags: { url?: string; apiKey?: string },
  env: NodeJS.ProcessEnv = process.env,
): Settings {
  const url = normalizeUrl(flags.url ?? env.DOCSHELF_URL ?? DEFAULT_URL);
  const apiKey = flags.apiKey ?? (env.DOCSHELF_API_KEY || undefined);
  const stored = readStoredSession(env);
  return {
    url,
    apiKey,
    session: stored && stored.url === url ? stored.token : undefined,
    password: env.DOCSHELF_PASSWORD || undefined,
  };
}
