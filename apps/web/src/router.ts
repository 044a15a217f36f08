import { useEffect, useState } from 'preact/hooks';

/** The dashboard's routes; the API answers each of these paths with index.html. */
export type Route =
  | { page: 'login'; next: string }
  | { page: 'libraries' }
  | { page: 'library'; id: string }
  | { page: 'add' }
  | { page: 'job'; id: string }
  | { page: 'keys' }
  | { page: 'not-found' };

export function parseRoute(pathname: string, search: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/' || path === '/libraries') return { page: 'libraries' };
  if (path === '/login') {
    const next = new URLSearchParams(search).get('next') ?? '/libraries';
    // Only a path of this dashboard, never another origin.
    return { page: 'login', next: next.startsWith('/') && !next.startsWith('//') ? next : '/libraries' };
  }
  if (path.startsWith('/libraries/'))
    return { page: 'library', id: path.slice('/libraries/'.length).split('/').map(decodeURIComponent).join('/') };
  if (path === '/add') return { page: 'add' };
  if (path.startsWith('/jobs/')) return { page: 'job', id: decodeURIComponent(path.slice('/jobs/'.length)) };
  if (path === '/keys') return { page: 'keys' };
  return { page: 'not-found' };
}

/** False until the dashboard changes page without a load: a freshly loaded page leaves focus where the browser puts it. */
export let navigatedInApp = false;

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  navigatedInApp = true;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): Route {
  const read = () => parseRoute(location.pathname, location.search);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => {
      navigatedInApp = true;
      setRoute(read());
    };
    addEventListener('popstate', changed);
    // Same-origin links of the dashboard change the route without a page load.
    const click = (event: MouseEvent) => {
      if (
        event.defaultPrevented ||
        event.button !== 0 ||
        event.metaKey ||
        event.ctrlKey ||
        event.shiftKey ||
        event.altKey
      )
        return;
      const anchor = (event.target as Element | null)?.closest?.('a');
      if (!anchor || anchor.target || anchor.hasAttribute('download') || anchor.dataset.external !== undefined) return;
      const url = new URL(anchor.href, location.href);
      if (url.origin !== location.origin || parseRoute(url.pathname, url.search).page === 'not-found') return;
      event.preventDefault();
      navigate(url.pathname + url.search);
    };
    document.addEventListener('click', click);
    return () => {
      removeEventListener('popstate', changed);
      document.removeEventListener('click', click);
    };
  }, []);
  return route;
}
