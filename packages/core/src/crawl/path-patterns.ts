import picomatch from 'picomatch';

/**
 * True when the URL's path matches one include (or there are none) and no exclude. Globs as picomatch reads them:
 * `*` stays within a segment, `**` crosses segments (`/docs/**` takes `/docs` itself too); dot segments match.
 */
export function buildPathFilter(includes: string[], excludes: string[]): (url: string) => boolean {
  const options = { dot: true };
  const include = includes.length === 0 ? () => true : picomatch(includes, options);
  const exclude = excludes.length === 0 ? () => false : picomatch(excludes, options);
  return (url) => {
    const path = new URL(url).pathname;
    return include(path) && !exclude(path);
  };
}
