import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { ageOf } from '../board-model';
import { nodeHref } from '../routes';
import type { NodeSummary } from '../types';

export function StatusBadge({ status }: { status: string }) {
  return <span class={`status status-${status}`}>{status.replace('_', ' ')}</span>;
}

/** How many blockers a card names before "+N more". */
const WAITS_SHOWN = 3;

/**
 * One node in a list: its status, id and title (a link to its detail), its initiative and tags,
 * who holds it, and for a blocked task what it waits on (`waits`, each a link).
 */
export function NodeCard({ project, node, extra, waits }: { project: string; node: NodeSummary; extra?: ComponentChildren; waits?: string[] }) {
  return (
    <li class="card" data-node={node.id}>
      <StatusBadge status={node.status} />
      <a class="node-link" href={nodeHref(project, node.id)}>
        <span class="node-id">{node.id}</span> {node.title}
      </a>
      {node.claim ? (
        <span class="holder" title={`claimed at ${node.claim.at}`}>
          {node.claim.by} · {ageOf(node.claim.at)}
        </span>
      ) : null}
      {waits && waits.length > 0 ? (
        <span class="waits" data-waits={waits.join(' ')}>
          waits on{' '}
          {waits.slice(0, WAITS_SHOWN).map((id, index) => (
            <>
              {index > 0 ? ', ' : null}
              <a href={nodeHref(project, id)}>{id}</a>
            </>
          ))}
          {waits.length > WAITS_SHOWN ? ` +${waits.length - WAITS_SHOWN} more` : null}
        </span>
      ) : null}
      <span class="meta">
        <span class="initiative" title="initiative">
          {node.initiative}
        </span>
        {node.tags.map((tag) => (
          <span class="tag" data-tag={tag}>
            #{tag}
          </span>
        ))}
      </span>
      {extra}
    </li>
  );
}

/**
 * A list that shows its first `step` items and says "N of M" when it is cut, with a button for
 * more: nothing is ever silently left out.
 */
export function CutList<T>({ items, step = 100, render, empty, label }: { items: T[]; step?: number; render: (item: T) => ComponentChildren; empty: string; label: string }) {
  const [shown, setShown] = useState(step);
  if (items.length === 0) return <p class="empty">{empty}</p>;
  const visible = items.slice(0, shown);
  return (
    <div class="cut-list">
      <ul aria-label={label}>{visible.map(render)}</ul>
      {visible.length < items.length ? (
        <p class="cut">
          <span class="count">
            {visible.length} of {items.length}
          </span>{' '}
          <button type="button" onClick={() => setShown(shown + step)}>
            Show {Math.min(step, items.length - visible.length)} more
          </button>
        </p>
      ) : null}
    </div>
  );
}

export function ErrorBox({ error }: { error: ApiError }) {
  return (
    <div class="error" role="alert">
      <strong>{error.code}</strong> {error.message}
    </div>
  );
}
