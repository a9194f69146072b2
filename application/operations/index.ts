import type { Operation } from '../operation.js';
import { addEdge } from './add-edge.js';
import { addGate } from './add-gate.js';
import { addInitiative } from './add-initiative.js';
import { addKnowledge } from './add-knowledge.js';
import { addNode } from './add-node.js';
import { addTask } from './add-task.js';
import { batch } from './batch.js';
import { init } from './init.js';
import { migrate } from './migrate.js';
import { removeEdge } from './remove-edge.js';
import { restore } from './restore.js';
import { show } from './show.js';
import { snapshots } from './snapshots.js';
import { state } from './state.js';

/** Every operation the product offers, by name; drivers look them up here. */
export const OPERATIONS: readonly Operation[] = [
  init,
  addInitiative,
  addTask,
  addGate,
  addKnowledge,
  addNode,
  addEdge,
  removeEdge,
  show,
  state,
  snapshots,
  restore,
  batch,
  migrate,
];
