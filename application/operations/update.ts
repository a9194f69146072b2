import { updateNode } from '../../domain/update.js';
import { flag, jsonObject, nonEmptyText, optional, positiveInteger, required, text, textList } from '../args.js';
import { graphOperation } from '../define.js';

export const update = graphOperation({
  name: 'update',
  mutates: true,
  args: {
    id: required(nonEmptyText()),
    if_revision: optional(positiveInteger()),
    allow_unregistered_initiative: optional(flag()),
    title: optional(nonEmptyText()),
    body: optional(text()),
    initiative: optional(nonEmptyText()),
    domain: optional(text()),
    tags: optional(textList()),
    refs: optional(textList()),
    meta: optional(jsonObject()),
    definition: optional(text()),
    acceptance: optional(text()),
    backlog: optional(flag()),
    purpose: optional(text()),
    resolution_mode: optional(text()),
    knowledge_type: optional(text()),
    mitigation: optional(text()),
    scope_domains: optional(textList()),
    scope_initiatives: optional(textList()),
    scope_tags: optional(textList()),
    scope_node_ids: optional(textList()),
  },
  run: ({ draft }, { id, if_revision, allow_unregistered_initiative, ...fields }) =>
    updateNode(draft, id, fields, { ifRevision: if_revision, allowUnregisteredInitiative: allow_unregistered_initiative ?? false }),
});
