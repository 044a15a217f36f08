import type { Readable } from 'node:stream';
import { AppError, validationFailed, type UploadStore } from '@docshelf/core';
import busboy from 'busboy';
import type { Request } from 'express';

const formError = (message: string, path = '') => validationFailed(message, [{ path, message, code: 'custom' }]);

/** Text fields of an upload form: a few, each short (a description is the longest, 4 KiB). */
const FIELD_LIMITS = { fields: 16, fieldSize: 64 * 1024 } as const;

export interface ReceivedUpload {
  /** The form's text fields, by name. */
  fields: Record<string, string>;
  /** Whether the file part came and is in the upload store under the upload's id. */
  stored: boolean;
}

/**
 * Reads a multipart/form-data request: its text fields, and its one file part (`fileField`) streamed into the upload
 * store as it arrives, never held whole. A file past `maxBytes` is refused with 413 PAYLOAD_TOO_LARGE, a second file,
 * another file field or too many or too long fields with 400; whatever the failure, nothing of the file is kept.
 */
export { formError };

export function receiveUpload(
  req: Request,
  options: { uploads: UploadStore; uploadId: string; maxBytes: number; fileField: string },
): Promise<ReceivedUpload> {
  const { uploads, uploadId, maxBytes, fileField } = options;
  if (!req.is('multipart/form-data')) {
    return Promise.reject(
      new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Request body must be multipart/form-data, with the archive in the "${fileField}" part`,
        415,
      ),
    );
  }
  return new Promise<ReceivedUpload>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let storing: Promise<void> | undefined;
    let file: Readable | undefined;
    let failure: Error | undefined;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { ...FIELD_LIMITS, files: 1, fileSize: maxBytes } });
    } catch (error) {
      reject(new AppError('BAD_REQUEST', `Malformed multipart request: ${(error as Error).message}`, 400));
      return;
    }
    /** The first failure ends the request: the rest of the body is read and dropped, the file's write undone. */
    const fail = (error: unknown) => {
      if (failure) return;
      failure = error instanceof Error ? error : new Error(String(error));
      file?.destroy(failure);
      req.unpipe(parser);
      req.resume();
      const failed = failure;
      void (storing ?? Promise.resolve()).catch(() => undefined).finally(() => reject(failed));
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(formError(`Field "${name}" is longer than ${FIELD_LIMITS.fieldSize} bytes`, name));
      else if (name in fields) fail(formError(`Field "${name}" is given twice`, name));
      else fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      if (name !== fileField) {
        stream.resume();
        fail(formError(`Unexpected file part "${name}": the archive goes in "${fileField}"`, name));
        return;
      }
      file = stream;
      storing = uploads.put(uploadId, whole(stream, maxBytes));
      storing.catch(fail);
    });
    parser.on('filesLimit', () => fail(formError(`One file only, in "${fileField}"`, fileField)));
    parser.on('fieldsLimit', () => fail(formError(`More than ${FIELD_LIMITS.fields} fields`)));
    parser.on('error', (error: Error) =>
      fail(new AppError('BAD_REQUEST', `Malformed multipart request: ${error.message}`, 400)),
    );
    parser.on('close', () => {
      if (failure) return;
      (storing ?? Promise.resolve()).then(
        () => resolve({ fields, stored: storing !== undefined }),
        (error: unknown) => fail(error),
      );
    });
    req.on('aborted', () => fail(new AppError('REQUEST_ABORTED', 'Request was aborted by the client', 400)));
    req.pipe(parser);
  });
}

/** The file part's bytes, failing when busboy cut it at the size limit: a cut archive is never stored. */
async function* whole(stream: Readable & { truncated?: boolean }, maxBytes: number): AsyncGenerator<Uint8Array> {
  for await (const chunk of stream) yield chunk as Uint8Array;
  if (stream.truncated) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The archive is larger than the upload limit of ${maxBytes} bytes (ARCHIVE_UPLOAD_MAX_BYTES)`,
      413,
    );
  }
}
