/**
 * A project of `size` nodes (bench/generate.mjs) in a fresh database of the private cluster the
 * tests start, and a way to commit one note at a time on its first task: what bench/pg-commit.mjs
 * and bench/pg-checkpoint-save.mjs measure from. `require` loads the build measured; `buildState`
 * is its generator's.
 */
export async function seededPgProject(require, buildState, size) {
  const { openPool } = require('./build/adapters/postgres/pg-pool.js');
  const { migrate } = require('./build/adapters/postgres/pg-schema.js');
  const { PgProjectStoreFactory } = require('./build/adapters/postgres/pg-project-store.js');
  const { freshDatabase } = require('./build/test/support/postgres.js');
  const { GraphDraft } = require('./build/domain/draft.js');
  const { state } = buildState({ size, logEntries: 100, poolSize: 10 });
  const pool = openPool(freshDatabase(), 16);
  await migrate(pool);
  const store = new PgProjectStoreFactory(pool).open('bench');
  await store.replace(state);
  const task = Object.values(state.nodes).find((node) => node.kind === 'resolvable' && node.subkind === 'task');
  /** One change set of one appended note, committed. */
  const note = (text) =>
    store.transact((graph) => {
      const draft = new GraphDraft(graph, new Date().toISOString(), 'bench');
      draft.appendNote(draft.requireNode(task.id), { at: new Date().toISOString(), by: 'bench', text });
      draft.record({ op: 'add-note', node: task.id });
      return { result: null, changes: draft.changes(), undo: () => draft.rollback() };
    });
  return { pool, store, note };
}
