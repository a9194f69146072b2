import { DomainError } from './errors.js';
import type { AgentName } from './model.js';

/**
 * Who a bearer may act as (docs/operating.md, "Identities"). A bearer of the shared password
 * (the spec's mode) is bound to no list: it may act as any agent. A bearer of a bound credential
 * may act only as the agents its credential names; an administrator (orchestrator, recovery) is
 * no exception, so only a credential that names it may act as it.
 */
export type AgentBinding = { kind: 'any' } | { kind: 'credential'; credential: string; agents: readonly AgentName[] };

export const ANY_AGENT: AgentBinding = { kind: 'any' };

/** Refuses the first agent of `acting` the binding does not allow, naming it and the allowed ones. */
export function requireAllowedAgents(binding: AgentBinding, acting: readonly AgentName[]): void {
  if (binding.kind === 'any') return;
  const refused = acting.find((agent) => !binding.agents.includes(agent));
  if (refused === undefined) return;
  throw new DomainError(
    'AGENT_NOT_ALLOWED',
    `The credential ${binding.credential} may act only as ${binding.agents.join(', ')}, not as ${refused}: log in with a credential that names ${refused}, or ask the server's operator for one`,
    { agent: refused, allowed: [...binding.agents], credential: binding.credential },
  );
}
