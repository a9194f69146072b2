import { nodeOf } from '../../domain/node-map.js';
import { createNode, type CreationRequest } from '../../domain/creation.js';
import { GraphDraft } from '../../domain/draft.js';
import * as lifecycle from '../../domain/lifecycle.js';
import { projectState } from '../../domain/project-state.js';
import { emptyGraph, type Graph, type GraphNode, type KnowledgeScope, type NodeId, type NodeType } from '../../domain/model.js';

export const START = '2030-01-01T00:00:00.000Z';
export const INITIATIVE = 'demo';

interface NodeOptions {
  blocked_by?: NodeId[];
  supersedes?: NodeId;
  derived_from?: NodeId[];
  tags?: string[];
  domain?: string;
  initiative?: string;
  specific?: Record<string, unknown>;
}

/**
 * A graph built through the real domain rules, for domain tests: every step runs in its own
 * draft as a named agent at the fixture's current time, like one command would.
 */
export class GraphFixture {
  /** A project state: every draft of the fixture keeps the same indexes current. */
  graph: Graph = projectState(emptyGraph());
  now = START;

  constructor() {
    this.graph.initiatives[INITIATIVE] = { desc: '', created_at: START };
  }

  draft(agent: string | null = 'planner'): GraphDraft {
    return new GraphDraft(this.graph, this.now, agent);
  }

  /** Runs one step as `agent`, like a command would. */
  as<T>(agent: string, step: (draft: GraphDraft) => T): T {
    return step(this.draft(agent));
  }

  advance(ms: number): void {
    this.now = new Date(Date.parse(this.now) + ms).toISOString();
  }

  node(id: NodeId): GraphNode {
    return nodeOf(this.graph, id)!;
  }

  task(id: NodeId, options: NodeOptions = {}): GraphNode {
    return this.create('task', id, options);
  }

  gate(id: NodeId, options: NodeOptions = {}): GraphNode {
    return this.create('gate', id, options);
  }

  knowledge(id: NodeId, scope: Partial<KnowledgeScope>, options: NodeOptions = {}): GraphNode {
    const full = { domains: [], initiatives: [], tags: [], node_ids: [], ...scope };
    return this.create('knowledge', id, { ...options, specific: { scope: full, ...options.specific } });
  }

  /** A copy that can be changed without touching this one. */
  clone(): GraphFixture {
    const copy = new GraphFixture();
    copy.graph = structuredClone(this.graph);
    copy.now = this.now;
    return copy;
  }

  private create(type: NodeType, id: NodeId, options: NodeOptions): GraphNode {
    const request: CreationRequest = {
      id,
      type,
      common: { title: `Title of ${id}`, body: `Body of ${id}`, initiative: options.initiative ?? INITIATIVE, tags: options.tags, domain: options.domain },
      specific: (options.specific ?? {}) as CreationRequest['specific'],
      links: { blocked_by: options.blocked_by, supersedes: options.supersedes, derived_from: options.derived_from },
      allowUnregisteredInitiative: true,
      op: `add-${type}`,
    };
    return createNode(this.draft(), request, () => 'abcdef01');
  }
}

/** Every reachable status of every kind, each built by the real transitions, and who did what. */
export const STATES = [
  'task ready',
  'task blocked',
  'task backlog',
  'task in_progress',
  'task submitted',
  'task done',
  'task archived',
  'task canceled',
  'gate open',
  'gate resolved',
  'gate superseded',
  'gate canceled',
  'knowledge active',
  'knowledge deprecated',
] as const;
export type StateName = (typeof STATES)[number];

/**
 * Builds node `X` in the named state. `alice` is the worker (claims, submits: so done_by too),
 * `bob` the reviewer and resolver, `carol` a bystander.
 */
export function nodeInState(state: StateName): GraphFixture {
  const fixture = new GraphFixture();
  const worked = () => {
    fixture.task('X');
    fixture.as('alice', (draft) => lifecycle.take(draft, 'X'));
  };
  switch (state) {
    case 'task ready':
      fixture.task('X');
      break;
    case 'task blocked':
      fixture.gate('G-wait');
      fixture.task('X', { blocked_by: ['G-wait'] });
      break;
    case 'task backlog':
      fixture.task('X', { specific: { backlog: true } });
      break;
    case 'task in_progress':
      worked();
      break;
    case 'task submitted':
      worked();
      fixture.as('alice', (draft) => lifecycle.submit(draft, 'X', 'evidence'));
      break;
    case 'task done':
      worked();
      fixture.as('alice', (draft) => lifecycle.submit(draft, 'X', 'evidence'));
      fixture.as('bob', (draft) => lifecycle.accept(draft, 'X'));
      break;
    case 'task archived':
      fixture.task('X', { specific: { status: 'archived' } });
      break;
    case 'task canceled':
      fixture.task('X');
      fixture.as('orchestrator', (draft) => lifecycle.cancel(draft, 'X', 'not needed'));
      break;
    case 'gate open':
      fixture.gate('X');
      break;
    case 'gate resolved':
      fixture.gate('X');
      fixture.as('bob', (draft) => lifecycle.resolve(draft, 'X', 'A', 'because'));
      break;
    case 'gate superseded':
      fixture.gate('X');
      fixture.gate('G-next', { supersedes: 'X' });
      break;
    case 'gate canceled':
      fixture.gate('X');
      fixture.as('orchestrator', (draft) => lifecycle.cancel(draft, 'X', 'moot'));
      break;
    case 'knowledge active':
      fixture.knowledge('X', { initiatives: [INITIATIVE] });
      break;
    case 'knowledge deprecated':
      fixture.knowledge('X', { initiatives: [INITIATIVE] });
      fixture.as('bob', (draft) => lifecycle.deprecateKnowledge(draft, 'X', 'old'));
      break;
  }
  return fixture;
}
