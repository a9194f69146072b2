import { DomainError } from '../../domain/errors.js';
import { portProblem } from '../server/server-config.js';

/**
 * The board's addresses (docs/board.md): every view has a path, so a link from a log or a chat
 * opens it. The board's client (ui/src/routes.ts) reads the same paths.
 */
/** Where `taskdag ui` listens, and where `urls` points, unless told otherwise (next to the server's 7407). */
export const DEFAULT_BOARD_PORT = 7408;

/** The local board's origin on `port`. */
export function localBoardOrigin(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/** The local board's port: `port` when given and valid (else INVALID_ARGUMENT naming --port), or the default. */
export function localBoardPort(port: number | undefined): number {
  const chosen = port ?? DEFAULT_BOARD_PORT;
  const problem = portProblem(chosen);
  if (problem !== null) throw new DomainError('INVALID_ARGUMENT', `--port: ${problem}`, { field: 'port', value: chosen });
  return chosen;
}

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
