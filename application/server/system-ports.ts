import type { BoardHost } from '../ports/board-host.js';
import type { ServerDoctorPorts } from './server-doctor.js';
import type { ServerCredentialsPorts } from './server-credentials.js';
import type { ServerInitPorts } from './server-init.js';

/** The machine as the server's setup operations (init, doctor, setup, credential) and the local board (`ui`) see it. */
export type SystemPorts = ServerInitPorts & ServerDoctorPorts & ServerCredentialsPorts & { board: BoardHost };
