import { useEffect, useState } from 'preact/hooks';
import { ApiError, bearer, logout, probe, UNAUTHORIZED } from './api';
import { onNavigate, parseRoute, type Route } from './routes';
import { CatalogView } from './views/catalog';
import { ErrorBox } from './views/common';
import { LoginGate } from './views/login';
import { ProjectView } from './views/project';

type Access = { state: 'probing' } | { state: 'in' } | { state: 'gate' } | { state: 'failed'; error: ApiError };

/**
 * The board: probes `/v1/projects` once (200: in, the local board or a bearer still good; 401:
 * the login gate), then shows the view the address names.
 */
export function App() {
  const [access, setAccess] = useState<Access>({ state: 'probing' });
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location));

  useEffect(() => onNavigate(() => setRoute(parseRoute(window.location))), []);
  useEffect(() => {
    document.title = pageTitle(access, route);
  }, [access, route]);
  useEffect(() => {
    probe().then(
      (answer) => setAccess(answer.authenticated ? { state: 'in' } : { state: 'gate' }),
      (error: ApiError) => setAccess({ state: 'failed', error }),
    );
    const gate = () => setAccess({ state: 'gate' });
    window.addEventListener(UNAUTHORIZED, gate);
    return () => window.removeEventListener(UNAUTHORIZED, gate);
  }, []);

  return (
    <>
      <header class="top">
        <a href="/" class="brand">
          taskdag board
        </a>
        <span class="read-only">read-only</span>
        {access.state === 'in' && bearer() !== null ? (
          <button type="button" class="logout" onClick={logout}>
            Log out
          </button>
        ) : null}
      </header>
      <main data-view={access.state === 'in' ? route.view : access.state}>
        {access.state === 'probing' ? <p class="loading">Connecting…</p> : null}
        {access.state === 'failed' ? <ErrorBox error={access.error} /> : null}
        {access.state === 'gate' ? <LoginGate onLoggedIn={() => setAccess({ state: 'in' })} /> : null}
        {access.state === 'in' ? route.view === 'catalog' ? <CatalogView /> : <ProjectView route={route} key={route.project} /> : null}
      </main>
    </>
  );
}

const VIEW_TITLES = { board: 'Board', gates: 'Gates', graph: 'Graph', activity: 'Activity' } as const;

/** The tab's title names the view, so a row of board tabs (and the history) can be told apart. */
function pageTitle(access: Access, route: Route): string {
  if (access.state === 'gate') return 'Log in · taskdag';
  if (access.state !== 'in') return 'taskdag board';
  if (route.view === 'catalog') return 'Projects · taskdag';
  if (route.view === 'node') return `${route.node} · ${route.project} · taskdag`;
  return `${VIEW_TITLES[route.view]} · ${route.project} · taskdag`;
}
