import { useMemo } from 'preact/hooks';
import { filtersOf, heldUpBy, matches, type EdgeIndex } from '../board-model';
import { nodeHref } from '../routes';
import type { Snapshot } from '../types';
import { CutList, NodeCard, StatusBadge } from './common';

/** Open gates, each with what waits on it (through superseded predecessors too). */
export function GatesView({ snapshot, edges, query }: { snapshot: Snapshot; edges: EdgeIndex; query: URLSearchParams }) {
  const project = snapshot.project;
  const filters = filtersOf(query);
  const byId = useMemo(() => new Map(snapshot.nodes.map((node) => [node.id, node])), [snapshot]);
  const gates = snapshot.nodes.filter((node) => node.type === 'gate' && node.status === 'open' && matches(node, filters));
  return (
    <section class="gates">
      <h2>Open gates ({gates.length})</h2>
      <CutList
        label="open gates"
        items={gates}
        empty="No open gate."
        render={(gate) => {
          const held = heldUpBy(gate.id, edges).map((id) => byId.get(id)).filter((node) => node !== undefined);
          return (
            <NodeCard
              project={project}
              node={gate}
              extra={
                <div class="blocks">
                  {held.length === 0 ? (
                    <span class="empty">blocks nothing</span>
                  ) : (
                    <>
                      blocks{' '}
                      {held.map((node) => (
                        <a href={nodeHref(project, node.id)} class="chip">
                          <StatusBadge status={node.status} /> {node.id}
                        </a>
                      ))}
                    </>
                  )}
                </div>
              }
            />
          );
        }}
      />
    </section>
  );
}
