import { updateNode } from '../../domain/update.js';
import { MAX_PRIORITY, MIN_PRIORITY } from '../../domain/ranking.js';
import { flag, integerIn, jsonObject, nonEmptyText, optional, positiveInteger, required, text, textList } from '../args.js';
import { nodeSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { knowledgeScopeArgs } from './node-fields.js';

export const update = graphOperation({
  name: 'update',
  summary: 'Change fields of a node; --tags, --refs and the scope lists replace the whole list',
  details: 'With `--if-revision N` the update applies only if the node is still at revision N (else REVISION_CONFLICT).',
  examples: [
    ['Bring a task out of the backlog', '$0 update T-invoice-api --backlog false --as alice'],
    ['Retitle only if nobody changed it meanwhile', '$0 update T-invoice-api --title "Invoice REST API" --if-revision 3 --as alice'],
  ],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The node', { positional: true }),
    if_revision: optional(positiveInteger(), 'Apply only at this node revision'),
    allow_unregistered_initiative: optional(flag(), 'true accepts an initiative that was never registered', { standalone: true }),
    title: optional(nonEmptyText(), 'New title'),
    body: optional(text(), 'New body'),
    initiative: optional(nonEmptyText(), 'Move to this initiative'),
    domain: optional(text(), 'New domain; "" clears it'),
    tags: optional(textList(), 'Replaces all tags'),
    refs: optional(textList(), 'Replaces all refs'),
    meta: optional(jsonObject(), 'A JSON object; replaces meta'),
    definition: optional(text(), 'Tasks: definition of the work'),
    acceptance: optional(text(), 'Tasks: how a reviewer knows it is done'),
    backlog: optional(flag(), 'Tasks: true keeps it out of the ready pool'),
    priority: optional(integerIn(MIN_PRIORITY, MAX_PRIORITY), 'Tasks: 0 (most urgent) to 4 (least), how next ranks it'),
    purpose: optional(text(), 'Gates: why the decision is needed'),
    resolution_mode: optional(text(), 'Gates: how it gets decided'),
    knowledge_type: optional(text(), 'Knowledge: kind of guidance'),
    mitigation: optional(text(), 'Knowledge: what to do about it'),
    ...knowledgeScopeArgs(),
  }),
  result: () => object({ node: nodeSchema() }),
  run: ({ draft }, { id, if_revision, allow_unregistered_initiative, ...fields }) =>
    updateNode(draft, id, fields, { ifRevision: if_revision, allowUnregisteredInitiative: allow_unregistered_initiative ?? false }),
});
