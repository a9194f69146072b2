import path from 'node:path';
import type * as McpServer from '../mcp/server.js';
import { usageOf, type CommandDeclaration } from './declared-command.js';
import { TaskdagCommand } from './taskdag-command.js';

/** The MCP server's bundle, built beside the program (scripts/build.mjs). */
const MCP_BUNDLE = 'taskdag-mcp.js';

/**
 * `taskdag mcp`: serves the agent's loop as MCP tools over stdio. The server and the MCP SDK are
 * a bundle of their own, loaded only here, so no other command pays for them at start-up.
 */
export class McpCommand extends TaskdagCommand {
  static readonly declaration: CommandDeclaration = {
    name: 'mcp',
    summary: 'Serve the agent loop as MCP tools over standard input and output (for agent clients)',
    details:
      'The identity of every call is fixed at start (`--as`, else TASKDAG_AGENT); a call cannot change it. The checkout is found as for any command (`--project`, else the working directory and its parents), on each call. Results are the JSON the commands print; failures are tool errors carrying the envelope. See docs/agents.md.',
    examples: [['Serve alice in this checkout', '$0 mcp --as alice']],
    args: {},
    needsAgent: false,
    usesAgent: true,
  };
  static override paths = [['mcp']];
  static override usage = usageOf(McpCommand.declaration);

  async execute() {
    const { serveMcp } = require(path.join(__dirname, MCP_BUNDLE)) as typeof McpServer;
    const { cwd, env, globals, stdin, stdout, stderr } = this.context;
    return serveMcp({
      environment: { cwd, env, project: globals.project },
      agent: this.agent(),
      stdin,
      stdout: stdout as unknown as McpServer.McpOptions['stdout'],
      stderr,
    });
  }
}
