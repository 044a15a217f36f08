import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readStoredSession, resolveSettings, storeSession } from './settings';

describe('where the command finds its server and credential', () => {
  let home: string;
  const envOf = (extra: Record<string, string> = {}) => ({ XDG_CONFIG_HOME: home, ...extra });
  beforeEach(() => (home = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-settings-'))));
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('takes flags over the environment over the default', () => {
    expect(resolveSettings({}, envOf())).toEqual({
      url: 'http://localhost:3000',
      apiKey: undefined,
      session: undefined,
    });
    const env = envOf({ DOCSHELF_URL: 'https://docs.example.com/', DOCSHELF_API_KEY: 'dsk_env' });
    expect(resolveSettings({}, env)).toMatchObject({ url: 'https://docs.example.com', apiKey: 'dsk_env' });
    expect(resolveSettings({ url: 'http://127.0.0.1:4000', apiKey: 'dsk_flag' }, env)).toMatchObject({
      url: 'http://127.0.0.1:4000',
      apiKey: 'dsk_flag',
    });
  });

  it('refuses a server that is not an http(s) URL, saying what one looks like', () => {
    expect(() => resolveSettings({ url: 'localhost:3000' }, envOf())).toThrow(/not an http\(s\) URL/);
    expect(() => resolveSettings({ url: 'docs' }, envOf())).toThrow(/"docs" is not a URL; give the server as e\.g\./);
  });

  it('uses a kept session only for its own server and until it expires, and keeps it readable by its owner only', () => {
    const file = storeSession({ url: 'http://localhost:3000', email: 'a@b.c', token: 't1' }, envOf());
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(resolveSettings({}, envOf()).session).toBe('t1');
    expect(resolveSettings({ url: 'http://other:3000' }, envOf()).session).toBeUndefined();

    storeSession(
      { url: 'http://localhost:3000', email: 'a@b.c', token: 't2', expiresAt: '2000-01-01T00:00:00Z' },
      envOf(),
    );
    expect(readStoredSession(envOf())).toBeUndefined();
    fs.writeFileSync(file, 'not json');
    expect(readStoredSession(envOf())).toBeUndefined();
  });
});
