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
