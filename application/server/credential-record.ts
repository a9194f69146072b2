import { DomainError } from '../../domain/errors.js';
import type { AgentName } from '../../domain/model.js';
import { verifierProblem, type PasswordVerifier } from './auth-record.js';

/**
 * A bound credential (docs/operating.md, "Identities"): a name, the agents its bearers may act
 * as, and the verifier of its secret. Its secret is never stored, only handed to the operator.
 */
export interface Credential {
  /**
   * Random, never reused: what a session records, so a session of a removed credential stays dead
   * when a credential of the same name is added again.
   */
  id: string;
  name: string;
  agents: AgentName[];
  verifier: PasswordVerifier;
  created_at: string;
}

/** What `server credential list` shows of a credential: everything but its verifier. */
export type CredentialSummary = Omit<Credential, 'verifier' | 'id'>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const MAX_AGENTS = 256;
const MAX_AGENT_LENGTH = 256;

export function credentialNameProblem(name: unknown): string | null {
  return typeof name === 'string' && NAME.test(name) ? null : 'a credential name is 1 to 64 letters, digits, _ or -, starting with a letter or digit';
}

export function agentsProblem(agents: unknown): string | null {
  if (!Array.isArray(agents) || agents.length === 0) return 'a credential names at least one agent';
  if (agents.length > MAX_AGENTS) return `a credential names at most ${MAX_AGENTS} agents`;
  const bad = agents.find((agent) => typeof agent !== 'string' || agent.trim() === '' || agent !== agent.trim() || agent.length > MAX_AGENT_LENGTH);
  return bad === undefined ? null : `${JSON.stringify(bad)} is not an agent name`;
}

/**
 * The secret a credential's holder types at `login`: its name, a dot, then 32 random bytes
 * (base64url, so never a dot). The name in front lets the server find the one verifier to try,
 * so a login costs one slow hash whatever the number of credentials.
 */
export function credentialSecret(name: string, random: string): string {
  return `${name}.${random}`;
}

/** The credential name a typed secret claims, or null when it is not shaped as a credential secret. */
export function claimedCredential(secret: string): string | null {
  const dot = secret.indexOf('.');
  if (dot <= 0) return null;
  const name = secret.slice(0, dot);
  return credentialNameProblem(name) === null ? name : null;
}

/** `remote-credentials.json` (files store): the bound credentials, or what is wrong with the file. */
export function parseCredentials(text: string): { credentials: Credential[] } | { problem: string } {
  let value: any;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || value.version !== 1 || !Array.isArray(value.credentials)) {
    return { problem: 'not a version 1 credentials file' };
  }
  const bad = value.credentials.findIndex((credential: any) => credentialProblem(credential) !== null);
  if (bad >= 0) return { problem: `credential ${bad} is malformed: ${credentialProblem(value.credentials[bad])}` };
  return { credentials: value.credentials as Credential[] };
}

export function renderCredentials(credentials: readonly Credential[]): string {
  return `${JSON.stringify({ version: 1, credentials }, null, 2)}\n`;
}

function credentialProblem(credential: any): string | null {
  if (typeof credential !== 'object' || credential === null) return 'not an object';
  return (
    (typeof credential.id === 'string' && credential.id !== '' ? null : 'id is not a text') ??
    credentialNameProblem(credential.name) ??
    agentsProblem(credential.agents) ??
    verifierProblem(credential.verifier) ??
    (typeof credential.created_at === 'string' && !Number.isNaN(Date.parse(credential.created_at)) ? null : 'created_at is not a time')
  );
}

/** A name taken already: a credential is never replaced in place (remove it, then add it again). */
export function credentialExists(name: string): DomainError {
  return new DomainError('SERVER_SETUP_CONFLICT', `A credential named ${name} exists already: remove it first (server credential remove ${name}) to issue a new secret`, {
    conflicts: [{ credential: name, reason: 'exists' }],
  });
}
