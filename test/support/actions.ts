import type { GraphDraft } from '../../domain/draft.js';
import * as lifecycle from '../../domain/lifecycle.js';
import type { NodeId } from '../../domain/model.js';
import type { Action } from '../../domain/permissions.js';
import { updateNode } from '../../domain/update.js';

/** Runs `action` on `id` with valid arguments, as the domain rule each command calls. */
export function performAction(draft: GraphDraft, action: Action, id: NodeId): unknown {
  switch (action) {
    case 'take':
      return lifecycle.take(draft, id);
    case 'release':
      return lifecycle.release(draft, id);
    case 'submit':
      return lifecycle.submit(draft, id, 'evidence');
    case 'accept':
      return lifecycle.accept(draft, id);
    case 'reject':
      return lifecycle.reject(draft, id, 'not yet');
    case 'resolve':
      return lifecycle.resolve(draft, id, 'A', 'because');
    case 'reopen':
      return lifecycle.reopen(draft, id, 'again');
    case 'cancel':
      return lifecycle.cancel(draft, id, 'moot');
    case 'deprecate-knowledge':
      return lifecycle.deprecateKnowledge(draft, id, 'old');
    case 'add-note':
      return lifecycle.addNote(draft, id, 'a note');
    case 'update':
      return updateNode(draft, id, { title: 'New title' }, { allowUnregisteredInitiative: false });
  }
}

/** The same actions as command lines of the real binary. */
export function actionArgs(action: Action, id: NodeId): string[] {
  switch (action) {
    case 'submit':
      return ['submit', id, '--note', 'evidence'];
    case 'reject':
    case 'reopen':
    case 'cancel':
    case 'deprecate-knowledge':
      return [action, id, '--reason', 'because'];
    case 'resolve':
      return ['resolve', id, '--choice', 'A', '--rationale', 'because'];
    case 'add-note':
      return ['add-note', id, 'a', 'note'];
    case 'update':
      return ['update', id, '--title', 'New title'];
    default:
      return [action, id];
  }
}
