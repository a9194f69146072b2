import { DomainError } from '../../domain/errors.js';
import { importSchemaZero, isSchemaZero, schemaOneDocument, type StateForm } from '../../domain/legacy-state.js';
import type { AgentName, State } from '../../domain/model.js';
import { importedDocument } from '../../domain/replacement.js';
import { flag, optional } from '../args.js';
import { snapshotMetadataSchema } from '../contract/results.js';
import { array, boolean, object, oneOf, optional as optionalProperty, string, type Static, lazily } from '../contract/schema.js';
import { hostOperation } from '../define.js';
import { requireAgent, requireCheckoutProject } from '../dispatcher.js';
import type { Clock } from '../ports/clock.js';
import { reachedBy, type ProjectStore, type StoredState } from '../ports/project-store.js';

const projectMigration = lazily(() => object({
  project_id: string(),
  state_dir: string(),
  form: oneOf(['absent', 'schema-1', 'schema-1-document', 'schema-0', 'unrecognized'] as const, 'What tasks.json holds'),
  action: oneOf(['none', 'import', 'imported', 'skip'] as const, 'none, import (a dry run would import), imported, skip (cannot import)'),
  snapshot: optionalProperty(snapshotMetadataSchema()),
  problem: optionalProperty(string('Why the project cannot be imported')),
}));
export type ProjectMigration = Static<ReturnType<typeof projectMigration>>;
type StateFormOrAbsent = StateForm | 'absent';

/**
 * Imports projects written before schema 1, and schema-1 states written as one plain JSON
 * document (docs/migrate.md), the current checkout's or, with
 * `--all`, every project under TASKDAG_HOME. A dry run reports each project's form and writes
 * nothing. A real import needs an agent (it is recorded in the `migrate` log event), backs the
 * project up as a `pre-migrate` snapshot first, and is idempotent: an imported project is
 * schema 1 and is left alone. If any project cannot be imported, the others are still imported
 * and the command fails with STORAGE_ERROR listing every project's outcome.
 */
export const migrate = hostOperation({
  name: 'migrate',
  summary: 'Import projects written before schema 1, or as one plain JSON document (see docs/migrate.md)',
  details:
    "Stop every writer, the board and the server first. `--dry-run` reports each project's form and writes nothing; a real import backs each project up as a pre-migrate snapshot, and running it again changes nothing.",
  examples: [
    ['See what would be imported, for every project', '$0 migrate --all --dry-run'],
    ["Import this checkout's project", '$0 migrate --as alice'],
  ],
  mutates: false,
  needsAgent: false,
  usesAgent: true,
  inLinkedCheckout: false,
  args: () => ({
    all: optional(flag(), "Every project under TASKDAG_HOME, not only this checkout's", { standalone: true }),
    dry_run: optional(flag(), "Report each project's form; write nothing", { standalone: true }),
  }),
  result: () => object({ dry_run: boolean(), projects: array(projectMigration()) }),
  run: async ({ stores: factory, clock, project }, args, agent) => {
    const dryRun = args.dry_run === true;
    const by = dryRun ? null : requireAgent('migrate', agent);
    const ids = args.all ? await factory.list() : [requireCheckoutProject(project, 'run migrate in a checkout, or pass --all for every project')];
    const projects: ProjectMigration[] = [];
    for (const store of ids.map((id) => factory.open(id))) {
      const surveyed = await survey(store, clock.now());
      projects.push(by === null || surveyed.action !== 'import' ? surveyed : await importProject(store, clock, by));
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
});

/**
 * Converts in memory, without writing anything, to report whether the import would succeed; a
 * real run then imports only the projects this finds importable, so others are not even locked.
 */
async function survey(store: ProjectStore, now: string): Promise<ProjectMigration> {
  const { report } = examine(await store.inspect(), now, 'migrate');
  return { project_id: store.projectId, state_dir: store.location, ...report, action: report.action === 'imported' ? 'import' : report.action };
}

/** Examines the project again under its exclusive lock (a writer may have run since), then imports. */
async function importProject(store: ProjectStore, clock: Clock, by: AgentName): Promise<ProjectMigration> {
  const report = await store.rewrite(async (current) => {
    const now = clock.now();
    const { report, state } = examine(current, now, by);
    if (!state || current.kind === 'absent') return { result: report, state: null };
    return { result: { ...report, snapshot: await store.snapshots.take('pre-migrate', current, now) }, state };
  });
  return { project_id: store.projectId, state_dir: store.location, ...report };
}

type Report = Pick<ProjectMigration, 'form' | 'action' | 'problem' | 'snapshot'> & { form: StateFormOrAbsent };

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
  const document = schemaOneDocument(value);
  if (document !== null) {
    if ('problem' in document) return { report: { form: 'schema-1-document', action: 'skip', problem: document.problem }, state: null };
    const imported = importedDocument(document.state, reachedBy(current), { at, by });
    return { report: { form: 'schema-1-document', action: 'imported' }, state: imported };
  }
  if (!isSchemaZero(value)) return { report: { form: 'unrecognized', action: 'skip', problem: current.error.message }, state: null };
  const imported = importSchemaZero(value, { at, by });
  if ('problem' in imported) return { report: { form: 'schema-0', action: 'skip', problem: imported.problem }, state: null };
  return { report: { form: 'schema-0', action: 'imported' }, state: imported.state };
}
