import { parseSetCookie, stringifyCookie } from 'cookie';

/** The Cookie header a browser sends back after a response's Set-Cookie header (its first cookie). */
export function cookieHeaderOf(setCookie: string | null | undefined): string {
  if (!setCookie) throw new Error('the response set no cookie');
  const { name, value } = parseSetCookie(setCookie);
  return stringifyCookie({ [name]: value });
}
