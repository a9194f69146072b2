/**
 * The board's addresses: every view has a path (docs/board.md), which `taskdag urls` prints
 * (application/board/board-links.ts) and the server's single-page fallback hands to index.html.
 */
export type Route =
  | { view: 'catalog' }
  | { view: 'board' | 'gates' | 'graph' | 'activity'; project: string; query: URLSearchParams }
  | { view: 'node'; project: string; node: string; query: URLSearchParams };

export function parseRoute(location: Location | URL): Route {
  const parts = location.pathname.split('/').filter((part) => part !== '').map(decodeURIComponent);
  const query = new URLSearchParams(location.search);
  if (parts[0] !== 'projects' || parts[1] === undefined) return { view: 'catalog' };
  const project = parts[1];
  if (parts[2] === 'nodes' && parts[3] !== undefined) return { view: 'node', project, node: parts.slice(3).join('/'), query };
  if (parts[2] === 'gates' || parts[2] === 'graph' || parts[2] === 'activity') return { view: parts[2], project, query };
  return { view: 'board', project, query };
}

export function projectHref(project: string, view: 'board' | 'gates' | 'graph' | 'activity' = 'board', query?: URLSearchParams): string {
  const base = `/projects/${encodeURIComponent(project)}${view === 'board' ? '' : `/${view}`}`;
  const search = query?.toString();
  return search ? `${base}?${search}` : base;
}

export function nodeHref(project: string, node: string): string {
  return `/projects/${encodeURIComponent(project)}/nodes/${encodeURIComponent(node)}`;
}

const listeners = new Set<() => void>();

export function onNavigate(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/** Goes to `href` inside the board (history entry; `replace` for a filter change). */
export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  for (const listener of listeners) listener();
}

/** Plain clicks on the board's own links stay in the page; modified clicks open tabs as usual. */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element).closest('a');
    const href = anchor?.getAttribute('href');
    if (!anchor || !href || !href.startsWith('/') || anchor.target === '_blank') return;
    event.preventDefault();
    navigate(href);
  });
}
