import { DomainError, isDomainError } from '../../domain/errors.js';
import { serverDoctor, type ServerDoctorPorts, type ServerDoctorResult } from './server-doctor.js';
import { serverInit, type ServerInitInput, type ServerInitPorts, type ServerInitResult } from './server-init.js';
import { identitiesOf, SERVER_FILE_NAMES, storeOf } from './server-config.js';

export type ServerSetupInput = Omit<ServerInitInput, 'dryRun'> & { strict: boolean };

export interface ServerSetupResult {
  init: ServerInitResult;
  doctor: ServerDoctorResult;
  /** The exact commands that remain, in order: ownership, install, enable and start, then log in. */
  next_steps: string[];
  /** What to put in place of each `<placeholder>` a step holds (a value only the running server or the operator knows). */
  placeholders?: Record<string, string>;
}

/** The port `server run` will listen on is only known once it runs when server.json asks for a free one. */
const PORT_PLACEHOLDER = '<port>';
const HOST_PLACEHOLDER = '<this-host>';
/** A bound server's first credential: only the operator knows whom it is for. */
const NAME_PLACEHOLDER = '<name>';
const AGENTS_PLACEHOLDER = '<agents>';

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
  const next_steps = nextSteps(init, ports.installation.toolPath);
  const placeholders = placeholdersIn(next_steps, init);
  return { init, doctor, next_steps, ...(placeholders ? { placeholders } : {}) };
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
  const host = config.host === '0.0.0.0' || config.host === '::' ? HOST_PLACEHOLDER : config.host.includes(':') ? `[${config.host}]` : config.host;
  const origin = `http://${host}:${config.port === 0 ? PORT_PLACEHOLDER : config.port}`;
  return [...(init.ownership ?? []), ...start, ...firstCredential(init), `taskdag link ${origin}`, 'taskdag login'];
}

/**
 * With bound identities nobody logs in until a credential exists. On the files store it is
 * issued as the service user, who owns the state home and must be able to read what is written.
 */
function firstCredential(init: ServerInitResult): string[] {
  if (identitiesOf(init.config) !== 'bound') return [];
  const asOwner = storeOf(init.config) === 'files' && init.service_user ? `sudo -u ${init.service_user} ` : '';
  return [`${asOwner}taskdag server credential add ${NAME_PLACEHOLDER} --agents ${AGENTS_PLACEHOLDER} --config ${init.files.config}`];
}

function placeholdersIn(steps: string[], init: ServerInitResult): Record<string, string> | null {
  const found: Record<string, string> = {};
  const held = (placeholder: string) => steps.some((step) => step.includes(placeholder));
  if (held(PORT_PLACEHOLDER)) {
    const where = init.files.unit === null ? 'the start command above prints on its standard output' : `journald keeps: journalctl -u ${SERVER_FILE_NAMES.unit} -o cat`;
    found[PORT_PLACEHOLDER] = `server.json says port 0, so the system picks a free port each time the server starts: the "port" of the line {"ok":true,"host":...,"port":...} that ${where}`;
  }
  if (held(NAME_PLACEHOLDER)) {
    found[NAME_PLACEHOLDER] = 'a name for the credential (letters, digits, _ and -); its secret is then in the file the command names, for its holder to type at taskdag login';
    found[AGENTS_PLACEHOLDER] = 'the agents its holder may act as, comma-separated: orchestrator and recovery only for a credential meant to act as them';
  }
  if (held(HOST_PLACEHOLDER)) {
    found[HOST_PLACEHOLDER] = `the server listens on every interface (${init.config.host}): a name or address of this machine that clients reach`;
  }
  return Object.keys(found).length > 0 ? found : null;
}
