import { useEffect, useState } from 'preact/hooks';
import { ApiError, nodeDetail } from '../api';
import { ageOf } from '../board-model';
import { nodeHref, projectHref } from '../routes';
import type { FullNode, NodeDetail } from '../types';
import { ErrorBox, NodeCard, StatusBadge } from './common';
import { EntryLine } from './activity';

/** Fields shown in the header or their own sections rather than in the field table. */
const APART = new Set(['id', 'title', 'body', 'notes', 'status']);

/** One node: its fields, blockers with status and satisfaction, what it blocks, knowledge, notes, history. */
export function NodeView({ project, node, revision }: { project: string; node: string; revision: number }) {
  const [detail, setDetail] = useState<NodeDetail | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    let stopped = false;
    nodeDetail(project, node).then(
      (fresh) => !stopped && (setDetail(fresh), setError(null)),
      (failure: ApiError) => !stopped && setError(failure),
    );
    return () => {
      stopped = true;
    };
  }, [project, node, revision]);
  if (error) return <ErrorBox error={error} />;
  if (!detail || detail.context.node.id !== node) return <p class="loading">Loading {node}…</p>;
  const { context, blocks, history } = detail;
  const full = context.node;
  return (
    <article class="node-detail" data-node={full.id}>
      <h2>
        <StatusBadge status={context.derived_status} /> <span class="node-id">{full.id}</span> {full.title}
      </h2>
      <p class="node-actions">
        <a href={projectHref(project, 'graph', new URLSearchParams({ focus: full.id }))}>Show in the graph</a>
      </p>
      {context.claim ? (
        <p class={`claim${context.claim.stale ? ' stale' : ''}`}>
          Held by <strong>{context.claim.by}</strong> for {ageOf(context.claim.at)}
          {context.claim.stale ? ' (stale)' : ''}
        </p>
      ) : null}
      {context.alerts.length > 0 ? (
        <ul class="alerts">
          {context.alerts.map((alert) => (
            <li>
              <strong>{alert.kind}</strong> {alert.message}
            </li>
          ))}
        </ul>
      ) : null}
      {typeof full.body === 'string' && full.body !== '' ? <p class="body">{full.body}</p> : null}
      <Fields node={full} />
      <section aria-label="Blockers">
        <h3>Blocked by ({context.blocking.length})</h3>
        {context.blocking.length === 0 ? (
          <p class="empty">No blockers.</p>
        ) : (
          <ul>
            {context.blocking.map((blocker) => (
              <li class="card" data-blocker={blocker.node.id}>
                <StatusBadge status={blocker.derived_status} />
                <a href={nodeHref(project, blocker.node.id)}>
                  <span class="node-id">{blocker.node.id}</span> {blocker.node.title}
                </a>
                <span class={blocker.satisfied ? 'satisfied' : 'unsatisfied'}>{blocker.satisfied ? '✓ satisfied' : '✗ not satisfied'}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Blocks">
        <h3>Blocks ({blocks.length})</h3>
        {blocks.length === 0 ? <p class="empty">Nothing waits on it.</p> : <ul>{blocks.map((target) => <NodeCard project={project} node={target} />)}</ul>}
      </section>
      <section aria-label="Knowledge">
        <h3>Matching knowledge ({context.knowledge.length})</h3>
        {context.knowledge.length === 0 ? (
          <p class="empty">No knowledge matches.</p>
        ) : (
          <ul>
            {context.knowledge.map((item) => (
              <li class="card">
                <a href={nodeHref(project, item.node.id)}>
                  <span class="node-id">{item.node.id}</span> {item.node.title}
                </a>{' '}
                <span class="matched">matched on {item.matched_on.join(', ')}</span>
                {typeof item.node.body === 'string' ? <p class="body">{item.node.body}</p> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Notes">
        <h3>Notes ({full.notes.length})</h3>
        {full.notes.length === 0 ? (
          <p class="empty">No notes.</p>
        ) : (
          <ul>
            {full.notes.map((note) => (
              <li>
                <time>{note.at}</time> <strong>{note.by}</strong>: {note.text}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="History">
        <h3>History (last {history.length})</h3>
        <ol class="feed">
          {[...history].reverse().map((entry) => (
            <EntryLine project={project} entry={entry} />
          ))}
        </ol>
      </section>
    </article>
  );
}

function Fields({ node }: { node: FullNode }) {
  const rows = Object.entries(node).filter(([key, value]) => !APART.has(key) && value !== null && !(Array.isArray(value) && value.length === 0));
  return (
    <dl class="fields">
      {rows.map(([key, value]) => (
        <>
          <dt>{key}</dt>
          <dd data-field={key}>{typeof value === 'object' ? JSON.stringify(value) : String(value)}</dd>
        </>
      ))}
    </dl>
  );
}
