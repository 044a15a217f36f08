const OBJECT_NAME = /^[A-Za-z0-9._-]+$/;

/** The same rule FsBackupStorage applies: one safe path segment, never `.` or anything with `..`. */
export function validateBackupObjectName(name: string): string {
  if (!OBJECT_NAME.test(name) || name === '.' || name.includes('..'))
    throw new Error(`invalid backup object name: '${name}'`);
  return name;
}

/** `<encodeURIComponent(libraryId)>/`, so `vercel` and `vercel/next.js` never share a prefix (as on disk). */
export function libraryPrefixOf(libraryId: string): string {
  const segment = encodeURIComponent(libraryId);
  if (segment === '' || segment === '.' || segment === '..')
    throw new Error(`invalid library id for backups: '${libraryId}'`);
  return `${segment}/`;
}
