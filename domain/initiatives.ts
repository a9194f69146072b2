import type { Timestamp } from './clock.js';
import type { GraphDraft } from './draft.js';
import { DomainError } from './errors.js';
import type { Graph } from './model.js';
import { closestTo, didYouMean } from './suggestions.js';

export interface InitiativeView {
  name: string;
  desc: string;
  created_at: Timestamp;
}

export function registerInitiative(draft: GraphDraft, name: string, desc: string): InitiativeView {
  if (name.trim() === '') {
    throw new DomainError('INVALID_ARGUMENT', 'An initiative name cannot be blank', { field: 'name' });
  }
  // Initiatives are keys of a plain JSON object, where this one name means the prototype.
  if (name === '__proto__') {
    throw new DomainError('INVALID_ARGUMENT', 'An initiative cannot be named __proto__', { field: 'name', name });
  }
  if (Object.hasOwn(draft.graph.initiatives, name)) {
    throw new DomainError('ID_CONFLICT', `Initiative ${name} is already registered`, { initiative: name });
  }
  const initiative = { desc, created_at: draft.now };
  draft.putInitiative(name, initiative);
  draft.record({ op: 'add-initiative', node: null, initiative: name });
  return { name, ...initiative };
}

/** Nodes must name a registered initiative unless the caller explicitly allows otherwise. */
export function assertInitiativeKnown(graph: Graph, name: string, allowUnregistered: boolean): void {
  if (!allowUnregistered && !Object.hasOwn(graph.initiatives, name)) {
    const suggestions = closestTo(name, Object.keys(graph.initiatives));
    const remedy = 'add-initiative first, or pass --allow-unregistered-initiative=true';
    throw new DomainError(
      'INITIATIVE_NOT_FOUND',
      `Initiative ${name} is not registered${suggestions.length > 0 ? `${didYouMean(suggestions)} Else run ${remedy}` : `: run ${remedy}`}`,
      { initiative: name, ...(suggestions.length > 0 ? { suggestions } : {}) },
    );
  }
}
