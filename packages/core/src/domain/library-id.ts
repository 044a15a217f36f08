import { z } from 'zod';

/** Context7-style ids such as `vercel/next.js`: safe in paths, backup keys and vector namespaces. */
export const libraryIdSchema = z
  .string()
  .min(1, 'libraryId must not be empty')
  .max(128, 'libraryId must be at most 128 characters')
  .regex(/^[A-Za-z0-9._\-/]+$/, 'libraryId may contain only letters, digits, ".", "_", "-" and "/"')
  .refine((id) => !id.startsWith('/') && !id.endsWith('/'), 'libraryId must not start or end with "/"')
  .refine(
    (id) => id.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..'),
    'libraryId must not contain empty, "." or ".." segments',
  );
