import type { DomainError } from '../../domain/errors.js';
import type { State } from '../../domain/model.js';
import type { PluginTable } from '../../domain/plugins.js';

/** What a project's state directory holds, as whole-state operations (init, restore, migrate) see it. */
export type StoredState =
  | { kind: 'absent' }
  /** `plugins`: its plugin table; absent when it has none. */
  | { kind: 'valid'; state: State; plugins?: PluginTable }
  /**
   * There are state files but they do not load: `text` is the checkpoint's content ('' when only
   * ledgers remain), `error` why it fails, `reached` the highest revision and fence generation
   * that can still be read from the files (0 when none), which a replacement must move past.
   */
  | { kind: 'unreadable'; text: string; error: DomainError; reached: Reached };

/** How far a state had come: a state replacing it never goes back (docs/reliability.md). */
export interface Reached {
  revision: number;
  fence_generation: number;
}

/** How far the stored state had come, which a replacement must move past; null when there is none. */
export function reachedBy(current: StoredState): Reached | null {
  return current.kind === 'valid' ? current.state : current.kind === 'unreadable' ? current.reached : null;
}
