import { notServed, type HostPortsFor } from '../compose.js';
import { clientPortsOnFirstUse } from '../host/client-ports.js';

/**
 * The MCP server's host ports: the checkout's remote ports, so a linked checkout's tools run on
 * its server; nothing of the machine, whose commands are no tools (docs/agents.md).
 */
export const mcpHostPorts: HostPortsFor = (home, checkouts, { cwd, env }) => ({
  cwd,
  system: notServed('taskdag mcp'),
  client: clientPortsOnFirstUse(home, checkouts, env),
});
