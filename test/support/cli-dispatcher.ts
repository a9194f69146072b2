import { flagOf, type Argument } from '../../application/args.js';
import type { OperationDispatcher, OperationRequest } from '../../application/operation.js';
import { OPERATIONS } from '../../application/operations/index.js';
import type { Sandbox } from './cli.js';

/**
 * A dispatcher that runs each request as a person would type it: the built binary in a checkout,
 * the arguments spelled as flags and positionals (a batch's document on --stdin), the agent as
 * --as. A failure comes back as the envelope's code, message and details.
 */
export class CliDispatcher implements OperationDispatcher {
  constructor(private readonly client: Sandbox) {}

  async dispatch(request: OperationRequest): Promise<unknown> {
    const operation = OPERATIONS.find((candidate) => candidate.name === request.operation);
    if (!operation) throw new Error(`no operation ${request.operation}`);
    const words = operation.argsFromDocument ? ['--stdin'] : argv(operation.args, request.args);
    const agent = request.agent === null ? [] : ['--as', request.agent];
    const result = await this.client.run([...agent, ...operation.name.split(' '), ...words], {
      input: operation.argsFromDocument ? JSON.stringify(request.args) : '',
      env: { TASKDAG_AGENT: undefined },
    });
    if (result.code === 0) return result.json;
    const error = result.json?.error;
    if (!error) throw new Error(`taskdag ${request.operation} printed no envelope: ${result.stdout}${result.stderr}`);
    throw Object.assign(new Error(error.message), { code: error.code, details: error.details });
  }
}

function argv(spec: Record<string, Argument<unknown>>, args: Record<string, unknown>): string[] {
  const positionals: string[] = [];
  const flags: string[] = [];
  for (const [key, field] of Object.entries(spec)) {
    const value = args[key];
    if (value === undefined) continue;
    if (field.positional) positionals.push(String(value));
    else flags.push(`${flagOf(key)}=${spelled(field, value)}`);
  }
  for (const key of Object.keys(args)) if (!(key in spec)) flags.push(`--${key}=${JSON.stringify(args[key])}`);
  return [...positionals, ...flags];
}

function spelled(field: Argument<unknown>, value: unknown): string {
  switch (field.kind.cli) {
    case 'list':
      return Array.isArray(value) ? value.join(',') : String(value);
    case 'json':
    case 'items':
      return JSON.stringify(value);
    default:
      return String(value);
  }
}
