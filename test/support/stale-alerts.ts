import { staleClaimAlertAged } from '../../domain/alerts.js';
import type { ClaimEntry } from '../../domain/status-index.js';

/**
 * What `status` prints of `claims` (the longest-held first, `[id, by, at, ...]`), taken at or before
 * `cutoff` (by `holder`, when given), `now` being `nowMillis`: the alerts made as objects, then
 * JSON.stringify. The oracle of every writer of the alerts' text.
 */
export function staleAlertsAsObjects(claims: readonly ClaimEntry[], cutoff: string, holder: string | undefined, nowMillis: number): string {
  const alerts = [];
  for (const [node, by, at] of claims) {
    if (at > cutoff) break;
    if (holder === undefined || by === holder) alerts.push(staleClaimAlertAged(node, { by, at }, nowMillis - Date.parse(at)));
  }
  return JSON.stringify(alerts);
}
