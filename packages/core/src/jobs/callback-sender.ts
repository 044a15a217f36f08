import { createHmac } from 'node:crypto';

/** Header carrying `sha256=<hex HMAC-SHA256 of the body under WEBHOOK_SECRET>`. */
export const SIGNATURE_HEADER = 'x-docshelf-signature';

export function signCallbackBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** POSTs job outcomes to the URLs clients gave, under the same SSRF address policy as crawls. */
export interface CallbackSender {
  /** Throws AppError CALLBACK_URL_BLOCKED (400) when the URL may not be called. */
  assertAllowed(url: string): Promise<void>;
  /** Sends a JSON body and resolves with the HTTP status; throws when no answer came (refused, timeout, blocked). */
  post(url: string, body: string, headers: Record<string, string>): Promise<number>;
}
