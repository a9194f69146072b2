import { AcceptCommand } from './accept.js';
import { AddEdgeCommand } from './add-edge.js';
import { AddGateCommand } from './add-gate.js';
import { AddInitiativeCommand } from './add-initiative.js';
import { AddKnowledgeCommand } from './add-knowledge.js';
import { AddNodeCommand } from './add-node.js';
import { AddNoteCommand } from './add-note.js';
import { AddTaskCommand } from './add-task.js';
import { CancelCommand } from './cancel.js';
import { ContextCommand } from './context.js';
import { DeprecateKnowledgeCommand } from './deprecate-knowledge.js';
import { HistoryCommand } from './history.js';
import { InitCommand } from './init.js';
import { InitiativesCommand } from './initiatives.js';
import { RejectCommand } from './reject.js';
import { ReleaseCommand } from './release.js';
import { RemoveEdgeCommand } from './remove-edge.js';
import { ReopenCommand } from './reopen.js';
import { ResolveCommand } from './resolve.js';
import { SearchCommand } from './search.js';
import { ShowCommand } from './show.js';
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
];
