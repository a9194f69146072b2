import { Command, Option } from 'clipanion';
import path from 'node:path';
import * as t from 'typanion';
import type { ServerInitInput } from '../../../../application/server/server-init.js';
import type { TaskdagContext } from '../../context.js';
import { bool, integer } from '../../flags.js';
import { DEFAULT_SERVER_ROOT } from '../../server-host.js';

/** The flags `server init` and `server setup` share (spec 4.6), translated into the use case's input. */
export abstract class ServerInitFlags extends Command<TaskdagContext> {
  root = Option.String('--root', { description: `Setup root holding server.json, server.env and the unit (default ${DEFAULT_SERVER_ROOT})` });
  host = Option.String('--host', { description: 'Host to listen on, passed to the OS as is (default 127.0.0.1, or what server.json says)' });
  port = Option.String('--port', { description: 'Port to listen on (default 7407, or what server.json says; 0 picks a free one)' });
  dataRoot = Option.String('--data-root', { description: 'Project data root (default <root>/data)' });
  stateHome = Option.String('--state-home', { description: 'State directory: service lock and remote-auth.json (default <root>/state)' });
  uiRoot = Option.String('--ui-root', { description: "Built web UI (default the package's ui/dist)" });
  unit = Option.String('--unit', { validator: t.isEnum(['systemd', 'none'] as const), description: 'systemd (default) writes taskdag-server.service; none writes only server.json and server.env' });
  serviceUser = Option.String('--service-user', { description: 'The user the service runs as: prints the ownership commands (never runs them)' });
  allowMissingPaths = Option.String('--allow-missing-paths', { tolerateBoolean: true, description: 'Do not create the data root and state home' });
  force = Option.String('--force', { tolerateBoolean: true, description: 'Recreate artifacts that conflict with the options (the password is kept)' });
  rotatePassword = Option.String('--rotate-password', { tolerateBoolean: true, description: 'Write a new secret into server.env, changing nothing else' });
  printSecret = Option.String('--print-secret', { tolerateBoolean: true, description: 'Print the secret (unsafe: controlled recovery or handoff only)' });

  protected initInput(): Omit<ServerInitInput, 'dryRun'> {
    const absolute = (value: string | undefined) => (value === undefined ? undefined : path.resolve(this.context.cwd, value));
    return {
      root: absolute(this.root) ?? DEFAULT_SERVER_ROOT,
      host: this.host,
      port: integer('--port', this.port),
      dataRoot: absolute(this.dataRoot),
      stateHome: absolute(this.stateHome),
      uiRoot: absolute(this.uiRoot),
      unit: this.unit ?? 'systemd',
      serviceUser: this.serviceUser,
      allowMissingPaths: bool('--allow-missing-paths', this.allowMissingPaths) ?? false,
      force: bool('--force', this.force) ?? false,
      rotatePassword: bool('--rotate-password', this.rotatePassword) ?? false,
      printSecret: bool('--print-secret', this.printSecret) ?? false,
    };
  }
}
