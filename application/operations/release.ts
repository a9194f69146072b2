import { release as releaseTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

/** Gives a claimed task back to the pool; releasing a task nobody holds is `released: false`. */
export const release = graphOperation({
  name: 'release',
  mutates: true,
  args: { id: required(nonEmptyText()) },
  run: ({ draft }, args) => releaseTask(draft, args.id),
});
