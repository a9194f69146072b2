import { AddEdgeCommand } from './add-edge.js';
import { AddGateCommand } from './add-gate.js';
import { AddInitiativeCommand } from './add-initiative.js';
import { AddKnowledgeCommand } from './add-knowledge.js';
import { AddNodeCommand } from './add-node.js';
import { AddTaskCommand } from './add-task.js';
import { BatchCommand } from './batch.js';
import { InitCommand } from './init.js';
import { MigrateCommand } from './migrate.js';
import { RemoveEdgeCommand } from './remove-edge.js';
import { RestoreCommand } from './restore.js';
import { ShowCommand } from './show.js';
import { SnapshotsCommand } from './snapshots.js';
import { StateCommand } from './state.js';

/** Every command of the CLI, registered explicitly. */
export const COMMANDS = [
  InitCommand,
  AddInitiativeCommand,
  AddTaskCommand,
  AddGateCommand,
  AddKnowledgeCommand,
  AddNodeCommand,
  AddEdgeCommand,
  RemoveEdgeCommand,
  ShowCommand,
  StateCommand,
  SnapshotsCommand,
  RestoreCommand,
  BatchCommand,
  MigrateCommand,
];
