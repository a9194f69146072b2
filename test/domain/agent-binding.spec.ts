import { expect } from 'chai';
import { ANY_AGENT, requireAllowedAgents } from '../../domain/agent-binding.js';
import { DomainError } from '../../domain/errors.js';

describe('agent binding', () => {
  const bound = { kind: 'credential', credential: 'ci', agents: ['alice', 'bob'] } as const;

  it('lets the shared password act as anyone, administrators included', () => {
    expect(() => requireAllowedAgents(ANY_AGENT, ['alice', 'orchestrator', 'recovery'])).not.to.throw();
  });

  it('lets a credential act as the agents it names, and as no one for a request that names none', () => {
    expect(() => requireAllowedAgents(bound, ['alice', 'bob'])).not.to.throw();
    expect(() => requireAllowedAgents(bound, [])).not.to.throw();
  });

  it('refuses the first agent it does not name, administrators included, with AGENT_NOT_ALLOWED naming the allowed ones', () => {
    for (const agent of ['carol', 'orchestrator', 'recovery']) {
      let thrown: unknown;
      try {
        requireAllowedAgents(bound, ['alice', agent, 'dave']);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).to.be.instanceOf(DomainError);
      expect(thrown).to.deep.include({ code: 'AGENT_NOT_ALLOWED', details: { agent, allowed: ['alice', 'bob'], credential: 'ci' } });
    }
  });
});
