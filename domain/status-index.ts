import { nodeIds, nodeOf } from './node-map.js';
import type { SavedBlockers } from './blockers.js';
import type { Timestamp } from './clock.js';
import type { GraphIndex } from './graph-index.js';
import { isPlainJsonString } from './json-text.js';
import { isKnowledge, isTask, nodeType, type AgentName, type Claim, type Edge, type Graph, type GraphNode, type KnowledgeScope, type NodeId, type NodeType } from './model.js';
import { byAge, compareAge, summaryTexts, type NodeListing } from './node-summary.js';
import { OrderedSet, type Ordered } from './ordered-set.js';
import { derivedStatus, readinessDependents, satisfiesBlocks } from './status.js';

/**
 * What whole-graph reads select on, for one node: its type, its derived status (the status
 * bucket), the fields `status` filters and orders by, its claim, and a knowledge node's scope.
 */
export interface NodeHead {
  id: NodeId;
  type: NodeType;
  status: string;
  initiative: string;
  domain: string | null;
  created_at: Timestamp;
  claim: Claim | null;
  scope: KnowledgeScope | null;
  /** A task's own priority (domain/ranking.ts), null when it has none. */
  priority: number | null;
  /**
   * What `status` lists of the node besides its head, when a saved bucket page holds it (the
   * first pages do): read only for a node nothing changed since the save, so it is the node's.
   */
  listing?: NodeListing;
  /**
   * What a blocked task waits on, when a saved bucket page holds it (the first pages do): kept
   * only while none of the nodes it was read from changed since the save (`statusGroup`).
   */
  blockers?: SavedBlockers;
}


/**
 * Heads saved with the graph (a checkpoint), read when first needed: every head, and (when the
 * save keeps them apart) the knowledge heads alone, or those whose saved entry holds one of some
 * strings (`knowledgeHolding`: at least every knowledge head whose scope names one of them), or
 * those whose node's saved text may hold some pieces of text (`knowledgeMayHold`: at least every
 * knowledge head whose node's stored JSON, lowercased, holds each piece), or the ids of the
 * knowledge whose scope names one of a node's values in the same list (`knowledgeNaming`, given
 * them as a scope: a saved index by scope value, their heads derived from their nodes); null when
 * they cannot be used.
 */
export type SavedHeads =
  | (() => Iterable<NodeHead> | null)
  | {
      all(): Iterable<NodeHead> | null;
      knowledge(): Iterable<NodeHead> | null;
      knowledgeHolding?(values: readonly string[]): Iterable<NodeHead> | null;
      knowledgeNaming?(target: KnowledgeScope): Iterable<NodeId> | null;
      knowledgeMayHold?(pieces: readonly string[]): Iterable<NodeHead> | null;
      buckets?(): SavedBuckets | null;
    };

/**
 * Saved heads read a status bucket at a time (a checkpoint's bucket sections): what `status`
 * lists without reading every head. A null answer means damaged: every head is read instead.
 */
export interface SavedBuckets {
  /** How many heads each bucket (`<type> <status>`) held. */
  readonly counts: ReadonlyMap<string, number>;
  /** Page `page` of a bucket's heads, oldest first (`[]` past the last), with their listings and blockers where the save holds them. */
  page(key: string, page: number): readonly NodeHead[] | null;
  /** The bucket node `id` was saved in (undefined: the save does not hold it). */
  bucketOf(id: NodeId): string | undefined | null;
  /** The claimed tasks in progress, the longest-held first. */
  claimed(): readonly ClaimedTask[] | null;
  /**
   * The same tasks as the save wrote them, `[id, by, at]` each, when none of those strings is one
   * JSON escapes (isPlainJsonString); null otherwise (`claimed()` reads them then).
   */
  claimsAsWritten?(): readonly ClaimEntry[] | null;
  /**
   * The stale-claim alerts of the same tasks as JSON text (UTF-8, holding no backslash), those
   * taken at or before `cutoff` (by `holder`, when given), `now` being `nowMillis`: the bytes
   * `staleClaimAlertsJson` writes of `claimsAsWritten()`, written from the save's bytes; null
   * where the save does not give them so (the caller writes them from `claimsAsWritten()`).
   */
  staleClaimAlerts?(cutoff: Timestamp, nowMillis: number, holder: AgentName | undefined): Uint8Array | null;
  /**
   * Page `page` of a bucket's heads as `status` prints them, when the save holds them so and they
   * check (null otherwise: the page's heads are read): the entries as JSON text, and the ids of the
   * other nodes they were read from.
   */
  printed?(key: string, page: number): PrintedPage | null;
  /** The ids and creation times of page `page` of a bucket's heads, oldest first (`[]` past the last): where a head changed since the save goes among them. */
  ages?(key: string, page: number): readonly Aged[] | null;
}

/** What ordering by age reads of a head (`byAge`). */
export type Aged = Pick<NodeHead, 'id' | 'created_at'>;

/**
 * A saved bucket page as `status` prints it: `entries`, the JSON text of its heads' summaries
 * (NodeSummary, a blocked task's with its blockers) joined by commas, and `reads`, the ids of the
 * other nodes they were read from (a blocked task's blockers and the chains above them).
 */
export interface PrintedPage {
  reads: readonly NodeId[];
  entries: string;
}

/**
 * A claimed task in progress as the stale-claim alerts read it, in a list: its id, its holder, when
 * it was claimed, and that time in milliseconds since the epoch when a save holds it (null: the
 * time does not parse; absent: parsed from the time when needed).
 */
export type ClaimEntry = readonly [NodeId, AgentName, Timestamp, (number | null)?];

/** A claimed task in progress as the stale-claim alerts read it (a head is one; a saved `claims` entry holds no more). */
export type ClaimedTask = Pick<NodeHead, 'id' | 'claim'>;

/** A status group as `status` shows it: how many heads it has, and the first few. */
export interface GroupHead {
  count: number;
  first(limit: number): readonly NodeHead[];
  /**
   * The first `limit` heads' summaries as `status` prints them (JSON text, joined by commas), when
   * saved pages hold them printed and none of the other nodes they were read from changed since;
   * null otherwise. A head changed since is printed by `entryOf`, the others as saved.
   */
  printed?(limit: number, entryOf: (head: NodeHead) => string): string | null;
}

/**
 * Every node's head, kept current change by change: a change to a node marks it and the tasks
 * whose readiness can depend on it (see `readinessDependents`), and only those are derived again
 * when the heads are next read. So `status` reads heads and parses only the nodes it lists;
 * `context` matches knowledge by scope without reading the rest. It belongs to one graph's
 * StateIndexes (project-state.ts), which tells it of every change; a store may start it from
 * heads it saved with the graph (a checkpoint), so a command derives nothing it did not change.
 */
export class StatusIndex {
  private heads: Map<NodeId, NodeHead> | null = null;
  /** The heads of knowledge nodes alone, for matching scopes without walking every head. */
  private readonly knowledgeHeads = new Map<NodeId, NodeHead>();
  /**
   * The heads by type and status (`status` counts and lists one bucket without walking the
   * others: what it costs follows what it shows, not the project's size), and the claimed tasks
   * (the stale-claim alerts).
   */
  private readonly buckets = new Map<string, OrderedSet<NodeHead>>();
  private claimedHeads = new OrderedSet<NodeHead>(byClaimAge);
  /** The claims in progress that carry a lease, the earliest expiry first (what a lease sweep releases). */
  private leasedHeads = new OrderedSet<NodeHead>(byExpiry);
  /** The knowledge heads by scope entry (see `knowledgeScoping`), built on first use and then kept. */
  private scopeEntries: Map<string, Set<NodeHead>> | null = null;
  /** While every head is derived at once: heads are sorted once, when next read. */
  private bulk = false;
  /** Nodes changed, and ends of edges changed, since the heads were last brought up to date. */
  private readonly changed = new Set<NodeId>();
  /**
   * Whether the knowledge heads alone are current (read or derived without the task heads): a
   * knowledge head depends on its own node only, so `search` and scope matching derive no readiness.
   */
  private knowledgeOnly = false;
  /** Nodes changed since the knowledge heads alone were last brought up to date. */
  private readonly knowledgeChanged = new Set<NodeId>();
  /** How many times scope matching was asked for: the first reads the saved entries that can match, later ones index every knowledge head. */
  private scopings = 0;
  /** How many times a text search was asked for (as `scopings`, for `knowledgeMayHold`). */
  private textSearches = 0;
  /** How many heads this index has derived (tests count them: a kept index derives only what changed). */
  derivations = 0;
  /** The saved buckets read a page at a time, while no head is read whole (null once they prove damaged). */
  private savedBuckets: SavedBuckets | null | undefined;
  /**
   * The heads marked since the save, derived again over the saved buckets (null: the node is gone),
   * kept from one read to the next: a read derives only what was marked since the one before (a
   * long-lived process reads status between every few commits).
   */
  private bucketChanges = new Map<NodeId, NodeHead | null>();
  /** Nodes marked since `bucketChanges` was last brought up to date. */
  private readonly bucketMarks = new Set<NodeId>();
  /** The saved bucket pages read so far, by bucket and page: the save never changes while it is read. */
  private readonly savedPages = new Map<string, readonly NodeHead[] | null>();
  /** The bucket each node marked since the save was saved in, as the saved buckets answered (each group counted asks again). */
  private readonly savedKeys = new Map<NodeId, string | undefined | null>();

  /**
   * The index of `graph`, whose edges `edges` indexes. `saved`: heads true of the graph now, saved
   * with it by the store, read when first needed (every head is derived from the nodes otherwise).
   */
  constructor(
    private readonly graph: Graph,
    private readonly edges: GraphIndex,
    private saved: SavedHeads | null = null,
  ) {}

  /** Node `id` was written (or removed). Costs nothing now: its dependents are found when heads are next read. */
  nodeChanged(id: NodeId): void {
    if (this.heads || this.saved) this.changed.add(id);
    if (!this.heads && this.savedBuckets !== null) this.bucketMarks.add(id);
    if (this.knowledgeOnly) this.knowledgeChanged.add(id);
  }

  /**
   * `edge` was added or removed. Both ends are marked: what the edge led to is reached from its
   * `to` end whether or not the edge is still there.
   */
  edgeChanged(edge: Edge): void {
    this.nodeChanged(edge.from);
    this.nodeChanged(edge.to);
  }

  /**
   * Every node's head, current. A head is derived again when its node changed or when a task's
   * readiness can depend on a changed node, judged on the graph as it is now: a dependency that a
   * removed edge carried is caught by that edge's marked ends. Do not modify it.
   */
  all(): ReadonlyMap<NodeId, NodeHead> {
    this.knowledgeOnly = false;
    this.knowledgeChanged.clear();
    // Every head is read from here on: what was kept over the saved buckets is of no more use.
    if (this.savedBuckets) this.dropSavedBuckets();
    if (!this.heads && this.saved) this.heads = this.readSaved();
    if (!this.heads) {
      this.heads = new Map();
      this.clearGroups();
      this.bulk = true;
      for (const id of nodeIds(this.graph)) this.derive(id);
      this.bulk = false;
    } else if (this.changed.size > 0) {
      const stale = new Set<NodeId>();
      for (const id of this.changed) {
        stale.add(id);
        for (const dependent of readinessDependents(this.graph, this.edges, id)) stale.add(dependent);
      }
      for (const id of stale) this.derive(id);
    }
    this.changed.clear();
    return this.heads;
  }

  /**
   * The status group of `type` and `status` as `status` shows it: its count and first heads, oldest first.
   * With saved buckets and no head read yet, it reads the bucket's count and first pages and derives
   * only the heads marked since they were saved (and the tasks whose readiness follows them), not
   * every head. A saved head keeps its saved blockers only if none of the nodes they were read
   * from is one of those (which holds every node marked).
   */
  statusGroup(type: NodeType, status: string): GroupHead {
    const key = bucketKey(type, status);
    const changes = this.heads ? null : this.overSavedBuckets();
    if (!changes) {
      const bucket = this.bucket(type, status);
      return { count: bucket.size, first: (limit) => bucket.inOrder().slice(0, limit) };
    }
    const buckets = this.savedBuckets!;
    let count = buckets.counts.get(key) ?? 0;
    const moved: NodeHead[] = [];
    for (const [id, head] of changes) {
      const saved = this.savedBucketOf(buckets, id);
      if (saved === null) return this.savedBucketsDamaged(type, status);
      if (saved === key) count -= 1;
      if (head && bucketKey(head.type, head.status) === key) {
        count += 1;
        moved.push(head);
      }
    }
    return {
      count,
      first: (limit) => {
        const listed: NodeHead[] = [];
        for (let page = 0; listed.length < limit; page++) {
          const heads = this.savedPage(buckets, key, page);
          if (heads === null) return this.savedBucketsDamaged(type, status).first(limit);
          if (heads.length === 0) break;
          for (const head of heads) if (!changes.has(head.id)) listed.push(head.blockers?.reads.some((id) => changes.has(id)) ? withoutSavedBlockers(head) : head);
        }
        return [...listed, ...moved].sort(byAge).slice(0, limit);
      },
      printed: (limit, entryOf) => this.savedPrinted(buckets, key, Math.min(limit, count), changes, entryOf),
    };
  }

  /**
   * The first `wanted` heads of saved bucket `key` as `status` prints them, from the saved printed
   * pages: the heads unchanged since the save as saved, and those of `changes` in the bucket now
   * printed by `entryOf` where their age puts them among the saved ones (whose ages the bucket's
   * pages give, read only when a change touches the bucket: a head's age never changes, but it can
   * move into the bucket or out of it). The same entries, in the same order, as summarizing
   * `first(wanted)`. Null where a page is not saved so or its ages do not match its entries, or
   * one of the other nodes a page's entries were read from (a blocked task's blockers) changed.
   */
  private savedPrinted(buckets: SavedBuckets, key: string, wanted: number, changes: ReadonlyMap<NodeId, NodeHead | null>, entryOf: (head: NodeHead) => string): string | null {
    if (!buckets.printed) return null;
    const here = [...changes.values()].filter((head): head is NodeHead => head !== null && bucketKey(head.type, head.status) === key).sort(byAge);
    // Every change's saved bucket was read when the group was counted.
    const touched = here.length > 0 || [...changes.keys()].some((id) => this.savedKeys.get(id) === key);
    if (touched && !buckets.ages) return null;
    const pieces: string[] = [];
    let next = 0;
    for (let page = 0; pieces.length < wanted; page++) {
      const ages = touched ? buckets.ages!(key, page) : null;
      if (touched && ages === null) return null;
      // Past the saved pages: the changed heads after the last saved one are what is left.
      if (ages?.length === 0) break;
      const printed = buckets.printed(key, page);
      if (printed === null || printed.reads.some((id) => changes.has(id))) return null;
      const entries = summaryTexts(printed.entries);
      if (ages && ages.length !== entries.length) return null;
      for (const [at, entry] of entries.entries()) {
        const id = ages ? ages[at]!.id : idOfSummary(entry);
        // An id JSON never escapes (domain/ids.ts) opens its entry's text as `{"id":"<id>",`.
        if (!entry.startsWith(`{"id":"${id}",`) || (!ages && changes.has(id))) return null;
        while (ages && next < here.length && byAge(here[next]!, ages[at]!) < 0) pieces.push(entryOf(here[next++]!));
        if (!changes.has(id)) pieces.push(entry);
        if (pieces.length >= wanted) return pieces.slice(0, wanted).join(',');
      }
    }
    while (pieces.length < wanted && next < here.length) pieces.push(entryOf(here[next++]!));
    return pieces.length === wanted ? pieces.join(',') : null;
  }

  /** The claimed tasks in progress, the longest-held first, as `statusGroup` reads them. */
  claimedInOrder(): readonly ClaimedTask[] {
    const changes = this.heads ? null : this.overSavedBuckets();
    const saved = changes ? this.savedBuckets!.claimed() : null;
    if (!changes || !saved) {
      if (changes) this.dropSavedBuckets();
      return this.claimed().inOrder();
    }
    const kept = saved.filter((head) => !changes.has(head.id));
    const moved = [...changes.values()].filter((head): head is NodeHead => head !== null && holdsClaim(head));
    return moved.length === 0 && kept.length === saved.length ? saved : [...kept, ...moved].sort(byClaimAge);
  }

  /**
   * The claimed tasks in progress as `claimedInOrder` lists them, as `[id, by, at]` entries none of
   * whose strings JSON escapes: the saved claims as written (no object made of each), those whose
   * head the ledger tail changed replaced by their heads now; null when the saved buckets cannot
   * give them so (the caller reads `claimedInOrder`).
   */
  claimsAsWritten(): readonly ClaimEntry[] | null {
    const changes = this.heads ? null : this.overSavedBuckets();
    const saved = changes ? (this.savedBuckets!.claimsAsWritten?.() ?? null) : null;
    if (!changes || !saved) return null;
    if (changes.size === 0) return saved;
    const claims: ClaimEntry[] = [];
    for (let at = 0; at < saved.length; at++) if (!changes.has(saved[at]![0])) claims.push(saved[at]!);
    for (const head of changes.values()) {
      if (head === null || !holdsClaim(head)) continue;
      const { id, claim } = head;
      if (!isPlainJsonString(id) || !isPlainJsonString(claim!.by) || !isPlainJsonString(claim!.at)) return null;
      claims.splice(claimsBefore(claims, claim!.at, id), 0, [id, claim!.by, claim!.at]);
    }
    return claims;
  }

  /**
   * The stale-claim alerts of `claimsAsWritten` as JSON text written from the saved claims' bytes
   * (SavedBuckets.staleClaimAlerts), while the ledger tail changed no head; null otherwise.
   */
  staleClaimAlertsAsWritten(cutoff: Timestamp, nowMillis: number, holder: AgentName | undefined): Uint8Array | null {
    const changes = this.heads ? null : this.overSavedBuckets();
    return changes?.size === 0 ? (this.savedBuckets!.staleClaimAlerts?.(cutoff, nowMillis, holder) ?? null) : null;
  }

  /**
   * The heads marked since the save, derived again, when the saved buckets answer for the rest;
   * null when they cannot (none saved, damaged, or every head read already).
   */
  private overSavedBuckets(): Map<NodeId, NodeHead | null> | null {
    if (this.savedBuckets === undefined) this.savedBuckets = this.saved && typeof this.saved !== 'function' ? (this.saved.buckets?.() ?? null) : null;
    if (!this.savedBuckets) return null;
    // Past a few hundred marks (a process that keeps its state, a long tail), every head is read once and kept instead.
    if (this.changed.size > MARKS_OVER_SAVED_BUCKETS) {
      this.dropSavedBuckets();
      return null;
    }
    // As `all` keeps its heads: a head derived before stays true unless its node, or one its
    // readiness follows, was marked since, and those are derived again here. A marked node that
    // satisfies a BLOCKS edge from it as it did (a retitle, a note, a take, a submit) leaves what
    // it blocks as it was (`satisfiesAsBefore`), which is then not derived again. An edge change
    // marks both its ends: the task a BLOCKS edge ends at is derived as marked, and a gate a
    // SUPERSEDES edge ends at reads its successors only while superseded, which always counts as changed.
    const dependents = new Set<NodeId>();
    for (const id of this.bucketMarks) {
      const before = this.bucketChanges.has(id) ? keyOfHead(this.bucketChanges.get(id)!) : this.savedBucketOf(this.savedBuckets, id);
      const head = this.derivedOverSaved(id);
      if (!satisfiesAsBefore(before, head)) for (const dependent of readinessDependents(this.graph, this.edges, id)) dependents.add(dependent);
    }
    for (const id of dependents) if (!this.bucketMarks.has(id)) this.derivedOverSaved(id);
    this.bucketMarks.clear();
    return this.bucketChanges;
  }

  /** Node `id`'s head derived again over the saved buckets, kept in `bucketChanges` (null: the node is gone). */
  private derivedOverSaved(id: NodeId): NodeHead | null {
    this.derivations += 1;
    const node = nodeOf(this.graph, id);
    const head = node ? headOf(this.graph, this.edges, node) : null;
    this.bucketChanges.set(id, head);
    return head;
  }

  /** Page `page` of saved bucket `key`, read once. */
  private savedPage(buckets: SavedBuckets, key: string, page: number): readonly NodeHead[] | null {
    const at = `${key} ${page}`;
    if (!this.savedPages.has(at)) this.savedPages.set(at, buckets.page(key, page));
    return this.savedPages.get(at)!;
  }

  /** The saved buckets are read no more (damaged, or every head is read instead): what was kept over them goes. */
  private dropSavedBuckets(): void {
    this.savedBuckets = null;
    // Replaced, not cleared: a group handed out before (`statusGroup`) lists its first heads from it later.
    this.bucketChanges = new Map();
    this.bucketMarks.clear();
    this.savedPages.clear();
    this.savedKeys.clear();
  }

  /** The bucket node `id` was saved in, read once: the save never changes while it is read. */
  private savedBucketOf(buckets: SavedBuckets, id: NodeId): string | undefined | null {
    if (!this.savedKeys.has(id)) this.savedKeys.set(id, buckets.bucketOf(id));
    return this.savedKeys.get(id);
  }

  /** Saved buckets proved damaged: every head is read (or derived) instead, for good. */
  private savedBucketsDamaged(type: NodeType, status: string): GroupHead {
    this.dropSavedBuckets();
    return this.statusGroup(type, status);
  }

  /**
   * The heads of every knowledge node, current. Do not modify it. A knowledge head depends on its
   * own node alone: with saved heads that keep knowledge apart, nothing else is read or derived.
   */
  knowledge(): ReadonlyMap<NodeId, NodeHead> {
    if (this.knowledgeOnly || (!this.heads && this.readSavedKnowledge())) {
      for (const id of this.knowledgeChanged) this.deriveKnowledge(id);
      this.knowledgeChanged.clear();
    } else this.all();
    return this.knowledgeHeads;
  }

  /** The heads of the nodes of `type` whose derived status is `status`, current, oldest first (`byAge`). */
  bucket(type: NodeType, status: string): Ordered<NodeHead> {
    this.all();
    return this.buckets.get(bucketKey(type, status)) ?? EMPTY;
  }

  /**
   * The heads of the knowledge whose scope names `target`'s id, one of its tags, its domain or its
   * initiative: what can match it, found without walking every knowledge item.
   */
  knowledgeScoping(target: { id: NodeId; tags: readonly string[]; domain: string | null; initiative: string }): Set<NodeHead> {
    const keys = [scopeKey('node_ids', target.id), ...target.tags.map((tag) => scopeKey('tags', tag)), scopeKey('initiatives', target.initiative)];
    if (target.domain !== null) keys.push(scopeKey('domains', target.domain));
    // A command asks once: the saved entries that can match cost less than every knowledge head (a process that keeps its state asks again, and indexes them).
    const saved = this.scopings++ === 0 ? this.savedScoping(target, new Set(keys)) : null;
    if (saved) return saved;
    this.knowledge();
    if (!this.scopeEntries) {
      this.scopeEntries = new Map();
      for (const head of this.knowledgeHeads.values()) this.indexScope(head, 'add');
    }
    const found = new Set<NodeHead>();
    for (const key of keys) for (const head of this.scopeEntries.get(key) ?? []) found.add(head);
    return found;
  }

  /**
   * `knowledgeScoping` from the saved knowledge entries that can match (the nodes changed since
   * the save derived again), while no knowledge head is read; null when the save cannot say.
   */
  private savedScoping(target: { id: NodeId; tags: readonly string[]; domain: string | null; initiative: string }, keys: ReadonlySet<string>): Set<NodeHead> | null {
    if (this.heads || this.knowledgeOnly || !this.saved || typeof this.saved === 'function' || !this.saved.knowledgeHolding) return null;
    const values = [target.id, ...target.tags, target.initiative, ...(target.domain === null ? [] : [target.domain])];
    const named = this.saved.knowledgeNaming?.({ node_ids: [target.id], tags: [...target.tags], domains: target.domain === null ? [] : [target.domain], initiatives: [target.initiative] });
    const saved = named ? this.headsOfUnchanged(named) : this.saved.knowledgeHolding(values);
    return saved ? new Set(this.withChanged(saved, (head) => scopeNamesAny(head, keys))) : null;
  }

  /** The heads of knowledge nodes `ids` unchanged since the save, derived from their nodes (a knowledge head depends on its node alone). */
  private headsOfUnchanged(ids: Iterable<NodeId>): NodeHead[] {
    const heads: NodeHead[] = [];
    for (const id of ids) {
      const node = this.changed.has(id) ? undefined : nodeOf(this.graph, id);
      if (isKnowledge(node)) heads.push(headOf(this.graph, this.edges, node));
    }
    return heads;
  }

  /**
   * The heads of the knowledge whose node's stored JSON, lowercased, may hold every one of `pieces`
   * (lowercase runs of printable ASCII, as `search` looks for): the saved entries whose text filter
   * lets them through and the nodes changed since the save (`asWritten`: each saved one's line, as
   * written, may hold them), or else every knowledge head.
   */
  knowledgeMayHold(pieces: readonly string[]): { heads: Iterable<NodeHead>; asWritten: boolean } {
    // As with scopes: a command asks once, and a process that keeps its state walks its knowledge heads.
    if (this.textSearches++ === 0 && !this.heads && !this.knowledgeOnly && this.saved && typeof this.saved !== 'function' && this.saved.knowledgeMayHold) {
      const saved = this.saved.knowledgeMayHold(pieces);
      if (saved) return { heads: this.withChanged(saved, () => true), asWritten: true };
    }
    return { heads: this.knowledge().values(), asWritten: false };
  }

  /** Heads `saved` (a save's) of nodes unchanged since, and the heads of the knowledge changed since, derived again: those `keep` keeps. */
  private withChanged(saved: Iterable<NodeHead>, keep: (head: NodeHead) => boolean): NodeHead[] {
    const found: NodeHead[] = [];
    for (const head of saved) if (!this.changed.has(head.id) && keep(head)) found.push(head);
    for (const id of this.changed) {
      const node = nodeOf(this.graph, id);
      if (!isKnowledge(node)) continue;
      this.derivations += 1;
      const head = headOf(this.graph, this.edges, node);
      if (keep(head)) found.push(head);
    }
    return found;
  }

  /** Every status bucket, current, as `<type> <status>` and its heads oldest first: a copy, for saving. */
  groups(): [string, NodeHead[]][] {
    this.all();
    return [...this.buckets].map(([key, bucket]) => [key, [...bucket.inOrder()]]);
  }

  /** The heads of the tasks in progress under a claim, current, the longest-held claim first (then by id). */
  claimed(): Ordered<NodeHead> {
    this.all();
    return this.claimedHeads;
  }

  /** The heads of the tasks in progress under a leased claim, current, the earliest expiry first (then by id). */
  leased(): Ordered<NodeHead> {
    this.all();
    return this.leasedHeads;
  }

  private readSaved(): Map<NodeId, NodeHead> | null {
    const saved = typeof this.saved === 'function' ? this.saved() : this.saved!.all();
    this.saved = null;
    if (!saved) return null;
    const heads = new Map<NodeId, NodeHead>();
    this.clearGroups();
    this.bulk = true;
    for (const head of saved) {
      heads.set(head.id, head);
      this.group(head);
    }
    this.bulk = false;
    return heads;
  }

  /**
   * Files the saved knowledge heads alone (when the save keeps them apart), with the nodes changed
   * since marked; false when there are none to read.
   */
  private readSavedKnowledge(): boolean {
    if (!this.saved || typeof this.saved === 'function') return false;
    const saved = this.saved.knowledge();
    if (!saved) return false;
    this.clearGroups();
    for (const head of saved) {
      this.knowledgeHeads.set(head.id, head);
      this.indexScope(head, 'add');
    }
    this.knowledgeOnly = true;
    for (const id of this.changed) this.knowledgeChanged.add(id);
    return true;
  }

  /** Derives the head of node `id` if it is (or was) knowledge, into the knowledge heads alone. */
  private deriveKnowledge(id: NodeId): void {
    const node = nodeOf(this.graph, id);
    const before = this.knowledgeHeads.get(id);
    if (!before && !isKnowledge(node)) return;
    this.derivations += 1;
    if (before) {
      this.knowledgeHeads.delete(id);
      this.indexScope(before, 'delete');
    }
    if (!isKnowledge(node)) return;
    const head = headOf(this.graph, this.edges, node);
    this.knowledgeHeads.set(id, head);
    this.indexScope(head, 'add');
  }

  private clearGroups(): void {
    this.knowledgeHeads.clear();
    this.scopeEntries = null;
    this.buckets.clear();
    this.claimedHeads = new OrderedSet<NodeHead>(byClaimAge);
    this.leasedHeads = new OrderedSet<NodeHead>(byExpiry);
  }

  /** Files `head` in the groups it belongs to. */
  private group(head: NodeHead): void {
    const key = bucketKey(head.type, head.status);
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new OrderedSet<NodeHead>(byAge)));
    this.addTo(bucket, head);
    if (head.scope) {
      this.knowledgeHeads.set(head.id, head);
      this.indexScope(head, 'add');
    }
    if (holdsClaim(head)) this.addTo(this.claimedHeads, head);
    if (holdsLease(head)) this.addTo(this.leasedHeads, head);
  }

  /** Adds or removes a knowledge head's scope entries, once they are indexed. */
  private indexScope(head: NodeHead, change: 'add' | 'delete'): void {
    if (!this.scopeEntries || !head.scope) return;
    for (const list of SCOPE_LISTS) {
      for (const value of head.scope[list]) {
        const key = scopeKey(list, value);
        let heads = this.scopeEntries.get(key);
        if (change === 'delete') heads?.delete(head);
        else if (heads) heads.add(head);
        else this.scopeEntries.set(key, new Set([head]));
      }
    }
  }

  private addTo(set: OrderedSet<NodeHead>, head: NodeHead): void {
    if (this.bulk) set.addUnsorted(head);
    else set.add(head);
  }

  private ungroup(head: NodeHead): void {
    this.buckets.get(bucketKey(head.type, head.status))?.delete(head);
    this.knowledgeHeads.delete(head.id);
    this.indexScope(head, 'delete');
    if (holdsClaim(head)) this.claimedHeads.delete(head);
    if (holdsLease(head)) this.leasedHeads.delete(head);
  }

  private derive(id: NodeId): void {
    this.derivations += 1;
    const node = nodeOf(this.graph, id);
    const before = this.heads!.get(id);
    if (before) this.ungroup(before);
    if (!node) {
      this.heads!.delete(id);
      return;
    }
    const head = headOf(this.graph, this.edges, node);
    this.heads!.set(id, head);
    this.group(head);
  }
}

/** The status bucket `head` is in, null for a node that is gone. */
function keyOfHead(head: NodeHead | null): string | null {
  return head && bucketKey(head.type, head.status);
}

/**
 * Whether a node whose bucket was `before` (null or undefined: none, or unknown) and whose head is
 * now `head` satisfies a BLOCKS edge from it as it did: the tasks it blocks, and those blocked by
 * the gates it supersedes, then read as they did (`satisfiesBlocks`), so they need not be derived.
 */
function satisfiesAsBefore(before: string | null | undefined, head: NodeHead | null): boolean {
  if (!before || !head) return false;
  const [type, status] = before.split(' ') as [NodeType, string];
  const was = satisfiesBlocks(type, status);
  return was !== undefined && was === satisfiesBlocks(head.type, head.status);
}

function headOf(graph: Graph, edges: GraphIndex, node: GraphNode): NodeHead {
  return {
    id: node.id,
    type: nodeType(node),
    status: derivedStatus(graph, edges, node),
    initiative: node.initiative,
    domain: node.domain,
    created_at: node.created_at,
    claim: isTask(node) ? node.claim : null,
    scope: isKnowledge(node) ? node.scope : null,
    priority: isTask(node) ? (node.priority ?? null) : null,
  };
}

/** A saved head whose saved blockers no longer hold: its blockers are walked again. */
function withoutSavedBlockers({ blockers: _stale, ...head }: NodeHead): NodeHead {
  return head;
}

const EMPTY: Ordered<NodeHead> = new OrderedSet<NodeHead>(byAge);

/**
 * How many marked nodes `statusGroup` derives over the saved buckets at most: each read derives
 * them all again, which past this costs more than reading every head once and keeping them.
 */
const MARKS_OVER_SAVED_BUCKETS = 512;

const SCOPE_LISTS = ['node_ids', 'tags', 'domains', 'initiatives'] as const satisfies readonly (keyof KnowledgeScope)[];

function scopeKey(list: keyof KnowledgeScope, value: string): string {
  return `${list} ${value}`;
}

/** Whether a knowledge head's scope has one of the entries `keys` (as `scopeKey` makes them). */
function scopeNamesAny(head: NodeHead, keys: ReadonlySet<string>): boolean {
  return head.scope !== null && SCOPE_LISTS.some((list) => head.scope![list].some((value) => keys.has(scopeKey(list, value))));
}

/** The id a summary's JSON text opens with (`{"id":"<id>",`; an id JSON never escapes). */
function idOfSummary(entry: string): string {
  return entry.slice('{"id":"'.length, entry.indexOf('"', '{"id":"'.length));
}

function bucketKey(type: NodeType, status: string): string {
  return `${type} ${status}`;
}

/** A task in progress under a claim: what a stale-claim alert is about (a claim left on a task in another status is not). */
function holdsClaim(head: NodeHead): boolean {
  return head.type === 'task' && head.status === 'in_progress' && head.claim !== null;
}

function holdsLease(head: NodeHead): boolean {
  return holdsClaim(head) && head.claim!.expires_at !== undefined;
}

/** The earliest expiry first, then by id: the order a lease sweep releases claims in. */
function byExpiry(a: NodeHead, b: NodeHead): number {
  return compareAge(a.claim!.expires_at!, a.id, b.claim!.expires_at!, b.id);
}

/** How many of `claims` (the longest-held first) come before a claim taken at `at` of task `id`. */
function claimsBefore(claims: readonly ClaimEntry[], at: Timestamp, id: NodeId): number {
  let [low, high] = [0, claims.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareAge(claims[middle]![2], claims[middle]![0], at, id) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The longest-held claim first, then by id: the order of stale-claim alerts. */
function byClaimAge(a: ClaimedTask, b: ClaimedTask): number {
  return compareAge(a.claim!.at, a.id, b.claim!.at, b.id);
}
