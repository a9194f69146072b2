/**
 * The board's addresses (docs/board.md): every view has a path, so a link from a log or a chat
 * opens it. The board's client (ui/src/routes.ts) reads the same paths.
 */
export type BoardView = 'catalog' | 'board' | 'gates' | 'graph' | 'activity' | 'initiative' | 'initiative-graph' | 'node' | 'node-graph';

export interface BoardPath {
  view: BoardView;
  path: string;
}

export function projectPath(project: string): string {
  return `/projects/${encodeURIComponent(project)}`;
}

/** The links `urls` prints: the catalog, the project's views, and those of an initiative or node. */
export function boardPaths(project: string | null, focus: { initiative?: string | undefined; id?: string | undefined }): BoardPath[] {
  const paths: BoardPath[] = [{ view: 'catalog', path: '/' }];
  if (project === null) return paths;
  const base = projectPath(project);
  paths.push({ view: 'board', path: base }, { view: 'gates', path: `${base}/gates` }, { view: 'graph', path: `${base}/graph` }, { view: 'activity', path: `${base}/activity` });
  if (focus.initiative !== undefined) {
    const query = `?initiative=${encodeURIComponent(focus.initiative)}`;
    paths.push({ view: 'initiative', path: `${base}${query}` }, { view: 'initiative-graph', path: `${base}/graph${query}` });
  }
  if (focus.id !== undefined) {
    const node = encodeURIComponent(focus.id);
    paths.push({ view: 'node', path: `${base}/nodes/${node}` }, { view: 'node-graph', path: `${base}/graph?focus=${node}` });
  }
  return paths;
}
