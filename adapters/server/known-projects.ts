import type { ProjectStoreFactory } from '../../application/ports/project-store.js';
import { DomainError } from '../../domain/errors.js';
import { isProjectId } from '../../domain/ids.js';

/** A project id from a route, checked: it names a directory, so nothing else may pass. */
export function projectIdOf(value: unknown): string {
  if (!isProjectId(value)) throw new DomainError('INVALID_ARGUMENT', 'A project id is 1-128 letters, digits, ".", "_" or "-"', { project: value });
  return value;
}

export function projectNotFound(project: string): DomainError {
  return new DomainError('PROJECT_NOT_FOUND', `This server holds no project ${project}: run taskdag init in the linked checkout to provision it`, { project });
}

/**
 * The projects this server holds, for every route: one server owns its data root, so a project,
 * once seen, stays; the data root is listed again only for a name not seen yet.
 */
export class KnownProjects {
  private readonly ids = new Set<string>();

  constructor(private readonly stores: ProjectStoreFactory) {}

  add(project: string): void {
    this.ids.add(project);
  }

  async require(project: string): Promise<void> {
    if (this.ids.has(project)) return;
    for (const id of await this.stores.list()) this.ids.add(id);
    if (!this.ids.has(project)) throw projectNotFound(project);
  }
}
