import { flag, jsonObject, nonEmptyText, optional, required, text, textList } from '../args.js';
import type { CommonFields } from '../../domain/creation.js';

/** Arguments every node-creating operation accepts (spec 4.2), built when its arguments are. */
export const commonNodeArgs = () => ({
  initiative: required(nonEmptyText(), 'A registered initiative'),
  title: required(nonEmptyText(), 'Short title'),
  body: optional(text(), 'Longer text'),
  domain: optional(text(), 'Domain, e.g. backend'),
  tags: optional(textList(), 'Tags (comma-separated on the command line)'),
  refs: optional(textList(), 'References: files, URLs, ids'),
  meta: optional(jsonObject(), 'A JSON object of free-form metadata'),
  derived_from: optional(textList(), 'Ids of the nodes this one derives from', { placeholder: 'id,id' }),
  allow_unregistered_initiative: optional(flag(), 'true accepts an initiative that was never registered'),
});

/** The scope lists of a knowledge item, built when an operation's arguments are. */
export const knowledgeScopeArgs = () => ({
  scope_domains: optional(textList(), 'Domains the knowledge applies to'),
  scope_initiatives: optional(textList(), 'Initiatives it applies to'),
  scope_tags: optional(textList(), 'Tags it applies to'),
  scope_node_ids: optional(textList(), 'Node ids it applies to', { placeholder: 'id,id' }),
});

type CommonArgs = {
  title: string;
  body?: string;
  initiative: string;
  domain?: string;
  tags?: string[];
  refs?: string[];
  meta?: Record<string, unknown>;
};

export function commonFields(args: CommonArgs): CommonFields {
  const fields: CommonFields = { title: args.title, initiative: args.initiative };
  if (args.body !== undefined) fields.body = args.body;
  if (args.domain !== undefined) fields.domain = args.domain;
  if (args.tags !== undefined) fields.tags = args.tags;
  if (args.refs !== undefined) fields.refs = args.refs;
  if (args.meta !== undefined) fields.meta = args.meta;
  return fields;
}

/** Copies the arguments that are present, under the node field names they set. */
export function presentFields<K extends string>(args: Partial<Record<K, unknown>>, keys: readonly K[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of keys) if (args[key] !== undefined) fields[key] = args[key];
  return fields;
}

export function scopeFrom(args: { scope_domains?: string[]; scope_initiatives?: string[]; scope_tags?: string[]; scope_node_ids?: string[] }) {
  return {
    domains: args.scope_domains ?? [],
    initiatives: args.scope_initiatives ?? [],
    tags: args.scope_tags ?? [],
    node_ids: args.scope_node_ids ?? [],
  };
}
