/** One row of `taskdag_plugin_data`: one field (`module`, `data`...) of one installed plugin. */
export interface PluginRow {
  plugin: string;
  key: string;
  value: unknown;
}

/** The fields of an installed plugin in the order `plugin add` writes them, so a table reads back as it was given. */
const FIELD_ORDER = ['name', 'module', 'api_version', 'installed_at', 'installed_by', 'data'];

/**
 * The plugin table the rows hold, by plugin name, each entry's fields in their usual order (any
 * other field after them). It is checked by its reader: rows edited by hand may not make a table.
 */
export function pluginTableOf(rows: readonly PluginRow[]): Record<string, Record<string, unknown>> {
  const rank = (key: string) => (FIELD_ORDER.includes(key) ? FIELD_ORDER.indexOf(key) : FIELD_ORDER.length);
  const sorted = [...rows].sort((a, b) => (a.plugin < b.plugin ? -1 : a.plugin > b.plugin ? 1 : rank(a.key) - rank(b.key) || (a.key < b.key ? -1 : 1)));
  const table: Record<string, Record<string, unknown>> = {};
  for (const { plugin, key, value } of sorted) (table[plugin] ??= {})[key] = value;
  return table;
}
