import { DomainError } from '../../domain/errors.js';
import type { HostFiles } from '../ports/host-files.js';
import { joinPath, parentOf } from '../server/posix-path.js';

/** What the command that sets the board up is (README, docs/board.md). */
export const BUILD_BOARD = 'npm run build:ui';

/**
 * Checks that the board at `uiRoot` (the `ui/dist` of a source checkout) can be served, and
 * otherwise names what is missing and how to fix it: the `ui/` sub-project itself (it is not in
 * the published package), its dependencies, or its build.
 */
export async function requireBoardBuild(files: HostFiles, uiRoot: string): Promise<void> {
  if ((await files.facts(joinPath(uiRoot, 'index.html')))?.kind === 'file') return;
  const project = parentOf(uiRoot);
  if ((await files.facts(joinPath(project, 'package.json')))?.kind !== 'file') {
    throw unavailable('sub-project', project, `The web board's ui/ sub-project is not at ${project}: it lives in taskdag's source repository, not in the published package; clone the repository, then run \`npm ci && ${BUILD_BOARD}\` there`);
  }
  if ((await files.facts(joinPath(project, 'node_modules')))?.kind !== 'directory') {
    throw unavailable('dependencies', project, `The web board's dependencies are not installed in ${project}: run \`${BUILD_BOARD}\` in taskdag's checkout (it runs npm ci in ui/ and builds it)`);
  }
  throw unavailable('build', uiRoot, `The web board is not built (no ${joinPath(uiRoot, 'index.html')}): run \`${BUILD_BOARD}\` in taskdag's checkout`);
}

function unavailable(missing: 'sub-project' | 'dependencies' | 'build', path: string, message: string): DomainError {
  return new DomainError('UI_UNAVAILABLE', message, { missing, path, fix: BUILD_BOARD });
}
