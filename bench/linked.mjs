// A linked checkout against the same project locally (issue 28 item 4): a real `taskdag server
// run` on 127.0.0.1 serves a copy of a generated project, a second checkout is linked to it and
// logged in, and the bench times `show`, `status` and `take` in both checkouts in the same
// interleaved rounds (bench/phase.mjs), so what linking adds is the difference of two medians
// measured side by side.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { call, envFileOf, runTaskdag, startServer } from './server-driver.mjs';

/** The commands compared, by their names in scenarios.mjs. */
export const LINKED_COMMANDS = ['show', 'status', 'take'];

/**
 * Starts a server of the build `cli` on a copy of `fixture`'s project (taken before anything
 * consumes its pools) and returns the linked checkout as a fixture of its own, and `stop` to end
 * the server. The server is the timed build's own: a client holds answers to its own schemas.
 */
export async function linkedFixture(fixture, scratch, cli) {
  const root = path.join(scratch, 'linked-server');
  runTaskdag(['server', 'init', '--root', root, '--unit', 'none', '--port', '0'], { binary: cli });
  const env = envFileOf(path.join(root, 'server.env'));
  cpSync(fixture.stateDir, path.join(root, 'data', 'projects', fixture.projectId), { recursive: true });
  const server = await startServer(path.join(root, 'server.json'), env, [], cli);
  try {
    const origin = `http://127.0.0.1:${server.port}`;
    const { bearer } = (await call(server.port, null, 'POST', '/v1/auth/login', { password: env.TASKDAG_SERVER_PASSWORD })).body;
    const home = path.join(scratch, 'linked-home');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(home, 'remote-sessions.json'), JSON.stringify({ version: 1, sessions: { [origin]: { bearer, expires_at: null, stored_at: new Date().toISOString() } } }), { mode: 0o600 });
    const checkout = path.join(scratch, 'linked-checkout');
    mkdirSync(checkout, { recursive: true });
    writeFileSync(path.join(checkout, '.taskdag.json'), JSON.stringify({ project_id: fixture.projectId, backend: { type: 'http', url: origin } }));
    return {
      fixture: { ...fixture, name: `${fixture.name}-linked`, checkout, env: { HOME: home, TASKDAG_HOME: home } },
      stop: () => server.kill('SIGKILL'),
    };
  } catch (error) {
    server.kill('SIGKILL');
    throw error;
  }
}

/** Per command: the linked and local medians and what linking adds, in milliseconds and as a ratio. */
export function linkedCosts(phase, local, linked) {
  return LINKED_COMMANDS.map((command) => {
    const [here, there] = [local, linked].map((fixture) => phase.items.find((item) => item.fixture === fixture && item.scenario === command));
    if (here?.status !== 'ok' || there?.status !== 'ok') return { command, added_ms: null, ratio: null };
    return { command, added_ms: Number((there.median_ms - here.median_ms).toFixed(2)), ratio: Number((there.median_ms / here.median_ms).toFixed(3)) };
  });
}
