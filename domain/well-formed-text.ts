/**
 * Half of a surrogate pair standing alone. A JavaScript string may hold one (JSON's `"\ud800"`
 * escape makes it), but no UTF-8 text can: JSON.stringify writes it back as the escape, which
 * strict readers such as jq refuse, so one such title would make tasks.json and the ledger
 * unreadable to them (docs/decisions.md, "Text is well-formed Unicode").
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** The one sentence every refusal of ill-formed text gives, `where` naming the text (never quoting it: the answer stays well-formed). */
export function illFormedTextMessage(where: string): string {
  return `${where} holds half of a surrogate pair (a lone \\uD800-\\uDFFF): text must be well-formed Unicode`;
}

/** Where a JSON value holds ill-formed text: the path to it (`meta.owner`, `operations[0].args.title`), and whether the text is a key there. */
export interface IllFormedText {
  path: string;
  key: boolean;
}

/**
 * The first string in `value` (any depth, object keys included) that is not well-formed Unicode,
 * or null. Walked iteratively, so data of any depth is safe to check (domain/meta.ts bounds depth
 * later, with its own error).
 */
export function illFormedTextIn(value: unknown, root = ''): IllFormedText | null {
  const pending: [unknown, string][] = [[value, root]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      if (!isWellFormedText(item)) return { path, key: false };
    } else if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index--) pending.push([item[index], `${path}[${index}]`]);
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      const badKey = entries.find(([key]) => !isWellFormedText(key));
      if (badKey) return { path, key: true };
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        pending.push([child, path === '' ? key : `${path}.${key}`]);
      }
    }
  }
  return null;
}

/**
 * A text an answer shows with U+FFFD in place of each half of a surrogate pair it held: where it
 * is (`nodes.T-1.title`; with `key`, the last step of the path is the key that held it, as
 * shown), and each half by its place in the text (UTF-16 code units from 0) and its code unit
 * (`D83D`), so that what was stored can still be told exactly.
 */
export interface ReplacedText {
  path: string;
  key?: true;
  halves: { at: number; code_unit: string }[];
}

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * `value` (JSON data) with every half of a surrogate pair in its strings and keys, at any depth,
 * shown as U+FFFD, and every text that held one, in the order met; `value` itself, untouched,
 * when none does. For answers written from a state an earlier build stored such text in
 * (docs/decisions.md): no UTF-8 JSON can carry the half itself.
 */
export function withWellFormedText(value: unknown): { value: unknown; replaced: ReplacedText[] } {
  const replaced: ReplacedText[] = [];
  const copy = (item: unknown, path: string): unknown => {
    if (typeof item === 'string') {
      if (isWellFormedText(item)) return item;
      const shown = shownWellFormed(item);
      replaced.push({ path, halves: shown.halves });
      return shown.text;
    }
    if (Array.isArray(item)) return item.map((element, index) => copy(element, `${path}[${index}]`));
    if (typeof item !== 'object' || item === null) return item;
    const entries = Object.entries(item).map(([key, child]): [string, unknown] => {
      if (isWellFormedText(key)) return [key, copy(child, pathTo(path, key))];
      const shown = shownWellFormed(key);
      replaced.push({ path: pathTo(path, shown.text), key: true, halves: shown.halves });
      return [shown.text, copy(child, pathTo(path, shown.text))];
    });
    return Object.fromEntries(entries);
  };
  const copied = copy(value, '');
  return { value: replaced.length === 0 ? value : copied, replaced };
}

function shownWellFormed(text: string): { text: string; halves: ReplacedText['halves'] } {
  const halves: ReplacedText['halves'] = [];
  const shown = text.replace(LONE_SURROGATES, (half: string, at: number) => {
    halves.push({ at, code_unit: half.charCodeAt(0).toString(16).toUpperCase() });
    return '\uFFFD';
  });
  return { text: shown, halves };
}

function pathTo(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
