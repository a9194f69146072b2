import type { GraphIndex } from './graph-index.js';
import { isTask, nodeType, type Claim, type Graph, type GraphNode, type NodeId, type NodeType } from './model.js';
import { derivedStatus } from './status.js';

/**
 * What keeps a node from being ready (domain/blockers.ts): the blockers whose BLOCKS edge is not
 * satisfied yet (`direct`), and the open roots they wait on, the unsatisfied nodes up the chain
 * that wait on nothing themselves, where work can move now (`open_roots`). Each list is sorted by
 * id and cut at BLOCKER_LIST_LIMIT; the counts are of all of them.
 */
export interface Blockers {
  direct: NodeId[];
  direct_count: number;
  open_roots: NodeId[];
  open_roots_count: number;
}

/** The short form of a node that lists carry (status buckets, `informing`); `show` gives the whole node. */
export interface NodeSummary {
  id: NodeId;
  type: NodeType;
  title: string;
  initiative: string;
  domain: string | null;
  tags: string[];
  /** The derived status (`ready`, `blocked`, `backlog` for open tasks). */
  status: string;
  revision: number;
  /** Tasks only: who holds the task, and since when. */
  claim?: Claim | null;
  /** Blocked tasks in `status` only: what they wait on. */
  blockers?: Blockers;
  /** Ready tasks in `status --ranked` only: what ranks them (domain/ranking.ts). */
  ranking?: { priority: number; critical_path: number };
}

export function summarize(graph: Graph, index: GraphIndex, node: GraphNode): NodeSummary {
  return summarizeAs(node, derivedStatus(graph, index, node));
}

/** The summary of `node` whose derived status is known already (from a StatusIndex head). */
export function summarizeAs(node: GraphNode, status: string): NodeSummary {
  const head = { id: node.id, type: nodeType(node), initiative: node.initiative, domain: node.domain, status, claim: isTask(node) ? node.claim : null };
  return summarizeListed(head, node);
}

/** The fields of a node's summary that its StatusIndex head does not hold. */
export interface NodeListing {
  title: string;
  tags: string[];
  revision: number;
}

/** What a StatusIndex head holds of a summary. */
interface ListedHead {
  id: NodeId;
  type: NodeType;
  initiative: string;
  domain: string | null;
  status: string;
  claim: Claim | null;
}

/** The summary of a node from its head and the listing a saved bucket page holds; `summarizeAs` makes it from the node through this one, so both print the same fields in the same order. */
export function summarizeListed(head: ListedHead, listing: NodeListing): NodeSummary {
  const summary: NodeSummary = {
    id: head.id,
    type: head.type,
    title: listing.title,
    initiative: head.initiative,
    domain: head.domain,
    tags: listing.tags,
    status: head.status,
    revision: listing.revision,
  };
  if (head.type === 'task') summary.claim = head.claim;
  return summary;
}

/** What ordering by age reads: a node, or a StatusIndex head. */
interface Aged {
  id: string;
  created_at: string;
}

/** Oldest first, then by id: the order every list of nodes is printed in. */
export function byAge(a: Aged, b: Aged): number {
  return compareAge(a.created_at, a.id, b.created_at, b.id);
}

/** The nodes in `byAge` order, reading each node's fields once rather than once per comparison. */
export function oldestFirst<T extends Aged>(nodes: T[]): T[] {
  return nodes
    .map((node) => ({ node, at: node.created_at, id: node.id }))
    .sort((a, b) => compareAge(a.at, a.id, b.at, b.id))
    .map((entry) => entry.node);
}

/** Earlier first, then by id: the order of nodes by when they were made, or claims by when they were taken. */
export function compareAge(atA: string, idA: string, atB: string, idB: string): number {
  if (atA !== atB) return atA < atB ? -1 : 1;
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}

/** Where one summary's JSON ends and the next one's begins, in summaries joined by commas. */
const NEXT_SUMMARY = '},{"id":';

/**
 * Each of `text`'s summaries (NodeSummary JSON texts joined by commas). A summary's JSON starts
 * with its id, and `},{"id":` occurs nowhere else: every quote inside a string is escaped, and the
 * objects a summary holds (its claim, its blockers) do not start with an id.
 */
export function summaryTexts(text: string): string[] {
  if (text === '') return [];
  const texts: string[] = [];
  let start = 0;
  for (let end = text.indexOf(NEXT_SUMMARY); end >= 0; end = text.indexOf(NEXT_SUMMARY, end + 1)) {
    texts.push(text.slice(start, end + 1));
    start = end + 2;
  }
  texts.push(text.slice(start));
  return texts;
}
