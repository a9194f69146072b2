/** One entity tag of a list, `W/` and surrounding commas and spaces aside; only its opaque part is kept. */
const LIST_ITEM = /[\s,]*(?:W\/)?("[^"]*")[\s]*(?:,|$)/y;

/**
 * Whether an `If-None-Match` field names the current representation, tagged `etag` (RFC 9110
 * 13.1.2): `*` names any, otherwise a list of entity tags compared weakly, so `W/"x"` names `"x"`
 * as a cache that revalidates with a weakened tag sends it. A malformed field names nothing: the
 * full answer is always a safe one.
 */
export function ifNoneMatch(field: string, etag: string): boolean {
  const value = field.trim();
  if (value === '*') return true;
  const current = etag.replace(/^W\//, '');
  const items = new RegExp(LIST_ITEM);
  while (items.lastIndex < value.length) {
    const match = items.exec(value);
    if (!match) return false;
    if (match[1] === current) return true;
  }
  return false;
}
