import { DomainError } from '../../domain/errors.js';
import { importSchemaZero, isSchemaZero, type StateForm } from '../../domain/legacy-state.js';
import type { AgentName, State } from '../../domain/model.js';
import { flag, optional, parseArgs } from '../args.js';
import { openProjectStore, requireAgent } from '../local-operations.js';
import type { ProjectOperation, Services } from '../operation.js';
import type { ProjectStore, StoredState } from '../ports/project-store.js';
import type { SnapshotMetadata } from '../ports/snapshot-store.js';

interface MigrateArgs {
  all?: boolean;
  dry_run?: boolean;
}

type Action = 'none' | 'import' | 'imported' | 'skip';

export interface ProjectMigration {
  project_id: string;
  state_dir: string;
  /** What `tasks.json` holds: `absent`, `schema-1`, `schema-0` or `unrecognized`. */
  form: StateForm | 'absent';
  /** `none` (nothing to import), `import` (a dry run would import), `imported`, `skip` (cannot import). */
  action: Action;
  /** The `pre-migrate` backup taken before an import. */
  snapshot?: SnapshotMetadata;
  /** Why a project cannot be imported. */
  problem?: string;
}

export interface MigrateResult {
  dry_run: boolean;
  projects: ProjectMigration[];
}

/**
 * Imports projects written before schema 1 (docs/migrate.md), the current checkout's or, with
 * `--all`, every project under TASKDAG_HOME. A dry run reports each project's form and writes
 * nothing. A real import needs an agent (it is recorded in the `migrate` log event), backs the
 * project up as a `pre-migrate` snapshot first, and is idempotent: an imported project is
 * schema 1 and is left alone. If any project cannot be imported, the others are still imported
 * and the command fails with STORAGE_ERROR listing every project's outcome.
 */
export const migrate: ProjectOperation<MigrateArgs, MigrateResult> = {
  scope: 'project',
  name: 'migrate',
  mutates: false,
  needsAgent: false,
  parse: (raw) => parseArgs('migrate', raw, { all: optional(flag()), dry_run: optional(flag()) }),
  run: async (services: Services, args: MigrateArgs, agent: AgentName | null) => {
    const dryRun = args.dry_run === true;
    const by = dryRun ? null : requireAgent('migrate', agent);
    const stores = args.all ? (await services.stores.list()).map((id) => services.stores.open(id)) : [openProjectStore(services)];
    const projects: ProjectMigration[] = [];
    for (const store of stores) {
      const surveyed = await survey(store, services.clock.now());
      projects.push(by === null || surveyed.action !== 'import' ? surveyed : await importProject(store, services, by));
    }
    const result = { dry_run: dryRun, projects };
    if (!dryRun && projects.some((project) => project.action === 'skip')) {
      throw new DomainError('STORAGE_ERROR', 'Some projects could not be imported (see details.projects); the others were', {
        cause: 'EINVALID',
        ...result,
      });
    }
    return result;
  },
};

/**
 * Converts in memory, without writing anything, to report whether the import would succeed; a
 * real run then imports only the projects this finds importable, so others are not even locked.
 */
async function survey(store: ProjectStore, now: string): Promise<ProjectMigration> {
  const { report } = examine(await store.inspect(), now, 'migrate');
  return { project_id: store.projectId, state_dir: store.location, ...report, action: report.action === 'imported' ? 'import' : report.action };
}

/** Examines the project again under its exclusive lock (a writer may have run since), then imports. */
async function importProject(store: ProjectStore, services: Services, by: AgentName): Promise<ProjectMigration> {
  const report = await store.rewrite(async (current) => {
    const now = services.clock.now();
    const { report, state } = examine(current, now, by);
    if (!state || current.kind === 'absent') return { result: report, state: null };
    return { result: { ...report, snapshot: await store.snapshots.take('pre-migrate', current, now) }, state };
  });
  return { project_id: store.projectId, state_dir: store.location, ...report };
}

type Report = Pick<ProjectMigration, 'form' | 'action' | 'problem' | 'snapshot'>;

/** The project's form, and the imported state when it is one we import. */
function examine(current: StoredState, at: string, by: AgentName): { report: Report; state: State | null } {
  if (current.kind === 'absent') return { report: { form: 'absent', action: 'none' }, state: null };
  if (current.kind === 'valid') return { report: { form: 'schema-1', action: 'none' }, state: null };
  let value: unknown;
  try {
    value = JSON.parse(current.text);
  } catch {
    return { report: { form: 'unrecognized', action: 'skip', problem: current.error.message }, state: null };
  }
  if (!isSchemaZero(value)) return { report: { form: 'unrecognized', action: 'skip', problem: current.error.message }, state: null };
  const imported = importSchemaZero(value, { at, by });
  if ('problem' in imported) return { report: { form: 'schema-0', action: 'skip', problem: imported.problem }, state: null };
  return { report: { form: 'schema-0', action: 'imported' }, state: imported.state };
}
