import { createNode, type Links } from '../../domain/creation.js';
import { GraphDraft } from '../../domain/draft.js';
import { projectState } from '../../domain/project-state.js';
import { emptyGraph, type GateNode, type GraphNode, type KnowledgeNode, type NodeType, type TaskNode } from '../../domain/model.js';

/** The fixed instant every domain fixture is stamped with. */
export const NOW = '2026-01-02T03:04:05.678Z';

/** A draft over an empty project state (with initiative `core` registered), acting as `agent`. */
export function newDraft(agent: string | null = 'alice'): GraphDraft {
  const graph = projectState(emptyGraph());
  graph.initiatives.core = { desc: 'fixtures', created_at: NOW };
  return new GraphDraft(graph, NOW, agent);
}

/**
 * Adds a node through the domain's own creation rule, so fixtures get the real defaults.
 * `specific` sets type fields (a stored `status` included); `links` adds its edges.
 */
export function addNode(
  draft: GraphDraft,
  type: NodeType,
  id: string,
  specific: Partial<TaskNode> | Partial<GateNode> | Partial<KnowledgeNode> = {},
  links: Links = {},
): GraphNode {
  const scope = type === 'knowledge' ? { scope: { domains: ['any'], initiatives: [], tags: [], node_ids: [] } } : {};
  return createNode(
    draft,
    {
      id,
      type,
      common: { title: `title of ${id}`, initiative: 'core' },
      specific: { ...scope, ...specific },
      links,
      allowUnregisteredInitiative: false,
      op: 'fixture',
    },
    () => 'deadbeef',
  );
}

export const addTask = (draft: GraphDraft, id: string, specific: Partial<TaskNode> = {}, links: Links = {}) =>
  addNode(draft, 'task', id, specific, links) as TaskNode;
export const addGate = (draft: GraphDraft, id: string, specific: Partial<GateNode> = {}, links: Links = {}) =>
  addNode(draft, 'gate', id, specific, links) as GateNode;
export const addKnowledge = (draft: GraphDraft, id: string, specific: Partial<KnowledgeNode> = {}, links: Links = {}) =>
  addNode(draft, 'knowledge', id, specific, links) as KnowledgeNode;

/** Runs `act` and returns the DomainError it throws; fails the test when it throws nothing. */
/**
 * `chains` chains of `length` tasks, each behind a gate (the first task of every even chain is not
 * blocked by it), and a knowledge item scoped to each chain's tag (`knowledgeBody(chain)` its body,
 * none by default): a graph whose readiness and knowledge scopes a ledger tail can move.
 */
export function chainedDraft(chains: number, length: number, knowledgeBody?: (chain: number) => string): GraphDraft {
  const draft = newDraft();
  for (let chain = 0; chain < chains; chain++) {
    addGate(draft, `G-${chain}`);
    for (let step = 0; step < length; step++) {
      const blocker = step === 0 ? `G-${chain}` : `T-${chain}-${step - 1}`;
      addTask(draft, `T-${chain}-${step}`, { tags: [`chain-${chain}`] }, { blocked_by: step === 0 && chain % 2 === 0 ? [] : [blocker] });
    }
    const body = knowledgeBody ? { body: knowledgeBody(chain) } : {};
    addKnowledge(draft, `K-${chain}`, { title: `know ${chain}`, ...body, scope: { domains: [], initiatives: [], tags: [`chain-${chain}`], node_ids: [] } });
  }
  return draft;
}

export function thrownBy(act: () => unknown): { code: string; details: Record<string, unknown>; message: string } {
  try {
    act();
  } catch (error) {
    return error as { code: string; details: Record<string, unknown>; message: string };
  }
  throw new Error('expected a DomainError, but nothing was thrown');
}
