import type { ServerDoctorPorts } from './server-doctor.js';
import type { ServerInitPorts } from './server-init.js';

/** The machine as the server's setup operations (init, doctor, setup) see it. */
export type SystemPorts = ServerInitPorts & ServerDoctorPorts;
