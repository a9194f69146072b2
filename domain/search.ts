import { nodeOf, storedText } from './node-map.js';
import type { GraphView } from './graph-view.js';
import { isKnowledge, type KnowledgeNode, type NodeId } from './model.js';

/** The fields `search` looks in (spec 4.4), in the order `matched_fields` lists them. */
export const SEARCH_FIELDS = ['id', 'title', 'body', 'mitigation', 'domain', 'tags', 'refs', 'meta'] as const;
type SearchField = (typeof SEARCH_FIELDS)[number];

/** Characters of context printed on each side of the first match. */
const SNIPPET_CONTEXT = 40;

export interface SearchMatch {
  id: NodeId;
  kind: 'knowledge';
  title: string;
  initiative: string;
  domain: string | null;
  status: string;
  matched_fields: SearchField[];
  snippet: string;
}

/**
 * Knowledge whose fields contain `query` as a case-insensitive substring; deprecated knowledge
 * only when `includeDeprecated`. Matches in earlier fields rank first (an id or title match
 * before a body match), then by id.
 */
export function searchKnowledge(view: Pick<GraphView, 'graph' | 'statuses'>, query: string, includeDeprecated: boolean): { matches: SearchMatch[]; count: number } {
  const needle = query.toLowerCase();
  const pieces = storedTextPieces(needle);
  const matches: SearchMatch[] = [];
  // Only knowledge is read whole; the heads say which nodes are knowledge, and which deprecated,
  // and a save's index of their text rules most out unread (the text itself, the rest it can).
  const { heads, asWritten } = view.statuses.knowledgeMayHold(pieces);
  for (const head of heads) {
    if (head.status === 'deprecated' && !includeDeprecated) continue;
    if (cannotMatch(storedText(view.graph, head.id), pieces)) {
      // The save's filter, of the line as written, let it through: a line that now cannot hold the
      // query is read (its checksum checked), so damage is named rather than taken for no match.
      // Few lines get here: the filter's false positives, and damaged ones.
      if (asWritten) nodeOf(view.graph, head.id);
      continue;
    }
    const node = nodeOf(view.graph, head.id);
    if (!isKnowledge(node)) continue;
    const texts = SEARCH_FIELDS.map((field) => [field, searchableText(node, field)] as const);
    const hits = texts.filter(([, text]) => text.toLowerCase().includes(needle));
    if (hits.length === 0) continue;
    matches.push({
      id: node.id,
      kind: 'knowledge',
      title: node.title,
      initiative: node.initiative,
      domain: node.domain,
      status: node.status,
      matched_fields: hits.map(([field]) => field),
      snippet: snippet(hits[0]![1], needle),
    });
  }
  matches.sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : 1));
  return { matches, count: matches.length };
}

/**
 * The pieces of `needle` that every node matching it holds verbatim in its stored JSON: maximal
 * runs of printable ASCII that JSON never escapes and that carry no JSON structure (no whitespace,
 * quote, backslash, brace, bracket, colon or comma), each with a character no number has (a
 * number may be written `1e3` or `1000`). A field's text holds the needle, so it holds each run;
 * a run sits inside one string or literal of the field, and a string's content is stored as it is
 * unless escaped (see `cannotMatch`); lowercasing maps each character alone for ASCII results
 * (only the Greek final sigma depends on its neighbours, and it is not ASCII). Tags and refs are
 * joined with spaces, which no run holds.
 */
function storedTextPieces(needle: string): string[] {
  return (needle.match(/[\x21\x23-\x2b\x2d-\x39\x3b-\x5a\x5e-\x7a\x7c\x7e]+/g) ?? []).filter((run) => /[^0-9.e+-]/.test(run));
}

/**
 * Whether a node stored as `text` (its JSON, unparsed) certainly does not match: some piece of
 * the needle is missing from its lowercased text. A text with an escape that stores a printable
 * character otherwise (`\u0041`, `\/`: never written by taskdag, possible in a hand edit) is not judged.
 */
function cannotMatch(text: string | undefined, pieces: readonly string[]): boolean {
  if (text === undefined || pieces.length === 0 || /\\[^nrtbf"\\]/.test(text)) return false;
  const lower = text.toLowerCase();
  return pieces.some((piece) => !lower.includes(piece));
}

function rank(match: SearchMatch): number {
  return SEARCH_FIELDS.indexOf(match.matched_fields[0]!);
}

function searchableText(node: KnowledgeNode, field: SearchField): string {
  switch (field) {
    case 'tags':
    case 'refs':
      return node[field].join(' ');
    case 'meta':
      return Object.keys(node.meta).length === 0 ? '' : JSON.stringify(node.meta);
    default:
      return node[field] ?? '';
  }
}

/** The first match with some text around it, on one line, with `…` where text was cut. */
function snippet(text: string, needle: string): string {
  const at = text.toLowerCase().indexOf(needle);
  const start = Math.max(0, at - SNIPPET_CONTEXT);
  const end = Math.min(text.length, at + needle.length + SNIPPET_CONTEXT);
  const cut = text.slice(start, end).replace(/\s+/g, ' ');
  return `${start > 0 ? '…' : ''}${cut}${end < text.length ? '…' : ''}`;
}
