import { expect } from 'chai';
import { argumentsSchema, inputSchema } from '../../../application/contract/json-schemas.js';
import { checkMcpBatch, inToolTerms, MCP_TOOL_NAMES, mcpTools } from '../../../application/contract/mcp-tools.js';
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
    expect(readOnly).to.deep.equal(['status', 'show', 'context', 'history', 'search']);
    expect(readOnly.every((name) => !registry.get(name).mutates)).to.equal(true);
  });

  it('take the same arguments as the published input schema, without its file header', () => {
    for (const name of MCP_TOOL_NAMES) {
      const { $schema: _dialect, $id: _id, title: _title, description: _description, ...published } = inputSchema(registry.get(name));
      expect(argumentsSchema(registry.get(name)), name).to.deep.equal(published);
    }
  });

  it('are all graph operations a linked checkout can run on its server, taking named arguments, and batch, whose arguments are its document', () => {
    for (const name of MCP_TOOL_NAMES.filter((tool) => tool !== 'batch')) {
      const operation = registry.get(name);
      expect(operation, name).to.include({ scope: 'graph', remote: true });
      expect(operation.argsFromDocument, name).to.equal(undefined);
    }
    expect(registry.get('batch')).to.include({ scope: 'project', remote: true, argsFromDocument: true });
  });

  describe('checkMcpBatch (a batch holds the server\'s own tools, as its agent)', () => {
    const refusal = (operations: unknown[]) => {
      try {
        checkMcpBatch({ operations });
      } catch (error) {
        return error as { code: string; details: Record<string, unknown> };
      }
      return null;
    };

    it('passes items of offered tools without as, and leaves every other check to the batch', () => {
      expect(refusal([{ op: 'submit', args: { id: 'T-1' } }, { op: 'next', args: {} }])).to.equal(null);
      expect(refusal([42, { args: {} }, { op: 7 }])).to.equal(null);
      expect(() => checkMcpBatch({ operations: 'x' })).to.not.throw();
    });

    it('refuses an item naming another agent, or an operation it does not offer, with its index', () => {
      expect(refusal([{ op: 'next' }, { op: 'take', args: { id: 'T-1' }, as: 'mallory' }])).to.deep.include({
        code: 'BATCH_OPERATION_FAILED',
        details: { index: 1, op: 'take', error: { code: 'INVALID_ARGUMENT', message: "A batch item over MCP is done as this server's agent: leave as out", details: { field: 'as' } } },
      });
      const administration = refusal([{ op: 'cancel', args: { id: 'T-1' } }])!;
      expect(administration.details).to.deep.include({ index: 0, op: 'cancel' });
      expect(administration.details.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { field: 'op', op: 'cancel' } });
      expect(refusal([{ op: 'sumbit', args: {} }])!.details.error).to.deep.include({ details: { field: 'op', op: 'sumbit', suggestions: ['submit'] } });
    });
  });

  describe('inToolTerms (a failure told as the tool would)', () => {
    const envelope = (code: string, message: string, details: Record<string, unknown> = {}) => ({ ok: false as const, error: { code, message, details } });

    it('names the parameters a call left out, leaving the details as every driver answers them', () => {
      const details = { operation: 'submit', field: 'note', flag: '--note', missing: [{ field: 'note', flag: '--note' }] };
      expect(inToolTerms(envelope('MISSING_FIELD', 'submit requires --note', details), registry.get('submit')).error).to.deep.equal({
        code: 'MISSING_FIELD',
        message: 'submit requires the parameter note',
        details,
      });
    });

    it('turns every flag and positional of the tool into its parameter name, and nothing else', () => {
      const told = inToolTerms(envelope('INVALID_ARGUMENT', 'pass --scope-tags or --scope-domains, not --scope; <id> and <text...> too; --frobnicate'), registry.get('add-knowledge'));
      expect(told.error.message).to.equal('pass scope_tags or scope_domains, not --scope; id and <text...> too; --frobnicate');
      expect(inToolTerms(envelope('X', 'add a <text...> to <id>'), registry.get('add-note')).error.message).to.equal('add a text to id');
    });

    it('names an argument the tool does not take as it was sent, keeping the suggestions as every driver answers them', () => {
      const details = { operation: 'add-task', field: 'intiative', flag: '--intiative', suggestions: ['--initiative'] };
      const told = inToolTerms(envelope('INVALID_ARGUMENT', 'add-task does not take --intiative: did you mean --initiative?', details), registry.get('add-task'));
      expect(told.error).to.deep.equal({ code: 'INVALID_ARGUMENT', message: 'add-task does not take intiative: did you mean initiative?', details });
    });

    it('tells a batch item\'s failure in the terms of its own tool, leaving the details as they are', () => {
      const details = { index: 1, op: 'submit', error: { code: 'MISSING_FIELD', message: 'submit requires --note', details: { field: 'note', flag: '--note', missing: [{ field: 'note', flag: '--note' }] } } };
      const told = inToolTerms(envelope('BATCH_OPERATION_FAILED', 'Batch operation 1 (submit) failed: submit requires --note', details), registry.get('batch'), (name) => registry.get(name));
      expect(told.error).to.deep.equal({ code: 'BATCH_OPERATION_FAILED', message: 'Batch operation 1 (submit) failed: submit requires the parameter note', details });
    });
  });
});
