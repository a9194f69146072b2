import { mergeChangeSets, type ChangeSet } from '../domain/change-set.js';
import { GraphDraft } from '../domain/draft.js';
import type { AgentName, Graph } from '../domain/model.js';
import { earlierAnswerIn } from '../domain/project-state.js';
import type { RequestKey } from '../domain/request-window.js';
import { checkRequest, LocalDispatcher, waitingIfAsked, wholeResult, type DispatcherServices } from './dispatcher.js';
import type { GraphOperation, OperationDispatcher, OperationRequest } from './operation.js';
import type { PluginReader, ProjectStore } from './ports/project-store.js';
import { policyContext, runChecked } from './policy.js';

interface Pending {
  operation: GraphOperation;
  args: ReturnType<GraphOperation['parse']>;
  agent: AgentName | null;
  key: RequestKey | undefined;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/** The revision a commit produced, announced to whoever follows the project (live events). */
export interface Committed {
  revision: number;
  fence_generation: number;
}
export type CommitListener = (project: string, committed: Committed) => void;

type Outcome = { ok: true; result: unknown; changes: ChangeSet | null } | { ok: false; error: unknown };

/**
 * The server's dispatcher: mutations of one project that arrive while a commit is in flight wait
 * together and then commit as one transaction, with one ledger append and one fsync (group
 * commit), so throughput is not bounded by one fsync per mutation. Each request still runs on
 * the graph as the ones before it left it, so a claim has exactly one winner; a request that
 * fails is rolled back and answered with its own error without touching the others; every caller
 * is answered only once the whole group is durable. Everything else runs as the local dispatcher.
 */
export class GroupCommitDispatcher implements OperationDispatcher {
  private readonly local: LocalDispatcher;
  private readonly queues = new Map<string, ProjectQueue>();

  constructor(
    private readonly services: DispatcherServices,
    private readonly onCommit: CommitListener = () => undefined,
  ) {
    this.local = new LocalDispatcher(services);
  }

  async dispatch(request: OperationRequest): Promise<unknown> {
    const checked = checkRequest(this.services.registry, request);
    const { operation, args } = checked;
    if (operation.scope !== 'graph' || !operation.mutates || request.project === null) return this.local.run(checked, request);
    const { project, agent, key, signal } = request;
    return waitingIfAsked(this.services, this.services.stores.open(project), project, operation, args, agent, () => this.queueOf(project).submit(operation, args, agent, key), signal);
  }

  private queueOf(project: string): ProjectQueue {
    let queue = this.queues.get(project);
    if (!queue) {
      queue = new ProjectQueue(this.services.stores.open(project), this.services, (committed) => this.onCommit(project, committed));
      this.queues.set(project, queue);
    }
    return queue;
  }
}

class ProjectQueue {
  private pending: Pending[] = [];
  private flushing = false;

  constructor(
    private readonly store: ProjectStore,
    private readonly services: Pick<DispatcherServices, 'clock' | 'ids' | 'plugins' | 'registry' | 'review'>,
    private readonly committed: (committed: Committed) => void,
  ) {}

  submit(operation: GraphOperation, args: Pending['args'], agent: AgentName | null, key: RequestKey | undefined): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.pending.push({ operation, args, agent, key, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        // One turn of the event loop lets the requests that arrived together join the first group.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending;
      this.pending = [];
      try {
        const { outcomes, changes, at } = await this.store.transact((graph, plugins) => {
          // The drafts of the requests that succeeded, for `undo` alone: the result the store holds
          // until the group is durable keeps no draft (its undo steps hold every node it replaced),
          // so a store that never undoes (the file store) lets them go before its fsync.
          const applied: GraphDraft[] = [];
          const outcomes = group.map((item) => this.runOne(graph, plugins, item, applied));
          const changes = mergeChangeSets(outcomes.flatMap((outcome) => (outcome.ok && outcome.changes ? [outcome.changes] : [])));
          // The requests that failed were rolled back already; the others are undone last first.
          const undo = () => applied.reverse().forEach((draft) => draft.rollback());
          return { result: { outcomes, changes, at: { revision: graph.revision, fence_generation: graph.fence_generation } }, changes, undo };
        });
        if (changes) this.committed(at);
        outcomes.forEach((outcome, index) => (outcome.ok ? group[index]!.resolve(outcome.result) : group[index]!.reject(outcome.error)));
      } catch (error) {
        // The commit itself failed (storage): nothing of the group is durable, so nobody succeeded.
        for (const item of group) item.reject(error);
      }
    }
    this.flushing = false;
  }

  /**
   * Runs one request on the graph as the ones before it (in this group too) left it. A retry of a
   * request already committed, by its id, gets that request's answer and changes nothing.
   */
  private runOne(graph: Graph, plugins: PluginReader, item: Pending, applied: GraphDraft[]): Outcome {
    const draft = new GraphDraft(graph, this.services.clock.now(), item.agent, this.services.review);
    const context = policyContext(draft, [], plugins, { runtime: this.services.plugins, registry: this.services.registry, ids: this.services.ids });
    try {
      const earlier = item.key ? earlierAnswerIn(graph, item.key, draft.now) : null;
      if (earlier) return { ok: true, result: earlier.answer, changes: null };
      const result = runChecked(item.operation, context, item.args, plugins, this.services.plugins, () => wholeResult(item.operation, context, item.args));
      if (item.key) draft.rememberRequest({ ...item.key, at: draft.now, answer: result });
      applied.push(draft);
      return { ok: true, result, changes: draft.changes() };
    } catch (error) {
      draft.rollback();
      return { ok: false, error };
    }
  }
}
