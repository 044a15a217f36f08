import { cookieHeaderOf } from '../e2e/cookies';
import type { ApiProcess } from '../e2e/ops-processes';

/** One answer of the API as the auth suites read it: status, headers, the body parsed where it is JSON, and its time. */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  ms: number;
}

/** Sends one request to a running API, timing it; a body is sent as JSON. */
export async function call(
  baseUrl: string,
  method: string,
  route: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  const res = await fetch(baseUrl + route, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body, ms };
}

/** A login from client address `client` (X-Forwarded-For, which the suites' APIs trust). */
export const login = (
  api: ApiProcess,
  credentials: { email: string; password: string },
  client: string,
  extra: Record<string, string> = {},
) =>
  call(api.baseUrl, 'POST', '/api/auth/login', { body: credentials, headers: { 'x-forwarded-for': client, ...extra } });

/** The Cookie header of the session a login answer set; throws if it set none. */
export const sessionCookieOf = (answer: Answer): string => {
  const setCookie = answer.headers.get('set-cookie');
  if (!setCookie) throw new Error(`no session cookie: ${answer.status} ${JSON.stringify(answer.body)}`);
  return cookieHeaderOf(setCookie);
};

/** The middle value of `values` (the mean of the two middle ones for an even count). */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** How many of the answers were 5xx. */
export const serverErrors = (answers: Answer[]) => answers.filter((a) => a.status >= 500).length;
