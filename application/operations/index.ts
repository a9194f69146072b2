import type { Operation } from '../operation.js';
import { accept } from './accept.js';
import { addEdge } from './add-edge.js';
import { addGate } from './add-gate.js';
import { addInitiative } from './add-initiative.js';
import { addKnowledge } from './add-knowledge.js';
import { addNode } from './add-node.js';
import { addNote } from './add-note.js';
import { addTask } from './add-task.js';
import { batch } from './batch.js';
import { cancel } from './cancel.js';
import { context } from './context.js';
import { deprecateKnowledge } from './deprecate-knowledge.js';
import { history } from './history.js';
import { init } from './init.js';
import { initiatives } from './initiatives.js';
import { link } from './link.js';
import { login } from './login.js';
import { logout } from './logout.js';
import { migrate } from './migrate.js';
import { pluginAdd } from './plugin-add.js';
import { pluginList } from './plugin-list.js';
import { pluginRemove } from './plugin-remove.js';
import { pluginSetData } from './plugin-set-data.js';
import { pull } from './pull.js';
import { push } from './push.js';
import { reject } from './reject.js';
import { release } from './release.js';
import { renew } from './renew.js';
import { next } from './next.js';
import { sweepLeases } from './sweep-leases.js';
import { removeEdge } from './remove-edge.js';
import { reopen } from './reopen.js';
import { resolve } from './resolve.js';
import { restore } from './restore.js';
import { search } from './search.js';
import { serverCredentialAdd } from './server-credential-add.js';
import { serverCredentialList } from './server-credential-list.js';
import { serverCredentialRemove } from './server-credential-remove.js';
import { serverDoctor } from './server-doctor.js';
import { serverInit } from './server-init.js';
import { serverSetup } from './server-setup.js';
import { show } from './show.js';
import { snapshots } from './snapshots.js';
import { state } from './state.js';
import { status } from './status.js';
import { submit } from './submit.js';
import { take } from './take.js';
import { ui } from './ui.js';
import { update } from './update.js';
import { urls } from './urls.js';

/**
 * Every operation the product offers. The order is the order of `--help` and of the usage
 * examples' story (each command's examples run in this order in one project).
 */
export const OPERATIONS = [
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
  take,
  renew,
  release,
  submit,
  accept,
  reject,
  resolve,
  reopen,
  cancel,
  deprecateKnowledge,
  addNote,
  update,
  next,
  sweepLeases,
  status,
  context,
  search,
  history,
  initiatives,
  batch,
  migrate,
  // Last in the examples' story: restoring the newest snapshot rewinds it.
  snapshots,
  restore,
  // The project's policy plugins (docs/plugins.md); removed again at the end of their story.
  pluginAdd,
  pluginList,
  pluginSetData,
  pluginRemove,
  // Host operations of the server (spec 4.6), with a setup root of their own.
  serverInit,
  serverDoctor,
  serverSetup,
  serverCredentialAdd,
  serverCredentialList,
  serverCredentialRemove,
  // The remote commands of a checkout (spec 4.5); logout last in the examples' story.
  link,
  login,
  push,
  pull,
  logout,
  // The web board (spec 4.4): its deep links, then the local board, which serves until stopped.
  urls,
  ui,
] as const satisfies readonly Operation[];
