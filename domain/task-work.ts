import type { TaskNode } from './model.js';

/** A task nobody holds, submitted or accepted: what creation starts from and reject/reopen go back to. */
export const NO_WORK = {
  claim: null,
  submitted_by: null,
  submitted_at: null,
  done_by: null,
  done_at: null,
  accepted_by: null,
  accepted_at: null,
  note: null,
} satisfies Partial<TaskNode>;
