import { ACTIONS } from '../../domain/permissions.js';
import { EDGE_TYPES, GATE_STATUSES, KNOWLEDGE_STATUSES, TASK_STATUSES } from '../../domain/model.js';
import { SEARCH_FIELDS } from '../../domain/search.js';
import { warningsField } from '../remote/warnings.js';
import { anyJson, anyOf, array, boolean, integer, lazily, literal, nullable, object, oneOf, optional, record, string } from './schema.js';

/**
 * The pieces results are made of, declared once so every operation's result schema shares them.
 * Each is built on first use (`taskSchema()`): a command line never builds the schemas of the
 * results it does not check, which cost every command's start-up about half a millisecond.
 */

const timestamp = (description = 'ISO 8601 UTC with milliseconds') => string(description);
const nodeId = (description = 'A node id') => string(description);
const names = (description: string) => array(string(), description);

export const claimSchema = lazily(() => object({
  by: string('The agent holding the task'),
  at: timestamp('When it was claimed'),
  token: optional(integer('The fencing token of this claim: pass it as --claim-token to submit, release and renew')),
  lease_ms: optional(integer('The lease, when the claim has one: how long it runs after each renewal')),
  expires_at: optional(timestamp('When the lease ends unless renewed; recovery may then sweep the claim')),
}));
const noteSchema = lazily(() => object({ at: timestamp(), by: string('Who wrote it'), text: string() }));

const nodeBase = lazily(() => ({
  id: nodeId(),
  title: string(),
  body: string(),
  refs: names('References: files, URLs, ids'),
  meta: record(anyJson(), 'Free-form metadata'),
  initiative: string(),
  domain: nullable(string()),
  tags: names('Tags'),
  revision: integer('Bumped by every change to the node'),
  notes: array(noteSchema(), 'Timestamped notes, oldest first'),
  created_at: timestamp(),
  created_by: string(),
  updated_at: timestamp(),
}));

export const taskSchema = lazily(() => object({
  ...nodeBase(),
  kind: literal('resolvable'),
  subkind: literal('task'),
  status: oneOf(TASK_STATUSES, 'The stored status; ready, blocked and backlog are derived (see context)'),
  definition: nullable(string()),
  acceptance: nullable(string()),
  backlog: boolean(),
  claim: nullable(claimSchema()),
  submitted_by: nullable(string()),
  submitted_at: nullable(timestamp()),
  done_by: nullable(string()),
  done_at: nullable(timestamp()),
  accepted_by: nullable(string()),
  accepted_at: nullable(timestamp()),
  note: nullable(string('Delivery evidence given at submit')),
  rejection: optional(
    object(
      { reason: string('Why the latest submission was sent back'), by: string('Who rejected it'), at: timestamp('When') },
      { description: 'Present from a reject until the task is accepted' },
    ),
  ),
  priority: optional(integer('0 (most urgent) to 4 (least); absent: 2. Ranks `next`')),
}));

export const gateSchema = lazily(() => object({
  ...nodeBase(),
  kind: literal('resolvable'),
  subkind: literal('gate'),
  status: oneOf(GATE_STATUSES),
  purpose: nullable(string()),
  resolution_mode: nullable(string()),
  resolution: nullable(object({ choice: string(), rationale: string() })),
  resolved_by: nullable(string()),
  resolved_at: nullable(timestamp()),
}));

const scopeSchema = lazily(() => object({
  domains: names('Domains the knowledge applies to'),
  initiatives: names('Initiatives it applies to'),
  tags: names('Tags it applies to'),
  node_ids: names('Nodes it applies to'),
}));

export const knowledgeSchema = lazily(() => object({
  ...nodeBase(),
  kind: literal('knowledge'),
  status: oneOf(KNOWLEDGE_STATUSES),
  knowledge_type: nullable(string()),
  mitigation: nullable(string()),
  scope: scopeSchema(),
  deprecation_reason: nullable(string()),
  deprecated_at: nullable(timestamp()),
  deprecated_by: nullable(string()),
}));

export const nodeSchema = lazily(() => anyOf(taskSchema(), gateSchema(), knowledgeSchema()));
export const nodeTypeSchema = lazily(() => oneOf(['task', 'gate', 'knowledge'] as const));
export const edgeSchema = lazily(() => object({ from: nodeId('Blocker, successor or derived node'), to: nodeId(), type: oneOf(EDGE_TYPES) }));
export const newlyReadySchema = lazily(() => array(nodeId(), 'Tasks that became ready through this change, sorted'));

/** What keeps a task blocked (domain/blockers.ts): each list sorted by id and cut at 10, its count of all. */
export const blockersSchema = lazily(() => object(
  {
    direct: names('Blockers whose BLOCKS edge is not satisfied yet'),
    direct_count: integer(),
    open_roots: names('The unsatisfied nodes up the chain that wait on nothing: where work can move now'),
    open_roots_count: integer(),
  },
  { description: 'Blocked tasks only: what the task waits on' },
));

/** The short form of a node that lists carry; `show` gives the whole node. */
export const nodeSummaryProperties = lazily(() => ({
  id: nodeId(),
  type: nodeTypeSchema(),
  title: string(),
  initiative: string(),
  domain: nullable(string()),
  tags: names('Tags'),
  status: string('The derived status (ready, blocked, backlog for open tasks)'),
  revision: integer(),
  claim: optional(nullable(claimSchema())),
  blockers: optional(blockersSchema()),
  ranking: optional(object({ priority: integer('0 (most urgent) to 4; 2 when the task has none'), critical_path: integer('Unfinished tasks on the longest chain waiting on it, itself included') }, { description: 'status --ranked: what ranks a ready task' })),
}));
export const nodeSummarySchema = lazily(() => object(nodeSummaryProperties()));

const staleClaimAlert = lazily(() => object({
  kind: literal('STALE_CLAIM'),
  node: nodeId(),
  claimed_by: string(),
  claimed_at: timestamp(),
  age_ms: integer(),
  message: string(),
}));
const supersededBlockerAlert = lazily(() => object({
  kind: literal('SUPERSEDED_BLOCKER'),
  node: nodeId(),
  blocker: nodeId(),
  superseded_by: names('Gates that directly replace the blocker'),
  satisfied: boolean('Whether the chain of successors ends in a resolved gate'),
  message: string(),
}));
const deprecatedSoonAlert = lazily(() => object({
  kind: literal('KNOWLEDGE_DEPRECATED_SOON'),
  node: nodeId(),
  knowledge: nodeId(),
  deprecated_at: nullable(timestamp()),
  deprecation_reason: nullable(string()),
  superseded_by: names('Knowledge that replaces it'),
  message: string(),
}));
export const staleClaimAlertSchema = staleClaimAlert;
export const alertSchema = lazily(() => anyOf(staleClaimAlert(), supersededBlockerAlert(), deprecatedSoonAlert()));

export const contextSchema = lazily(() => object({
  node: nodeSchema(),
  derived_status: string(),
  can_claim: boolean(),
  revision: integer(),
  claim: nullable(object({ by: string(), at: timestamp(), stale: boolean(), token: optional(integer()), lease_ms: optional(integer()), expires_at: optional(timestamp()) })),
  blocking: array(object({ node: nodeSchema(), derived_status: string(), satisfied: boolean() }), 'Incoming BLOCKS edges, each blocker whole'),
  knowledge: array(
    object({ node: knowledgeSchema(), matched_on: array(oneOf(['domains', 'initiatives', 'tags', 'node_ids'] as const)) }),
    'Matching knowledge, most specific first',
  ),
  informing: array(object({ edge_type: oneOf(EDGE_TYPES), node: nodeSummarySchema() })),
  alerts: array(alertSchema()),
  allowed_actions: array(oneOf(ACTIONS), 'What the calling agent may do to the node now'),
}));

export const snapshotMetadataSchema = lazily(() => object({
  id: string('Timestamp-prefixed: lexicographic order is creation order'),
  created_at: timestamp(),
  reason: oneOf(['force-init', 'corrupt-recovery', 'pre-restore', 'pre-migrate'] as const),
  bytes: integer(),
  sha256: string(),
  raw_files: optional(
    array(
      object({ name: string(), bytes: integer(), sha256: string() }),
      'For a state that did not load: the other raw files kept beside it, each with its size and digest',
    ),
  ),
  plugins: optional(object({ bytes: integer(), sha256: string() }, { description: 'When the state had policy plugins: the size and digest of their table and data, kept beside it' })),
}));

export const logEntrySchema = lazily(() => object(
  {
    revision: integer('The state revision this change produced'),
    at: timestamp(),
    by: string(),
    op: string('The operation (or event: restore, migrate, transfer.push, transfer.pull)'),
    node: nullable(nodeId()),
    note: optional(string()),
    reason: optional(string()),
  },
  { open: true },
));

export const stateSchema = lazily(() => object({
  version: literal(1),
  fence_generation: integer(),
  revision: integer(),
  initiatives: record(object({ desc: string(), created_at: timestamp() })),
  nodes: record(nodeSchema()),
  edges: array(edgeSchema()),
  log: array(logEntrySchema()),
}));

export const searchMatchSchema = lazily(() => object({
  id: nodeId(),
  kind: literal('knowledge'),
  title: string(),
  initiative: string(),
  domain: nullable(string()),
  status: string(),
  matched_fields: array(oneOf(SEARCH_FIELDS)),
  snippet: string(),
}));

/** The failure envelope every driver prints or answers (spec 4.1). */
export const errorEnvelopeSchema = lazily(() => object({
  ok: literal(false),
  error: object({ code: string('Stable machine code (spec 7, docs/errors.md)'), message: string('For people; never parse it'), details: record(anyJson()) }),
  warnings: warningsField(),
}));

/** One installed policy plugin (docs/plugins.md). */
export const installedPluginSchema = lazily(() => object({
  name: string('What the plugin declares as its name'),
  module: string('The absolute path of its module'),
  api_version: integer('The plugin API version it implements'),
  installed_at: string('When it was installed (ISO 8601 UTC with milliseconds)'),
  installed_by: string('The agent who installed it'),
  data: anyJson('Its JSON data (null when none was given)'),
}));

/** A project's policy plugins by name, as transfers carry them: without modules, each host runs its own. */
export const pluginTableSchema = lazily(() => record(
  object({
    name: string('The plugin, as its host knows it (a server: its operator\'s list)'),
    module: optional(string('Never sent by a server; ignored when a client sends it')),
    api_version: integer('The plugin API version it implements'),
    installed_at: string('When it was installed (ISO 8601 UTC with milliseconds)'),
    installed_by: string('The agent who installed it'),
    data: anyJson('Its JSON data (null when none was given)'),
  }),
  'The policy plugins and their data, by name (docs/plugins.md)',
));

/** What `POST /v1/auth/login` answers: a new session. */
export const loginAnswerSchema = lazily(() => object({ bearer: string('Send as Authorization: Bearer'), expires_at: string() }));

/** What `GET /v1/projects/:id/transfer` answers (pull): the whole state and its plugins. */
export const transferStateSchema = lazily(() => object({ project_id: string(), state: stateSchema(), plugins: pluginTableSchema() }));

/** What `PUT /v1/projects/:id/transfer` answers (push) once the state is replaced. */
export const transferAnswerSchema = lazily(() => object({ project_id: string(), revision: integer('The server revision after the transfer'), replaced_revision: integer() }));
