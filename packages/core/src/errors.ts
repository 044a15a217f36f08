import type { CodeWithStatus, ErrorCode, StatusOf } from './error-codes';

export interface AppErrorOptions {
  retryable?: boolean;
  details?: unknown[];
  jobId?: string;
  retryAfterSeconds?: number;
}

/** The one error type: a stable machine code, the HTTP status it maps to, and whether a retry could help. */
class ServiceError extends Error {
  override readonly name = 'AppError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status: number,
    readonly options: AppErrorOptions = {},
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

export type AppError = ServiceError;

/**
 * Made with a code of ERROR_CODES (error-codes.ts) and one of the statuses that code comes with: the type check holds
 * every `new AppError(code, message, status)` to the table. (A class cannot tie one constructor parameter's type to
 * another's, so the constructor is declared here over the class.)
 */
export const AppError = ServiceError as {
  new <C extends ErrorCode>(code: C, message: string, status: StatusOf<C>, options?: AppErrorOptions): AppError;
  prototype: AppError;
};

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
/** `versions`: the ids of the library's versions there are, when the id asked for another. */
export const libraryNotFound = (libraryId: string, versions: string[] = []) =>
  new AppError(
    'LIBRARY_NOT_FOUND',
    `Library '${libraryId}' not found${versions.length > 0 ? `; its versions are ${versions.join(', ')}` : ''}`,
    404,
    { retryable: false },
  );
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
export const conflict = (code: CodeWithStatus<409>, message: string) =>
  new AppError(code, message, 409, { retryable: false });
export const serviceUnavailable = (code: CodeWithStatus<503>, message: string) =>
  new AppError(code, message, 503, { retryable: true });

/**
 * An error read back from where one was recorded (a job record, a queue's failure reason): its code and status as
 * they were written, unchecked against ERROR_CODES (a record may be older than the table).
 */
export function restoredAppError(
  code: string,
  message: string,
  status: number,
  options: AppErrorOptions = {},
): AppError {
  return new ServiceError(code as ErrorCode, message, status, options);
}

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
    return restoredAppError(s.code, s.message, s.status, { retryable: s.retryable, details: s.details });
  } catch {
    return undefined;
  }
}
