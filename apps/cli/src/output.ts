import { ApiError } from '@docshelf/client';
import picocolors from 'picocolors';

/** How the command ends: each failure its own code, so scripts can tell them apart. */
export const EXIT = {
  ok: 0,
  /** The server answered with an error, or the job failed. */
  failed: 1,
  /** A bad argument or option. */
  usage: 2,
  /** No server answered at the URL. */
  unreachable: 3,
  /** The credential was missing, wrong or not allowed (401, 403). */
  denied: 4,
  /** Stopped by Ctrl-C. */
  interrupted: 130,
} as const;

/** A failure the user can act on: its message is printed as it is, and the command exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}

export type Colors = ReturnType<typeof picocolors.createColors>;

/**
 * Colours when the stream is a terminal and `NO_COLOR` is not set (https://no-color.org); `FORCE_COLOR` turns them on
 * anywhere.
 */
export function colorsFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Colors {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  const enabled = forced || (Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb');
  return picocolors.createColors(enabled);
}

export interface Output {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
  /** Colours for what goes to `out`. */
  color: Colors;
  /** Colours for what goes to `err`. */
  errColor: Colors;
  /** A line of the command's answer, on stdout. */
  line: (text?: string) => void;
  /** A line about the work (progress, hints), on stderr. */
  note: (text: string) => void;
  json: (value: unknown) => void;
}

export function terminalOutput(env: NodeJS.ProcessEnv = process.env): Output {
  const out = process.stdout;
  const err = process.stderr;
  return {
    out,
    err,
    color: colorsFor(out, env),
    errColor: colorsFor(err, env),
    line: (text = '') => out.write(`${text}\n`),
    note: (text) => err.write(`${text}\n`),
    json: (value) => out.write(`${JSON.stringify(value, null, 2)}\n`),
  };
}

/** Any failure as a message and an exit code: the API's errors said so a person knows what to do next. */
export function describeFailure(error: unknown, url: string, credential: 'key' | 'session' | 'none'): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof ApiError) {
    if (error.status === 0) {
      const reason = error.cause instanceof Error ? ` (${error.cause.message})` : '';
      return new CliError(
        `No Docshelf server answered at ${url}${reason}. Start it (npm start), or point DOCSHELF_URL or --url at it.`,
        EXIT.unreachable,
      );
    }
    if (error.status === 401) {
      const what = { key: 'the API key', session: 'the kept session', none: 'a request without a credential' }[
        credential
      ];
      return new CliError(
        `${url} refused ${what}: ${error.message}. Set DOCSHELF_API_KEY (or --api-key) to a valid key, or run docshelf login.`,
        EXIT.denied,
      );
    }
    if (error.status === 403) return new CliError(`${url} refused this: ${error.message}`, EXIT.denied);
    const fields = (error.details ?? [])
      .map((detail) => {
        const { path, message } = (detail ?? {}) as { path?: unknown; message?: unknown };
        const where = Array.isArray(path) ? path.join('.') : '';
        return typeof message === 'string' ? `\n  ${where ? `${where}: ` : ''}${message}` : '';
      })
      .join('');
    const usage = error.status === 400 || error.status === 413 || error.status === 414;
    return new CliError(`${error.message} (${error.status} ${error.code})${fields}`, usage ? EXIT.usage : EXIT.failed);
  }
  return new CliError(error instanceof Error ? error.message : String(error));
}
