/** The one error type: a stable machine code, the HTTP status it maps to, and whether a retry could help. */
export class AppError extends Error {
  override readonly name = 'AppError';

  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly options: { retryable?: boolean; details?: unknown[]; jobId?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.options.retryable ?? this.status >= 500;
  }

  get details(): unknown[] | undefined {
    return this.options.details;
  }

  toJSON(): SerializedAppError {
    return {
      code: this.code,
      message: this.message,
      status: this.status,
      retryable: this.retryable,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export interface SerializedAppError {
  code: string;
  message: string;
  status: number;
  retryable: boolean;
  details?: unknown[];
}

export const badRequest = (message: string, details?: unknown[]) =>
  new AppError('BAD_REQUEST', message, 400, { details, retryable: false });
export const validationFailed = (message: string, details: unknown[]) =>
  new AppError('VALIDATION_FAILED', message, 400, { details, retryable: false });
export const unauthorized = (message = 'Authentication required') =>
  new AppError('UNAUTHORIZED', message, 401, { retryable: false });
export const forbidden = (message: string) => new AppError('FORBIDDEN', message, 403, { retryable: false });
export const libraryNotFound = (libraryId: string) =>
  new AppError('LIBRARY_NOT_FOUND', `Library '${libraryId}' not found`, 404, { retryable: false });
export const keyNotFound = (keyId: string) =>
  new AppError('KEY_NOT_FOUND', `API key '${keyId}' not found`, 404, { retryable: false });
export const embeddingMismatch = (libraryId: string, stored: string, current: string) =>
  new AppError(
    'EMBEDDING_MISMATCH',
    `Library '${libraryId}' was embedded with ${stored}, but this service embeds with ${current}; ` +
      'vectors of different models cannot be searched together. Re-ingest it with "replace": true to re-embed it.',
    409,
    { retryable: false },
  );
/** 429: too many requests; the answer carries Retry-After. */
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new AppError('RATE_LIMITED', message, 429, {
    retryable: true,
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)),
  });
export const conflict = (code: string, message: string) => new AppError(code, message, 409, { retryable: false });
export const serviceUnavailable = (code: string, message: string) =>
  new AppError(code, message, 503, { retryable: true });

const MARKER = 'AppError:';

/** Encodes an AppError into an Error message that survives BullMQ's failedReason. */
export function encodeAppError(error: AppError): string {
  return MARKER + JSON.stringify(error.toJSON());
}

/** Rebuilds the AppError a processor threw, or undefined when the message is not one of ours. */
export function decodeAppError(message: string | undefined): AppError | undefined {
  if (!message?.startsWith(MARKER)) return undefined;
  try {
    const s = JSON.parse(message.slice(MARKER.length)) as SerializedAppError;
    return new AppError(s.code, s.message, s.status, { retryable: s.retryable, details: s.details });
  } catch {
    return undefined;
  }
}
