import { AppError, decodeAppError, encodeAppError, libraryNotFound } from './errors';

describe('AppError across the queue', () => {
  it('keeps code, status, message and details through encode/decode', () => {
    const original = new AppError('VALIDATION_FAILED', 'bad', 400, { details: [{ path: 'a' }] });
    const decoded = decodeAppError(encodeAppError(original));
    expect(decoded).toBeInstanceOf(AppError);
    expect(decoded?.toJSON()).toEqual(original.toJSON());
    expect(decodeAppError(encodeAppError(libraryNotFound('x')))?.status).toBe(404);
  });

  it('ignores messages that are not encoded errors', () => {
    expect(decodeAppError('connection reset')).toBeUndefined();
    expect(decodeAppError('AppError:{not json')).toBeUndefined();
    expect(decodeAppError(undefined)).toBeUndefined();
  });

  it('treats 5xx as retryable unless told otherwise', () => {
    expect(new AppError('INTERNAL', 'x', 500).retryable).toBe(true);
    expect(new AppError('NOT_FOUND', 'x', 404).retryable).toBe(false);
    expect(new AppError('INTERNAL', 'x', 500, { retryable: false }).retryable).toBe(false);
  });
});
