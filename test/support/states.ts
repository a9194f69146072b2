import { createNode } from '../../domain/creation.js';
import { GraphDraft } from '../../domain/draft.js';
import { registerInitiative } from '../../domain/initiatives.js';
import { applyChangeSet } from '../../domain/change-set.js';
import { emptyGraph, type NodeType, type State } from '../../domain/model.js';

export const AT = '2026-01-02T03:04:05.678Z';

/**
 * A valid schema-1 state made by the domain's own rules: an initiative, a gate, a task it blocks,
 * a knowledge item, and their log.
 */
export function sampleState(): State {
  const draft = new GraphDraft(emptyGraph(), AT, 'alice');
  registerInitiative(draft, 'core', 'fixtures');
  const add = (type: NodeType, id: string, blockedBy: string[] = []) =>
    createNode(
      draft,
      {
        id,
        type,
        common: { title: id, initiative: 'core' },
        specific: type === 'knowledge' ? { scope: { domains: ['api'], initiatives: [], tags: [], node_ids: [] } } : {},
        links: { blocked_by: blockedBy },
        allowUnregisteredInitiative: false,
        op: `add-${type}`,
      },
      () => '00000000',
    );
  add('gate', 'G-1');
  add('task', 'T-1', ['G-1']);
  add('knowledge', 'K-1');
  const changes = draft.changes()!;
  const graph = emptyGraph();
  applyChangeSet(graph, changes);
  return { ...graph, log: changes.log };
}
