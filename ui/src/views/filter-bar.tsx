import { useMemo } from 'preact/hooks';
import { filterChoices, FILTER_KEYS, type FilterKey } from '../board-model';
import { navigate, projectHref, type Route } from '../routes';
import type { Snapshot } from '../types';

const LABELS: Record<FilterKey, string> = { initiative: 'Initiative', domain: 'Domain', tag: 'Tag', holder: 'Holder', status: 'Status', q: 'Search' };

/** The filters and search, kept in the address (a filtered view is a link too). */
export function FilterBar({ snapshot, route }: { snapshot: Snapshot; route: Exclude<Route, { view: 'catalog' | 'node' }> }) {
  const choices = useMemo(() => filterChoices(snapshot), [snapshot]);
  const set = (key: FilterKey, value: string) => {
    const query = new URLSearchParams(route.query);
    if (value) query.set(key, value);
    else query.delete(key);
    navigate(projectHref(route.project, route.view, query), true);
  };
  return (
    <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
      {FILTER_KEYS.filter((key): key is Exclude<FilterKey, 'q'> => key !== 'q').map((key) => (
        <label>
          {LABELS[key]}
          <select name={key} value={route.query.get(key) ?? ''} onChange={(event) => set(key, (event.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {choices[key].map((value) => (
              <option value={value}>{value}</option>
            ))}
          </select>
        </label>
      ))}
      <label>
        {LABELS.q}
        <input type="search" name="q" aria-keyshortcuts="/" placeholder="id, title, tag…" value={route.query.get('q') ?? ''} onInput={(event) => set('q', (event.target as HTMLInputElement).value)} />
      </label>
    </form>
  );
}
