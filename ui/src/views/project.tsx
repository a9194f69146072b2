import type { Route } from '../routes';
import { projectHref } from '../routes';
import { useProject } from '../use-project';
import { ActivityView } from './activity';
import { BoardView } from './board';
import { ErrorBox } from './common';
import { FilterBar } from './filter-bar';
import { GatesView } from './gates';
import { GraphView } from './graph';
import { NodeView } from './node';

const TABS = [
  ['board', 'Board'],
  ['gates', 'Gates'],
  ['graph', 'Graph'],
  ['activity', 'Activity'],
] as const;

/** One project: its tabs, filters and live state around the view the route names. */
export function ProjectView({ route }: { route: Exclude<Route, { view: 'catalog' }> }) {
  const { project } = route;
  const { snapshot, edges, error, live } = useProject(project);
  const filtered = route.view === 'board' || route.view === 'gates';
  return (
    <section class="project">
      <header class="project-header">
        <h1>
          <a href={projectHref(project)}>{project}</a>
        </h1>
        <nav class="tabs">
          {TABS.map(([view, label]) => (
            <a href={projectHref(project, view, filtered ? route.query : undefined)} class={route.view === view ? 'active' : ''}>
              {label}
            </a>
          ))}
        </nav>
        <span class={`live live-${live}`} data-live={live} title="Live updates">
          {live === 'live' ? `● live · r${snapshot?.revision ?? '…'}` : live === 'connecting' ? '○ connecting' : '○ reconnecting…'}
        </span>
      </header>
      {error ? <ErrorBox error={error} /> : null}
      {!snapshot || !edges ? (
        error ? null : <p class="loading">Loading {project}…</p>
      ) : (
        <>
          {filtered ? <FilterBar snapshot={snapshot} route={route} /> : null}
          {route.view === 'board' ? <BoardView snapshot={snapshot} edges={edges} query={route.query} /> : null}
          {route.view === 'gates' ? <GatesView snapshot={snapshot} edges={edges} query={route.query} /> : null}
          {route.view === 'graph' ? <GraphView snapshot={snapshot} edges={edges} query={route.query} /> : null}
          {route.view === 'activity' ? <ActivityView project={project} revision={snapshot.revision} /> : null}
          {route.view === 'node' ? <NodeView project={project} node={route.node} revision={snapshot.revision} /> : null}
        </>
      )}
    </section>
  );
}
