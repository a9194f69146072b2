import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const DIST = path.resolve(__dirname, '../../../dist');

describe('the server runtime ships as its own bundle', () => {
  it('dist/taskdag-server.js has koa, none of the CLI\'s blocking waits and only the plugin worker\'s bounded one; the CLI bundle has no koa', () => {
    const server = readFileSync(path.join(DIST, 'taskdag-server.js'), 'utf8');
    const cli = readFileSync(path.join(DIST, 'taskdag-cli.js'), 'utf8');
    // koa's own message for app.use(non-function) survives minification: it marks koa's code.
    const koaMarker = 'middleware must be a function!';
    expect(server).to.include(koaMarker);
    // The CLI's blocking wait is its pipe writer's 1 ms pause (Atomics.wait(pause, 0, 0, 1)). The
    // server's one blocking wait is the plugin worker's, bounded by the plugin time limit
    // (docs/plugins.md): plugin code used to run on the event loop with no bound at all.
    const pipePause = /Atomics\.wait\([\w$]+,0,0,1\)/;
    expect(cli).to.match(pipePause);
    expect(server).not.to.match(pipePause);
    expect(server.match(/Atomics\.wait\(/g) ?? []).to.have.length(1);
    expect(cli).not.to.include(koaMarker);
    expect(cli).to.include('require("./taskdag-server.js")');
  });

  it('the PostgreSQL store lives in the server bundle, node-postgres stays in node_modules, and the CLI bundle has neither', () => {
    const server = readFileSync(path.join(DIST, 'taskdag-server.js'), 'utf8');
    const cli = readFileSync(path.join(DIST, 'taskdag-cli.js'), 'utf8');
    // The schema's table names mark the store's code; node-postgres is required, never bundled.
    expect(server).to.include('taskdag_projects');
    expect(server).to.include('require("pg")');
    expect(server).not.to.include('pg-native');
    for (const marker of ['taskdag_projects', 'require("pg")']) expect(cli).not.to.include(marker);
  });
});
