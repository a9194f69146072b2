import { expect } from 'chai';
import { argumentsSchema, inputSchema } from '../../../application/contract/json-schemas.js';
import { MCP_TOOL_NAMES, mcpTools } from '../../../application/contract/mcp-tools.js';
import { OPERATIONS } from '../../../application/operations/index.js';
import { OperationRegistry } from '../../../application/registry.js';

describe('MCP tools (derived from the operation declarations)', () => {
  const registry = new OperationRegistry(OPERATIONS);

  it('are the declared operations of the loop, each with its summary and its arguments schema', () => {
    const tools = mcpTools(registry);
    expect(tools.map((tool) => tool.name)).to.deep.equal([...MCP_TOOL_NAMES]);
    for (const tool of tools) {
      const operation = registry.get(tool.name);
      expect(tool).to.deep.include({ name: operation.name, description: operation.summary, inputSchema: argumentsSchema(operation) });
    }
  });

  it('mark the reads read-only, and only them', () => {
    const readOnly = mcpTools(registry).filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name);
    expect(readOnly).to.deep.equal(['status', 'context', 'search']);
    expect(readOnly.every((name) => !registry.get(name).mutates)).to.equal(true);
  });

  it('take the same arguments as the published input schema, without its file header', () => {
    for (const name of MCP_TOOL_NAMES) {
      const { $schema: _dialect, $id: _id, title: _title, description: _description, ...published } = inputSchema(registry.get(name));
      expect(argumentsSchema(registry.get(name)), name).to.deep.equal(published);
    }
  });

  it('are all graph operations a linked checkout can run on its server, taking named arguments', () => {
    for (const name of MCP_TOOL_NAMES) {
      const operation = registry.get(name);
      expect(operation, name).to.include({ scope: 'graph', remote: true });
      expect(operation.argsFromDocument, name).to.equal(undefined);
    }
  });
});
