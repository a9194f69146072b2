import type Router from '@koa/router';
import type { Context } from 'koa';
import { apiRouter } from './api-router.js';
import type { Clock } from '../../application/ports/clock.js';
import type { ProjectStore, ProjectStoreFactory } from '../../application/ports/project-store.js';
import { destinationOf, replacementAllowed } from '../../application/remote/transfer.js';
import type { PluginRuntimeSource } from '../../application/ports/plugin-runtime.js';
import type { PluginAllowList } from '../../application/server/plugin-allow-list.js';
import { assertSupportedApi, pluginsInOrder, transferredTableProblem, withoutModules, type PluginTable, type TransferredPluginTable } from '../../domain/plugins.js';
import type { Principal } from '../../application/server/auth-service.js';
import { requireAllowedAgents } from '../../domain/agent-binding.js';
import { DomainError } from '../../domain/errors.js';
import { projectIdOf, projectNotFound, type KnownProjects } from './known-projects.js';
import type { State } from '../../domain/model.js';
import { stateProblem } from '../../domain/state-shape.js';
import { illFormedTextMessage, isWellFormedText } from '../../domain/well-formed-text.js';
import { transferredState } from '../../domain/transfer.js';
import { readJsonBody, strayKeyError } from './request-body.js';
import { carryAsIs } from './well-formed-answers.js';
import { noteCheckout, type CheckoutNotes } from './checkout-header.js';
import type { RevisionEvent } from './sse-hub.js';

export interface TransferRoutesOptions {
  stores: ProjectStoreFactory;
  clock: Clock;
  /** The runtime of the projects' policy plugins, which decide on a push (docs/plugins.md). */
  plugins: PluginRuntimeSource;
  /** The plugins this server runs: a pushed table names only these. */
  allowed: PluginAllowList;
  maxBodyBytes: number;
  /** The projects the server holds, shared with the project routes. */
  projects: KnownProjects;
  /** Told of the revision a transfer committed (live events). */
  announce(project: string, committed: RevisionEvent): void;
  /** Where the checkouts a request names are noted. */
  notes?: CheckoutNotes;
}

/**
 * The routes of `push` and `pull` (docs/http-api.md, spec 4.5). `GET .../transfer` answers
 * `{project_id, state, plugins}`, the whole state and its plugin table by name (no module path
 * leaves the server). `PUT .../transfer` with `{state, plugins, expected_revision, force, agent}`
 * replaces both whole under the project's lock, once the project's own plugins allow the push,
 * if its revision is still `expected_revision` (null: it must be pristine); otherwise 409
 * STATE_REVISION_CONFLICT naming both revisions, nothing changed. A pushed plugin is a name: one
 * the server does not run is 409 PLUGIN_NOT_ALLOWED before anything is loaded, and each one it
 * runs comes from its operator's module and checks its data first. The project's plugins that
 * cannot answer have no say on the push (only a refusal refuses), so a push can always replace a
 * table that refuses everything. Neither route ever provisions: an absent project is
 * PROJECT_NOT_FOUND.
 */
export function transferRoutes(options: TransferRoutesOptions): Router {
  const router = apiRouter();

  router.get('/v1/projects/:project/transfer', async (ctx) => {
    const store = await existing(options, ctx, ctx.params.project);
    const current = await store.inspect();
    if (current.kind !== 'valid') throw current.kind === 'absent' ? projectNotFound(store.projectId) : current.error;
    // A pull carries the state as it is stored, text an earlier build took included (docs/decisions.md).
    carryAsIs(ctx);
    ctx.body = { project_id: store.projectId, state: current.state, plugins: withoutModules(current.plugins ?? {}) };
  });

  router.put('/v1/projects/:project/transfer', async (ctx) => {
    const store = await existing(options, ctx, ctx.params.project);
    const upload = uploadOf(await readJsonBody(ctx, options.maxBodyBytes));
    requireAllowedAgents((ctx.state.session as Principal).binding, [upload.agent]);
    const plugins = usablePlugins(options, upload.plugins);
    const answer = await store.rewrite((current) => {
      if (current.kind === 'absent') throw projectNotFound(store.projectId);
      const destination = destinationOf(current, upload.force);
      const state = transferredState(destination, {
        direction: 'push',
        incoming: upload.state,
        expected: upload.expected_revision,
        force: upload.force,
        at: options.clock.now(),
        by: upload.agent,
      });
      replacementAllowed(options.plugins, current, { force: upload.force }, upload.agent, state);
      return { result: { state, replaced_revision: destination?.revision ?? 0 }, state, plugins };
    });
    options.announce(store.projectId, { revision: answer.state.revision, fence_generation: answer.state.fence_generation });
    ctx.body = { project_id: store.projectId, revision: answer.state.revision, replaced_revision: answer.replaced_revision };
  });

  return router;
}

/**
 * The pushed table as the server will run it: every plugin one it runs (PLUGIN_NOT_ALLOWED
 * otherwise, nothing loaded), on its own module, with data its plugin accepts.
 */
function usablePlugins(options: TransferRoutesOptions, pushed: TransferredPluginTable): PluginTable {
  const table = options.allowed.adopt(pushed);
  for (const plugin of pluginsInOrder(table)) {
    assertSupportedApi(plugin.name, plugin.api_version);
    options.plugins().checkData(plugin, plugin.data);
  }
  return table;
}

/** The store of a project the server holds; a transfer never provisions one. */
/** The store of the route's project, which must exist; the checkout the request names is noted as one of its. */
async function existing(options: TransferRoutesOptions, ctx: Context, project: unknown): Promise<ProjectStore> {
  const id = projectIdOf(project);
  await options.projects.require(id);
  noteCheckout(ctx, options.notes, id);
  return options.stores.open(id);
}

interface Upload {
  state: State;
  plugins: TransferredPluginTable;
  expected_revision: number | null;
  force: boolean;
  agent: string;
}

function uploadOf(body: unknown): Upload {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('The body is a JSON object {"state", "expected_revision", "force", "agent"}', 'body');
  }
  const { state, plugins = {}, expected_revision = null, force = false, agent, ...rest } = body as Record<string, unknown>;
  const stray = Object.keys(rest)[0];
  if (stray !== undefined) throw strayKeyError('state, plugins, expected_revision, force and agent', stray);
  const problem = stateProblem(state);
  if (problem) throw invalid(`state is not a schema-1 state: ${problem}`, 'state');
  const tableProblem = transferredTableProblem(plugins);
  if (tableProblem) throw invalid(`plugins is not a plugin table: ${tableProblem}`, 'plugins');
  if (expected_revision !== null && !(Number.isSafeInteger(expected_revision) && (expected_revision as number) >= 0)) {
    throw invalid('expected_revision is a revision (a whole number) or null', 'expected_revision');
  }
  if (typeof force !== 'boolean') throw invalid('force is true or false', 'force');
  if (typeof agent !== 'string' || agent.trim() === '') throw invalid('agent names who transfers', 'agent');
  // The agent is new text, recorded in the log; the state is the sender's own, carried as it is (docs/decisions.md).
  if (!isWellFormedText(agent)) throw invalid(illFormedTextMessage('agent'), 'agent');
  return { state: state as State, plugins: withoutModules(plugins as TransferredPluginTable), expected_revision: expected_revision as number | null, force, agent };
}

function invalid(message: string, field: string): DomainError {
  return new DomainError('INVALID_ARGUMENT', message, { field });
}
