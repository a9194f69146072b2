import { expect } from 'chai';
import { agentGuide, guideReferences } from '../../application/agent-guide.js';
import { MCP_TOOL_NAMES } from '../../application/contract/mcp-tools.js';
import { OPERATIONS } from '../../application/operations/index.js';
import { OperationRegistry } from '../../application/registry.js';

describe('the agent workflow guide', () => {
  const registry = new OperationRegistry(OPERATIONS);

  it('names only operations and arguments that exist, and only tools the MCP server offers', () => {
    const references = guideReferences();
    expect(references.length).to.be.greaterThan(10);
    for (const { operation, arguments: names } of references) {
      expect(MCP_TOOL_NAMES as readonly string[], operation).to.include(operation);
      for (const name of names) expect(Object.keys(registry.get(operation).args), `${operation} ${name}`).to.include(name);
    }
  });

  it('covers the loop: find, claim, note, hand in, review, decide, create, record and search knowledge', () => {
    const named = new Set(guideReferences().map((reference) => reference.operation));
    for (const operation of ['status', 'context', 'take', 'release', 'add-note', 'submit', 'accept', 'reject', 'add-gate', 'resolve', 'add-task', 'search', 'add-knowledge']) {
      expect(named.has(operation), operation).to.equal(true);
    }
  });

  it('renders commands with their flags for the command line and tool names for MCP', () => {
    const cli = agentGuide('cli');
    const mcp = agentGuide('mcp');
    for (const text of [cli, mcp]) expect(text).to.not.include('[[');
    expect(cli).to.include('`taskdag submit <id> --note "<evidence>"`').and.include('`--blocked-by`').and.include('export TASKDAG_AGENT');
    expect(mcp).to.include('`submit` with `note`').and.include('`status` with `status: "ready"`').and.include('`blocked_by`');
    expect(mcp).to.include('`resolve` with `choice` and `rationale`').and.not.include('`taskdag ');
  });
});
