/**
 * The shapes of the server's board reads (docs/http-api.md, schemas in docs/openapi.json): the
 * domain's own types where they are the same (type-only imports: nothing of the domain is bundled).
 */
import type { Claim, Edge, EdgeType } from '../../domain/model.js';
import type { NodeSummary as DomainNodeSummary } from '../../domain/node-summary.js';

export type { Claim, Edge, EdgeType, NodeType } from '../../domain/model.js';

/** A node as the snapshot lists it: its summary and when it last changed. */
export type NodeSummary = DomainNodeSummary & { updated_at?: string };

export type Summary = Record<string, number>;

export interface CatalogEntry {
  id: string;
  name: string;
  readable: boolean;
  revision: number | null;
  last_activity: string | null;
  summary: Summary;
  /** The checkouts seen using the project, most recently seen first. */
  checkouts: { label: string; last_seen: string }[];
  error?: { code: string; message: string };
}

export interface Snapshot {
  project: string;
  revision: number;
  fence_generation: number;
  summary: Summary;
  initiatives: { name: string; desc: string; created_at: string }[];
  nodes: NodeSummary[];
  edges: Edge[];
}

export interface LogEntry {
  revision: number;
  at: string;
  by: string;
  op: string;
  node: string | null;
  note?: string;
  reason?: string;
}

export interface Note {
  at: string;
  by: string;
  text: string;
}

/** A whole node as `show` prints it: the common fields, and those of its kind. */
export type FullNode = Record<string, unknown> & { id: string; title: string; status: string; notes: Note[] };

export interface NodeDetail {
  context: {
    node: FullNode;
    derived_status: string;
    claim: (Claim & { stale: boolean }) | null;
    blocking: { node: FullNode; derived_status: string; satisfied: boolean }[];
    knowledge: { node: FullNode; matched_on: string[] }[];
    informing: { edge_type: EdgeType; node: NodeSummary }[];
    alerts: { kind: string; message: string }[];
  };
  blocks: NodeSummary[];
  history: LogEntry[];
}

export interface ActivityPage {
  entries: LogEntry[];
  total: number;
  next_before: number | null;
}
