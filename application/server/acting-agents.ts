import type { AgentName } from '../../domain/model.js';

/**
 * Every agent a server request acts as: its caller, and for a batch the `as` of each item
 * (docs/batch.md), so a bound credential cannot reach another agent through a batch. Items that
 * are not well formed name nobody here; the batch itself refuses them.
 */
export function actingAgents(operation: string, args: Record<string, unknown>, agent: AgentName | null): AgentName[] {
  const acting = agent === null ? [] : [agent];
  if (operation !== 'batch' || !Array.isArray(args.operations)) return acting;
  for (const item of args.operations as unknown[]) {
    const as = typeof item === 'object' && item !== null ? (item as { as?: unknown }).as : undefined;
    if (typeof as === 'string') acting.push(as);
  }
  return acting;
}
