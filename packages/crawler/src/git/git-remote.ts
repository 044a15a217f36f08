import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { AppError } from '@docshelf/core';
import type { AddressPolicy } from '../fetch/address-policy';
import { DEFAULT_USER_AGENT, safeFetch } from '../fetch/safe-fetch';
import { notARepository } from './git-errors';

/** What git's smart-HTTP discovery asks for; a redirect of it names the repository's real place. */
const DISCOVERY_SUFFIX = '/info/refs?service=git-upload-pack';
const ADVERTISEMENT_TYPE = 'application/x-git-upload-pack-advertisement';
/** A v2 advertisement is a few lines; a v0 one lists every ref (a few MB for the largest repositories). */
const MAX_ADVERTISEMENT_BYTES = 16 * 1024 * 1024;

export interface GitRemote {
  /** The repository's URL after redirects, which git is given with redirects turned off. */
  url: string;
  /** `host:port:address` to pin git's connection to the address the policy checked; absent for an IP literal. */
  pin?: string;
}

/**
 * Asks the remote for its ref advertisement through the safe fetch, as git's first request would, so that the
 * address policy checks its host and every redirect; answers where the repository is and the address to reach it at.
 */
export async function discoverGitRemote(
  repoUrl: string,
  policy: AddressPolicy,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<GitRemote> {
  const base = parseRepoUrl(repoUrl);
  const response = await safeFetch(`${base}${DISCOVERY_SUFFIX}`, {
    policy,
    headers: { 'user-agent': `git/2 ${DEFAULT_USER_AGENT}`, accept: '*/*', 'git-protocol': 'version=2' },
    maxBytes: MAX_ADVERTISEMENT_BYTES,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  if (response.status === 401 || response.status === 403) {
    throw notARepository(repoUrl, `it answered ${response.status}: a private repository is not read`);
  }
  if (response.status !== 200 || response.contentType !== ADVERTISEMENT_TYPE) {
    const answer = response.status === 200 ? `a ${response.contentType || 'typeless'} body` : `${response.status}`;
    throw notARepository(repoUrl, `its smart-HTTP discovery answered ${answer}`);
  }
  if (!response.url.endsWith(DISCOVERY_SUFFIX)) {
    throw notARepository(repoUrl, `its discovery was redirected to ${response.url}`);
  }
  const url = new URL(response.url.slice(0, -DISCOVERY_SUFFIX.length));
  return { url: url.href, pin: await pinAddresses(url, policy) };
}

function parseRepoUrl(repoUrl: string): string {
  const url = URL.canParse(repoUrl) ? new URL(repoUrl) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new AppError('URL_BLOCKED', `${repoUrl}: only http and https git remotes are read`, 400, {
      retryable: false,
    });
  }
  if (url.username || url.password || url.search || url.hash) {
    throw notARepository(repoUrl, 'a git URL takes no credentials, query or fragment');
  }
  return url.href.replace(/\/+$/, '');
}

/** The addresses the policy's lookup allows for the URL's host and port, in curl's `--resolve` form. */
async function pinAddresses(url: URL, policy: AddressPolicy): Promise<string | undefined> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(hostname)) return undefined;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    policy.lookupFor(port)(hostname, { all: true }, (error, resolved) =>
      error ? reject(error) : resolve(resolved as unknown as LookupAddress[]),
    ),
  );
  const listed = addresses.map(({ address, family }) => (family === 6 ? `[${address}]` : address));
  return `${hostname}:${port}:${listed.join(',')}`;
}
