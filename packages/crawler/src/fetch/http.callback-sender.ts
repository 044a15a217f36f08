import { AppError, type CallbackSender } from '@docshelf/core';
import { BlockedUrlError, type AddressPolicy } from './address-policy';
import { safeFetch } from './safe-fetch';

const CALLBACK_TIMEOUT_MS = 10_000;

/** Callbacks go out through the crawler's checked fetch: the address connected to must be public (or allowlisted). */
export class HttpCallbackSender implements CallbackSender {
  constructor(private readonly policy: AddressPolicy) {}

  async assertAllowed(url: string): Promise<void> {
    try {
      await this.policy.assertUrlAllowed(url);
    } catch (error) {
      throw blocked(url, error);
    }
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<number> {
    try {
      const response = await safeFetch(url, {
        policy: this.policy,
        method: 'POST',
        body: Buffer.from(body),
        headers: { 'content-type': 'application/json', ...headers },
        timeoutMs: CALLBACK_TIMEOUT_MS,
        maxBytes: 64 * 1024,
        // A receiver that moved answers with its new address; following a POST elsewhere is not ours to decide.
        maxRedirects: 0,
      });
      return response.status;
    } catch (error) {
      if (error instanceof BlockedUrlError) throw blocked(url, error);
      throw new AppError('CALLBACK_FAILED', `Callback to ${url} failed: ${(error as Error).message}`, 502, {
        retryable: true,
      });
    }
  }
}

function blocked(url: string, error: unknown): AppError {
  const reason = error instanceof Error ? error.message : String(error);
  return new AppError('CALLBACK_URL_BLOCKED', `callbackUrl may not be called: ${reason}`, 400, {
    retryable: false,
    details: [{ path: 'callbackUrl', message: reason }],
  });
}
