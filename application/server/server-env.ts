import type { StoreKind } from './server-config.js';

/**
 * `server.env` (spec 2.6): strict `KEY=VALUE` lines, read by systemd's `EnvironmentFile=` or
 * sourced by a POSIX shell for `--unit none`. Values are limited to characters that both read
 * literally (no quotes, escapes, spaces or expansions), so the two can never disagree about the
 * secret. Blank lines and `#` comments are allowed; a key may appear once.
 */
export const PASSWORD_KEY = 'TASKDAG_SERVER_PASSWORD';
/** The PostgreSQL connection string of a server whose store is postgresql (docs/scaling.md): only ever in this file. */
export const DATABASE_URL_KEY = 'TASKDAG_DATABASE_URL';
/**
 * How many times this root's password was set: 1 for the first, one more for each
 * `--rotate-password` (absent, as in files from before it: 0). Not a secret. Where several
 * processes share a database, a password may replace the stored one only with a newer
 * generation, so a host with an old `server.env` cannot roll a rotation back (docs/scaling.md).
 */
export const PASSWORD_GENERATION_KEY = 'TASKDAG_PASSWORD_GENERATION';

const KEY = /^[A-Z_][A-Z0-9_]*$/;
const LITERAL_VALUE = /^[A-Za-z0-9_@%+=:,./-]*$/;
/** No server password is longer: `server run` refuses one, so a login with a longer one is wrong unhashed. */
export const MAX_SECRET_LENGTH = 1024;

export interface EnvFile {
  entries: Map<string, string>;
}

/** The entries of a structurally valid env file (it has a usable secret), or what is wrong with it. */
export function parseEnvFile(text: string): EnvFile | { problem: string } {
  const entries = new Map<string, string>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const at = `line ${index + 1}`;
    const equals = line.indexOf('=');
    if (equals < 0) return { problem: `${at} is not KEY=VALUE` };
    const key = line.slice(0, equals);
    const value = line.slice(equals + 1);
    if (!KEY.test(key)) return { problem: `${at}: ${JSON.stringify(key)} is not an upper-case KEY` };
    if (!LITERAL_VALUE.test(value)) return { problem: `${at}: the value of ${key} has characters a shell or systemd would not read literally` };
    if (entries.has(key)) return { problem: `${at}: ${key} appears twice` };
    entries.set(key, value);
  }
  const secret = entries.get(PASSWORD_KEY);
  if (secret === undefined) return { problem: `no ${PASSWORD_KEY} line` };
  const problem = secretProblem(secret);
  return problem ? { problem } : { entries };
}

/** What makes a password unusable (an operator-chosen one is adopted when it passes). */
export function secretProblem(secret: string): string | null {
  if (secret === '') return `${PASSWORD_KEY} is empty`;
  if (secret.length > MAX_SECRET_LENGTH) return `${PASSWORD_KEY} is longer than ${MAX_SECRET_LENGTH} characters`;
  return LITERAL_VALUE.test(secret) ? null : `${PASSWORD_KEY} has characters a shell or systemd would not read literally`;
}

/** A new env file: the secret and the body cap written out, so an operator sees what to tune; with PostgreSQL, where its connection string goes. */
export function renderEnvFile(secret: string, maxBodyBytes: number, store: StoreKind = 'files', generation = 1): string {
  return [
    '# taskdag server environment: strict KEY=VALUE lines, mode 0600. Never commit or share this file.',
    '# Rotate the password with `taskdag server init --root <dir> --rotate-password` (see docs/operating.md).',
    `${PASSWORD_KEY}=${secret}`,
    `${PASSWORD_GENERATION_KEY}=${generation}`,
    `TASKDAG_SERVER_MAX_BODY_BYTES=${maxBodyBytes}`,
    ...(store === 'postgresql'
      ? [
          '# The PostgreSQL database of every server process (docs/scaling.md): uncomment and fill in. A socket',
          '# directory goes percent-encoded in the host part: postgresql://user:password@%2Fvar%2Frun%2Fpostgresql/taskdag',
          `# ${DATABASE_URL_KEY}=postgresql://taskdag:password@db.example.internal:5432/taskdag`,
        ]
      : []),
    '',
  ].join('\n');
}

/** The connection string a server's env file names, or what is wrong with it. */
export function databaseUrlProblem(url: string | undefined): string | null {
  if (url === undefined || url === '') return `no ${DATABASE_URL_KEY} line (the store is postgresql)`;
  return /^postgres(ql)?:\/\//.test(url) ? null : `${DATABASE_URL_KEY} must be a postgresql:// connection string`;
}

/** The password generation an environment (or env file) gives: 0 when absent, or what is wrong with it. */
export function passwordGeneration(env: ReadonlyMap<string, string> | Record<string, string | undefined>): { generation: number } | { problem: string } {
  const value = env instanceof Map ? env.get(PASSWORD_GENERATION_KEY) : (env as Record<string, string | undefined>)[PASSWORD_GENERATION_KEY];
  if (value === undefined) return { generation: 0 };
  const generation = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(generation) ? { generation } : { problem: `${PASSWORD_GENERATION_KEY} must be a whole number of at most 15 digits, not ${JSON.stringify(value)}` };
}

/**
 * The same file with a new secret and the next password generation: comments, other keys and
 * their order kept (a file without a generation line gets one after the secret).
 */
export function rotateSecret(text: string, secret: string, generation: number): string {
  const lines = text.split('\n');
  const hadGeneration = lines.some((line) => line.startsWith(`${PASSWORD_GENERATION_KEY}=`));
  return lines
    .flatMap((line) => {
      if (line.startsWith(`${PASSWORD_GENERATION_KEY}=`)) return [`${PASSWORD_GENERATION_KEY}=${generation}`];
      if (!line.startsWith(`${PASSWORD_KEY}=`)) return [line];
      return hadGeneration ? [`${PASSWORD_KEY}=${secret}`] : [`${PASSWORD_KEY}=${secret}`, `${PASSWORD_GENERATION_KEY}=${generation}`];
    })
    .join('\n');
}
