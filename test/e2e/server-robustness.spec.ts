import { expect } from 'chai';
import { OPERATIONS } from '../../application/operations/index.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { seeded } from '../support/fuzz.js';
import { envFileEntries, login, request, startServer } from '../support/server-process.js';

const SEED = Number(process.env.TASKDAG_FUZZ_SEED ?? 4242);

/** Whole numbers below `n`, from a seeded generator, so a failing case replays from its seed. */
interface Random {
  int(n: number): number;
}

/** A JSON value of any shape: what a confused or hostile client may send. */
function anyValue(random: Random, depth = 0): unknown {
  switch (random.int(depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return random.int(2) === 0;
    case 2:
      return random.int(2) === 0 ? random.int(1_000_000) - 500_000 : 2 ** 53 + random.int(10);
    case 3:
      return 'x'.repeat(random.int(3) === 0 ? 100_000 : random.int(20));
    case 4:
      return ['T-1', 'G-1', '../../etc', '', ' ', 'core', '\u0000'][random.int(7)];
    case 5:
      return random.int(3) === 0 ? 1.5 : -1;
    case 6:
      return Array.from({ length: random.int(4) }, () => anyValue(random, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: random.int(5) }, () => [['id', 'args', 'agent', 'text', 'title', 'blocked_by', 'operations', 'force', 'meta'][random.int(9)]!, anyValue(random, depth + 1)]));
  }
}

describe('the server under hostile input and sudden death (issue 11)', function () {
  this.timeout(180_000);
  let api: ApiServer;
  beforeEach(async () => {
    api = await startApiServer();
    await api.op('p-1', 'init', {});
    await api.op('p-1', 'add-initiative', { name: 'core' });
    await api.op('p-1', 'add-task', { id: 'T-1', initiative: 'core', title: 'x', body: '', acceptance: 'a', blocked_by: [] });
  });
  afterEach(async () => api.close());

  it(`fuzzed bodies and parameters on every route never get a 500 (seed ${SEED})`, async () => {
    const next = seeded(SEED);
    const random: Random = { int: (n) => Math.floor(next() * n) };
    const auth = { Authorization: `Bearer ${api.bearer}` };
    const problems: string[] = [];
    const check = (what: string, answer: { status: number; text: string; json: any }) => {
      if (answer.status >= 500) problems.push(`${what} -> ${answer.status} ${answer.text.slice(0, 200)}`);
      else if (answer.status >= 400 && answer.json?.ok !== false) problems.push(`${what} -> ${answer.status} without the envelope`);
    };
    for (let round = 0; round < 400; round++) {
      const operation = OPERATIONS[random.int(OPERATIONS.length)]!.name.replace(/ /g, '-');
      const shape = random.int(4);
      const body = shape === 0 ? anyValue(random) : shape === 1 ? JSON.stringify(anyValue(random)).slice(0, random.int(40)) : { args: anyValue(random), agent: anyValue(random) };
      const route = `/v1/projects/${random.int(3) === 0 ? 'p-absent' : 'p-1'}/ops/${operation}`;
      check(`POST ${route} ${JSON.stringify(body).slice(0, 80)}`, await request(api.server.origin, 'POST', route, { headers: auth, body: typeof body === 'string' ? body : JSON.stringify(body) }));
      const read = ['ui/snapshot', `ui/nodes/${encodeURIComponent(String(anyValue(random)).slice(0, 200))}`, `ui/activity?limit=${encodeURIComponent(String(anyValue(random)).slice(0, 200))}&before=${random.int(9)}`][random.int(3)];
      check(`GET ${read}`, await request(api.server.origin, 'GET', `/v1/projects/p-1/${read}`, { headers: auth }));
    }
    check('login with a fuzzed body', await request(api.server.origin, 'POST', '/v1/auth/login', { body: JSON.stringify(anyValue(random)) }));
    expect(problems).to.deep.equal([]);
    expect((await api.op('p-1', 'show', { id: 'T-1' }, null)).status).to.equal(200);
  });

  it('a SIGKILL during group commits loses no acknowledged mutation', async () => {
    const acknowledged: string[] = [];
    let stop = false;
    const agent = async (index: number) => {
      for (let step = 0; !stop; step++) {
        const id = `T-${index}-${step}`;
        const answer = await api.op('p-1', 'add-task', { id, initiative: 'core', title: id, body: '', acceptance: 'a', blocked_by: [] }, `agent-${index}`).catch(() => null);
        if (answer?.status === 200) acknowledged.push(id);
        else return;
      }
    };
    const agents = Array.from({ length: 32 }, (_, index) => agent(index));
    while (acknowledged.length < 300) await new Promise((resolve) => setTimeout(resolve, 20));
    await api.server.stop('SIGKILL');
    stop = true;
    await Promise.all(agents);
    const env = envFileEntries(`${api.root}/server.env`);
    const again = await startServer(api.sandbox, `${api.root}/server.json`, env);
    try {
      const bearer = (await login(again.origin, env.TASKDAG_SERVER_PASSWORD!)).json.bearer;
      const state = await request(again.origin, 'POST', '/v1/projects/p-1/ops/state', { headers: { Authorization: `Bearer ${bearer}` }, body: { args: {}, agent: null } });
      expect(state.status).to.equal(200);
      const missing = acknowledged.filter((id) => !state.json.nodes[id]);
      expect(missing, `${acknowledged.length} acknowledged`).to.deep.equal([]);
      expect(state.json.revision).to.equal(state.json.log.length);
    } finally {
      await again.stop('SIGKILL');
    }
  });
});
