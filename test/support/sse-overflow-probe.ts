// Run as a script inside a private network namespace whose TCP buffers are a few kilobytes
// (test/e2e/server-sse-overflow.spec.ts sets it up): a real `server run`, one SSE client that
// stops reading, one that keeps reading, and a stream of commits. Prints what each client got as
// one JSON line. Loopback in the host namespace buffers close to a megabyte per connection, so
// only small kernel buffers make a slow reader fall behind within a few hundred commits.
import net from 'node:net';
import { openEvents, startApiServer } from './api-server.js';

const COMMITS = Number(process.argv[2] ?? 1_000);

/** An SSE request on a raw socket that reads nothing until `resume`: the stalled subscriber. */
function stalledStream(port: number, bearer: string, project: string) {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause();
  socket.write(
    `GET /v1/projects/${project}/ui/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Taskdag-Protocol-Version: 1\r\nAuthorization: Bearer ${bearer}\r\n\r\n`,
  );
  return {
    /** Reads what the server sent until `done` holds for it (or the time is up). */
    resume(done: (text: string) => boolean, timeoutMs: number): Promise<string> {
      return new Promise((resolve) => {
        let text = '';
        const timer = setTimeout(() => resolve(text), timeoutMs);
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          text += chunk;
          if (!done(text)) return;
          clearTimeout(timer);
          resolve(text);
        });
        socket.resume();
      });
    },
    close: () => socket.destroy(),
  };
}

const eventNames = (text: string) => [...text.matchAll(/^event: (.*)$/gm)].map((match) => match[1]);

async function main(): Promise<void> {
  const api = await startApiServer();
  try {
    await api.op('p-slow', 'init', {});
    await api.op('p-slow', 'add-initiative', { name: 'core' });
    const stalled = stalledStream(api.server.port, api.bearer, 'p-slow');
    const reader = await openEvents(api.server.origin, api.bearer, 'p-slow');
    for (let index = 1; index <= COMMITS; index++) {
      const answer = await api.op('p-slow', 'add-task', { id: `T-${index}`, initiative: 'core', title: 'x', body: '', acceptance: 'a', blocked_by: [] });
      if (answer.status !== 200) throw new Error(`commit ${index} answered ${answer.status}: ${answer.text}`);
    }
    const last = (await api.get('/v1/projects/p-slow/ui/snapshot')).json.revision as number;
    await reader.waitFor((event) => event.id === String(last), 20_000);
    const stalledText = await stalled.resume((text) => text.includes('event: refresh'), 20_000);
    // After the refresh, the stream goes on: the next commit arrives as an ordinary event.
    const afterRefresh = stalled.resume((text) => text.includes(`id: ${last + 1}\n`), 20_000);
    await api.op('p-slow', 'add-task', { id: 'T-after', initiative: 'core', title: 'x', body: '', acceptance: 'a', blocked_by: [] });
    const tail = await afterRefresh;
    stalled.close();
    reader.close();
    console.log(
      JSON.stringify({
        commits: COMMITS,
        last_revision: last,
        stalled: { events: eventNames(stalledText), continued: tail.includes(`id: ${last + 1}\n`) },
        reader: { revision_ids: reader.events.filter((event) => event.event === 'revision').map((event) => Number(event.id)), refreshes: reader.events.filter((event) => event.event === 'refresh').length },
      }),
    );
  } finally {
    await api.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
