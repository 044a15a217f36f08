import { validationFailed } from '@docshelf/core';
import type { z } from 'zod';

/** Parses untrusted input; a failure is a 400 whose details carry each zod issue with its path. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what = 'Request body'): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    path: issue.path.join('.'),
    message: issue.message,
    code: issue.code,
  }));
  const summary = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
  throw validationFailed(`${what} is invalid: ${summary}`, details);
}
