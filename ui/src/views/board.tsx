import { useMemo } from 'preact/hooks';
import { COLUMNS, filtersOf, matches, readyFirst, type EdgeIndex } from '../board-model';
import { waitsOn } from '../graph-model';
import type { Snapshot } from '../types';
import { CutList, NodeCard } from './common';

/** Ready work first (what to pick up next), then the tasks in columns by status. */
export function BoardView({ snapshot, edges, query }: { snapshot: Snapshot; edges: EdgeIndex; query: URLSearchParams }) {
  const project = snapshot.project;
  const filters = filtersOf(query);
  const tasks = useMemo(() => snapshot.nodes.filter((node) => node.type === 'task' && matches(node, filters)), [snapshot, query.toString()]);
  const byId = useMemo(() => new Map(snapshot.nodes.map((node) => [node.id, node])), [snapshot]);
  const ready = useMemo(() => readyFirst(tasks.filter((node) => node.status === 'ready'), edges), [tasks, edges]);
  return (
    <>
      <section class="ready-first" aria-label="Ready to pick up">
        <h2>Ready to pick up ({ready.length})</h2>
        <CutList
          label="ready"
          step={20}
          items={ready}
          empty="Nothing is ready: see what is blocked and which gates wait for a decision."
          render={({ node, unblocks }) => <NodeCard project={project} node={node} extra={unblocks > 0 ? <span class="unblocks">unblocks {unblocks}</span> : null} />}
        />
      </section>
      <section class="columns">
        {COLUMNS.map((column) => {
          const nodes = tasks.filter((node) => (column.statuses as readonly string[]).includes(node.status));
          return (
            <div class="column" data-column={column.key}>
              <h3>
                {column.title} <span class="count">{nodes.length}</span>
              </h3>
              <CutList label={column.key} step={50} items={nodes} empty="—" render={(node) => <NodeCard project={project} node={node} waits={node.status === 'blocked' ? waitsOn(node.id, edges, byId) : undefined} />} />
            </div>
          );
        })}
      </section>
    </>
  );
}
