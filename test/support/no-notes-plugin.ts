/**
 * A policy plugin for tests (plugin API 1): it refuses every `add-note`, an action a task's
 * context always offers, so whether a context's `allowed_actions` went past the plugins shows.
 */
export const name = 'no-notes';
export const apiVersion = 1;

export function decide({ operation }: { operation: string }): { allow: boolean; reason?: string } {
  return operation === 'add-note' ? { allow: false, reason: 'notes are closed on this project' } : { allow: true };
}
