import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type User } from './api';
import { AddDocsPage } from './pages/add-docs';
import { JobPage } from './pages/job';
import { KeysPage } from './pages/keys';
import { LibrariesPage } from './pages/libraries';
import { LibraryPage } from './pages/library';
import { LoginPage } from './pages/login';
import { navigate, useRoute, type Route } from './router';
import { PageHeading } from './ui';
import './styles.css';

function App() {
  const route = useRoute();
  const [user, setUser] = useState<User | null | undefined>(undefined);

  useEffect(() => {
    api.session().then(
      ({ user }) => setUser(user),
      (error: unknown) => {
        if (!(error instanceof ApiError) || error.status !== 401) console.error(error);
        setUser(null);
      },
    );
  }, []);

  // Every page but the login page needs a session.
  useEffect(() => {
    if (user === null && route.page !== 'login') {
      navigate(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    }
  }, [user, route.page]);

  useEffect(() => {
    document.title = `${titleOf(route)} · Docshelf`;
  }, [route]);

  if (user === undefined) return <p class="loading">Loading…</p>;
  if (route.page === 'login' || user === null) {
    return (
      <main id="main" class="login-main">
        <LoginPage
          next={route.page === 'login' ? route.next : '/libraries'}
          onLoggedIn={(u, next) => {
            setUser(u);
            navigate(next, { replace: true });
          }}
        />
      </main>
    );
  }

  const logOut = async () => {
    await api.logOut().catch(() => undefined);
    setUser(null);
    navigate('/login', { replace: true });
  };

  return (
    <>
      <a class="skip-link" href="#main" data-external>
        Skip to content
      </a>
      <header class="site-header">
        <a class="brand" href="/libraries">
          Docshelf
        </a>
        <nav aria-label="Main">
          <ul>
            <li>
              <a
                href="/libraries"
                aria-current={route.page === 'libraries' || route.page === 'library' ? 'page' : undefined}
              >
                Libraries
              </a>
            </li>
            <li>
              <a href="/add" aria-current={route.page === 'add' || route.page === 'job' ? 'page' : undefined}>
                Add docs
              </a>
            </li>
            <li>
              <a href="/keys" aria-current={route.page === 'keys' ? 'page' : undefined}>
                API keys
              </a>
            </li>
            <li>
              <a href="/admin/queues" data-external>
                Job queues
              </a>
            </li>
            <li>
              <a href="/api/docs" data-external>
                API reference
              </a>
            </li>
          </ul>
        </nav>
        <div class="user">
          <span class="email">{user.email}</span>
          <button type="button" class="secondary" onClick={() => void logOut()}>
            Log out
          </button>
        </div>
      </header>
      <main id="main">
        <Page route={route} key={routeKey(route)} />
      </main>
    </>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'libraries':
      return <LibrariesPage />;
    case 'library':
      return <LibraryPage id={route.id} />;
    case 'add':
      return <AddDocsPage />;
    case 'job':
      return <JobPage id={route.id} />;
    case 'keys':
      return <KeysPage />;
    default:
      return (
        <section>
          <PageHeading>Page not found</PageHeading>
          <p>
            There is no dashboard page here. <a href="/libraries">Go to the libraries</a>.
          </p>
        </section>
      );
  }
}

const routeKey = (route: Route) => ('id' in route ? `${route.page}:${route.id}` : route.page);

function titleOf(route: Route): string {
  switch (route.page) {
    case 'login':
      return 'Log in';
    case 'libraries':
      return 'Libraries';
    case 'library':
      return route.id;
    case 'add':
      return 'Add docs';
    case 'job':
      return 'Job progress';
    case 'keys':
      return 'API keys';
    default:
      return 'Not found';
  }
}

render(<App />, document.getElementById('app')!);
