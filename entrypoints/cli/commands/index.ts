import { AcceptCommand } from './accept.js';
import { AddEdgeCommand } from './add-edge.js';
import { AddGateCommand } from './add-gate.js';
import { AddInitiativeCommand } from './add-initiative.js';
import { AddKnowledgeCommand } from './add-knowledge.js';
import { AddNodeCommand } from './add-node.js';
import { AddNoteCommand } from './add-note.js';
import { AddTaskCommand } from './add-task.js';
import { BatchCommand } from './batch.js';
import { CancelCommand } from './cancel.js';
import { ContextCommand } from './context.js';
import { DeprecateKnowledgeCommand } from './deprecate-knowledge.js';
import { HistoryCommand } from './history.js';
import { InitCommand } from './init.js';
import { InitiativesCommand } from './initiatives.js';
import { MigrateCommand } from './migrate.js';
import { RejectCommand } from './reject.js';
import { ReleaseCommand } from './release.js';
import { RemoveEdgeCommand } from './remove-edge.js';
import { ReopenCommand } from './reopen.js';
import { ResolveCommand } from './resolve.js';
import { RestoreCommand } from './restore.js';
import { SearchCommand } from './search.js';
import { ServerDoctorCommand } from './server/doctor.js';
import { ServerInitCommand } from './server/init.js';
import { ServerRunCommand } from './server/run.js';
import { ServerSetupCommand } from './server/setup.js';
import { ShowCommand } from './show.js';
import { SnapshotsCommand } from './snapshots.js';
import { StateCommand } from './state.js';
import { StatusCommand } from './status.js';
import { SubmitCommand } from './submit.js';
import { TakeCommand } from './take.js';
import { UpdateCommand } from './update.js';

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
  TakeCommand,
  ReleaseCommand,
  SubmitCommand,
  AcceptCommand,
  RejectCommand,
  ResolveCommand,
  ReopenCommand,
  CancelCommand,
  DeprecateKnowledgeCommand,
  AddNoteCommand,
  UpdateCommand,
  StatusCommand,
  ContextCommand,
  SearchCommand,
  HistoryCommand,
  InitiativesCommand,
  BatchCommand,
  MigrateCommand,
  // Last in the examples' story: restoring the newest snapshot rewinds it.
  SnapshotsCommand,
  RestoreCommand,
  // Host operations of the server (spec 4.6).
  ServerInitCommand,
  ServerDoctorCommand,
  ServerSetupCommand,
  ServerRunCommand,
];
