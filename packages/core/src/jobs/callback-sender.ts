import { Webhook } from 'standardwebhooks';

const STANDARD_SECRET_PREFIX = 'whsec_';
/** Keys shorter than this are too easy to guess; 16 bytes is also the least WEBHOOK_SECRET has always had. */
const MIN_KEY_BYTES = 16;

/**
 * The HMAC key of WEBHOOK_SECRET. A Standard Webhooks secret (`whsec_` + base64) is its decoded bytes; any other string
 * is its UTF-8 bytes, so a receiver's Standard Webhooks library takes it as `whsec_` + base64(WEBHOOK_SECRET).
 * Throws when a `whsec_` secret is not base64 or is shorter than 16 bytes.
 */
export function webhookKeyOf(secret: string): Uint8Array {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return new Uint8Array(Buffer.from(secret, 'utf8'));
  const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(encoded)) {
    throw new Error(`a secret starting with ${STANDARD_SECRET_PREFIX} must continue in base64`);
  }
  const key = new Uint8Array(Buffer.from(encoded, 'base64'));
  if (key.length < MIN_KEY_BYTES) {
    throw new Error(`a ${STANDARD_SECRET_PREFIX} secret must decode to at least ${MIN_KEY_BYTES} bytes`);
  }
  return key;
}

/**
 * Standard Webhooks headers for one delivery: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 * so a receiver that checks the timestamp (5 minutes is the usual tolerance) refuses a captured delivery sent again later.
 * The id stays the same over retries of one message; the timestamp is the attempt's.
 */
export function signCallback(
  secret: string,
  message: { id: string; timestamp: Date; body: string },
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const signature = new Webhook(webhookKeyOf(secret), { format: 'raw' }).sign(
    message.id,
    message.timestamp,
    message.body,
  );
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/** POSTs job outcomes to the URLs clients gave, under the same SSRF address policy as crawls. */
export interface CallbackSender {
  /** Throws AppError CALLBACK_URL_BLOCKED (400) when the URL may not be called. */
  assertAllowed(url: string): Promise<void>;
  /** Sends a JSON body and resolves with the HTTP status; throws when no answer came (refused, timeout, blocked). */
  post(url: string, body: string, headers: Record<string, string>): Promise<number>;
}
