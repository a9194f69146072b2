import { useEffect, useState } from 'preact/hooks';
import { ApiError, catalog } from '../api';
import { ageOf } from '../board-model';
import { projectHref } from '../routes';
import type { CatalogEntry } from '../types';
import { ErrorBox } from './common';

const COUNTERS = ['ready', 'in_progress', 'submitted', 'blocked', 'backlog', 'open_gates', 'active_knowledge'] as const;
const REFRESH_MS = 5000;

/** How many checkouts a row names before "+N more" (the rest are in its title). */
const CHECKOUTS_SHOWN = 3;

/**
 * Every project with its name, id, the checkouts seen using it, last activity and counters; an
 * unreadable one stays listed with zeros and its error.
 */
export function CatalogView() {
  const [projects, setProjects] = useState<CatalogEntry[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    let stopped = false;
    const load = () =>
      catalog().then(
        (list) => !stopped && (setProjects(list), setError(null)),
        (failure: ApiError) => !stopped && setError(failure),
      );
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  if (error) return <ErrorBox error={error} />;
  if (!projects) return <p class="loading">Loading projects…</p>;
  return (
    <section class="catalog">
      <h1>Projects</h1>
      {projects.length === 0 ? (
        <p class="empty">No projects yet: run taskdag init in a checkout.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Checkouts</th>
              <th scope="col">Last activity</th>
              <th scope="col">Revision</th>
              {COUNTERS.map((counter) => (
                <th scope="col">{counter.replace('_', ' ')}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {projects.map((project) => (
              <tr data-project={project.id} class={project.readable ? '' : 'unreadable'}>
                <td>
                  <a href={projectHref(project.id)} class="project-name">
                    {project.name}
                  </a>{' '}
                  <span class="node-id">{project.id}</span>
                  {project.error ? <span class="badge-error" title={project.error.message}> {project.error.code}</span> : null}
                </td>
                <td data-field="checkouts">
                  <Checkouts checkouts={project.checkouts} />
                </td>
                <td data-field="last_activity">{project.last_activity ? <time dateTime={project.last_activity} title={project.last_activity}>{ageOf(project.last_activity)} ago</time> : '—'}</td>
                <td>{project.revision ?? '—'}</td>
                {COUNTERS.map((counter) => (
                  <td data-counter={counter}>{project.summary[counter] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A project's checkouts: each label, with when it was last seen on hover. */
function Checkouts({ checkouts }: { checkouts: CatalogEntry['checkouts'] }) {
  if (checkouts.length === 0) return <>—</>;
  const rest = checkouts.slice(CHECKOUTS_SHOWN);
  return (
    <ul class="checkouts">
      {checkouts.slice(0, CHECKOUTS_SHOWN).map((checkout) => (
        <li class="checkout" title={`last seen ${ageOf(checkout.last_seen)} ago (${checkout.last_seen})`}>
          {checkout.label}
        </li>
      ))}
      {rest.length > 0 ? <li title={rest.map((checkout) => checkout.label).join('\n')}>+{rest.length} more</li> : null}
    </ul>
  );
}
