/** Glob on URL paths: `*` stays within a segment, `**` crosses segments. */
function globToRegex(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') {
      source += '[^/]*';
    } else {
      source += char.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

/** True when the URL's path matches one include (or there are none) and no exclude. */
export function buildPathFilter(includes: string[], excludes: string[]): (url: string) => boolean {
  const include = includes.map(globToRegex);
  const exclude = excludes.map(globToRegex);
  return (url) => {
    const path = new URL(url).pathname;
    return (include.length === 0 || include.some((r) => r.test(path))) && !exclude.some((r) => r.test(path));
  };
}
