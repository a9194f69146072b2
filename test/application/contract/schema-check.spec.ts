import Ajv2020 from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { outputSchema } from '../../../application/contract/json-schemas.js';
import { loginAnswerSchema, stateSchema, transferAnswerSchema, transferStateSchema } from '../../../application/contract/results.js';
import { schemaViolations } from '../../../application/contract/schema-check.js';
import { schemaTest } from '../../../application/contract/schema-test.js';
import type { JsonSchema } from '../../../application/contract/schema.js';
import { OPERATIONS } from '../../../application/operations/index.js';
import { sampleState } from '../../support/states.js';

/** A small seeded PRNG, so a failing mutation can be replayed. */
function random(seed: number) {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Every object and array inside `value`, with a way to change it. */
function containers(value: unknown, found: (Record<string, unknown> | unknown[])[] = []): (Record<string, unknown> | unknown[])[] {
  if (typeof value === 'object' && value !== null) {
    found.push(value as Record<string, unknown>);
    for (const inner of Object.values(value)) containers(inner, found);
  }
  return found;
}

const ODD_VALUES: unknown[] = [null, 7, 1.5, -1, 'text', '', true, [], {}, ['x'], { extra: 1 }];

/** One random change: a field dropped, added, or given a value of another kind. */
function mutate(value: unknown, pick: (n: number) => number): void {
  const all = containers(value);
  const target = all[pick(all.length)]!;
  const keys = Object.keys(target);
  const odd = structuredClone(ODD_VALUES[pick(ODD_VALUES.length)]);
  const action = pick(3);
  if (Array.isArray(target)) {
    if (action === 0 || keys.length === 0) target.push(odd);
    else target[pick(target.length)] = odd;
  } else if (action === 0 && keys.length > 0) delete target[keys[pick(keys.length)]!];
  else if (action === 1 || keys.length === 0) target[`unexpected_${pick(3)}`] = odd;
  else target[keys[pick(keys.length)]!] = odd;
}

describe('schemaViolations and schemaTest (the remote client holds every answer to them)', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: false });

  it('reads every schema the client holds answers to: each result an operation declares, login and transfer answers', () => {
    for (const schema of [...OPERATIONS.map((operation) => operation.result), loginAnswerSchema(), transferStateSchema(), transferAnswerSchema()]) {
      expect(() => schemaViolations(schema, null)).not.to.throw();
      expect(schemaTest(schema)({})).to.equal(schemaViolations(schema, {}).length === 0);
    }
  });

  it('refuses a schema with a keyword it does not apply, rather than passing what it cannot check', () => {
    expect(() => schemaViolations({ type: 'object', properties: { id: { type: 'string', format: 'uuid' } } }, {})).to.throw(/format/);
    expect(() => schemaTest({ type: 'object', properties: { id: { type: 'string', format: 'uuid' } } })).to.throw(/format/);
  });

  it('names where and what: a missing field, an extra one, a value of another type, a form none of the allowed ones', () => {
    const state = sampleState() as unknown as Record<string, any>;
    expect(schemaViolations(stateSchema(), state)).to.deep.equal([]);
    expect(schemaTest(stateSchema())(state)).to.equal(true);
    delete state.revision;
    state.nodes['T-1'].status = 'sleeping';
    state.nodes['G-1'].title = 5;
    state.edges.push({ from: 'A', to: 'B', type: 'BLOCKS', weight: 1 });
    state.initiatives.core = null;
    expect(schemaViolations(stateSchema(), state)).to.deep.equal([
      '$.revision is required',
      '$.initiatives.core is not object',
      '$.nodes.G-1.title is not string',
      '$.nodes.T-1.status is not one of "open", "in_progress", "submitted", "done", "archived", "canceled"',
      '$.edges[1].weight is not allowed',
    ]);
    expect(schemaViolations(stateSchema(), state, 2)).to.have.length(2);
    expect(schemaTest(stateSchema())(state)).to.equal(false);
    expect(schemaViolations(loginAnswerSchema(), { bearer: 'b', expires_at: null })).to.deep.equal(['$.expires_at is not string']);
    expect(schemaViolations(stateSchema(), [])).to.deep.equal(['$ is not object']);
  });

  it('agrees with Ajv on the text, number, constant and reference keywords the results do not use', () => {
    const schema: JsonSchema = {
      $defs: { leaf: { type: 'object', properties: { next: { anyOf: [{ $ref: '#/$defs/leaf' }, { type: 'null' }] } }, required: ['next'], additionalProperties: false } },
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^[A-Z]+$', minLength: 2, maxLength: 4 },
        count: { type: 'integer', minimum: 0 },
        shape: { const: { a: [1, 2] } },
        kind: { enum: ['x', 1, null, ['y']] },
        chain: { $ref: '#/$defs/leaf' },
        mixed: { type: ['string', 'number'] },
      },
      additionalProperties: { type: 'boolean' },
    };
    const values: unknown[] = [
      {}, [], null, { code: 'AB' }, { code: 'A' }, { code: 'ABCDE' }, { code: 'ab' }, { code: 5 }, { count: 0 }, { count: -1 }, { count: 1.5 },
      { shape: { a: [1, 2] } }, { shape: { a: [2, 1] } }, { kind: 'x' }, { kind: ['y'] }, { kind: 'z' }, { chain: { next: { next: null } } },
      { chain: { next: { next: 1 } } }, { chain: { next: null, more: 1 } }, { mixed: 'a' }, { mixed: 1.5 }, { mixed: true }, { extra: true }, { extra: 'no' },
    ];
    const theirs = ajv.compile(schema);
    const test = schemaTest(schema);
    for (const value of values) {
      expect(test(value), JSON.stringify(value)).to.equal(theirs(value));
      expect(schemaViolations(schema, value).length === 0, JSON.stringify(value)).to.equal(theirs(value));
    }
  });

  it('agrees with Ajv on a thousand random changes to a valid state and to valid results', () => {
    const pick = random(23);
    const samples: [JsonSchema, unknown][] = [
      [stateSchema(), sampleState()],
      [transferStateSchema(), { project_id: 'p', state: sampleState(), plugins: {} }],
      [outputSchema(OPERATIONS.find((operation) => operation.name === 'state')!), sampleState()],
    ];
    const compiled = samples.map(([schema]) => ajv.compile(schema));
    const tests = samples.map(([schema]) => schemaTest(schema));
    for (let round = 0; round < 1000; round += 1) {
      const which = pick(samples.length);
      const value = structuredClone(samples[which]![1]);
      mutate(value, pick);
      const ours = schemaViolations(samples[which]![0], value, 1);
      const theirs = compiled[which]!(value);
      expect(ours.length === 0, `round ${round}: ${JSON.stringify(ours)} vs ${JSON.stringify(compiled[which]!.errors?.[0])}`).to.equal(theirs);
      expect(tests[which]!(value), `round ${round}: schemaTest against Ajv (${JSON.stringify(compiled[which]!.errors?.[0])})`).to.equal(theirs);
    }
  });
});
