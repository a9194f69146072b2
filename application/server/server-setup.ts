import { DomainError, isDomainError } from '../../domain/errors.js';
import { serverDoctor, type ServerDoctorPorts, type ServerDoctorResult } from './server-doctor.js';
import { serverInit, type ServerInitInput, type ServerInitPorts, type ServerInitResult } from './server-init.js';
import { SERVER_FILE_NAMES } from './server-config.js';

export type ServerSetupInput = Omit<ServerInitInput, 'dryRun'> & { strict: boolean };

export interface ServerSetupResult {
  init: ServerInitResult;
  doctor: ServerDoctorResult;
  /** The exact commands that remain, in order: ownership, install, enable and start, then log in. */
  next_steps: string[];
}

/**
 * `server setup` (our design; docs/operating.md): `server init` with the same flags, then the
 * preflight with a bind probe over the files it wrote, then the commands that remain to be run
 * by hand (setup never installs, enables or starts anything, and never runs sudo). A preflight
 * error fails the command with SERVER_PREFLIGHT_FAILED, carrying what init did.
 */
export async function serverSetup(ports: ServerInitPorts & ServerDoctorPorts, input: ServerSetupInput): Promise<ServerSetupResult> {
  const init = await serverInit(ports, { ...input, dryRun: false });
  let doctor: ServerDoctorResult;
  try {
    doctor = await serverDoctor(ports, { configPath: init.files.config, envPath: init.files.env, probeBind: true, strict: input.strict });
  } catch (error) {
    if (isDomainError(error)) throw new DomainError(error.code, error.message, { ...error.details, init });
    throw error;
  }
  return { init, doctor, next_steps: nextSteps(init, ports.installation.toolPath) };
}

function nextSteps(init: ServerInitResult, toolPath: string): string[] {
  const { config, files } = init;
  const start =
    files.unit === null
      ? [`sh -c 'set -a && . ${files.env} && set +a && exec ${toolPath} server run ${files.config}'`]
      : [
          `sudo install -m 0644 ${files.unit} /etc/systemd/system/${SERVER_FILE_NAMES.unit}`,
          'sudo systemctl daemon-reload',
          `sudo systemctl enable --now ${SERVER_FILE_NAMES.unit}`,
          `systemctl status ${SERVER_FILE_NAMES.unit}`,
        ];
  const host = config.host === '0.0.0.0' || config.host === '::' ? '<this-host>' : config.host.includes(':') ? `[${config.host}]` : config.host;
  const origin = `http://${host}:${config.port}`;
  return [...(init.ownership ?? []), ...start, `taskdag link ${origin}`, 'taskdag login'];
}
