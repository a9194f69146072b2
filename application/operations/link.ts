import { DomainError } from '../../domain/errors.js';
import { flag, nonEmptyText, optional, required } from '../args.js';
import { boolean, nullable, object, string } from '../contract/schema.js';
import { hostOperation } from '../define.js';
import { BACKEND_TYPE } from '../remote/linked.js';
import { normalizeOrigin } from '../remote/origin.js';
import { insecureHttpWarnings, warningsField } from '../remote/warnings.js';

/**
 * Spec 4.5 `link`: records the backend (its type and the complete URL, nothing else) in
 * `.taskdag.json`, creating the file and a project id when there is none and keeping the
 * project id otherwise. Another origin needs `--replace=true`; no data moves either way. It is
 * also what cleans a retired protocol marker: `link <configured-origin>` rewrites the file.
 * It talks to no server.
 */
export const link = hostOperation({
  name: 'link',
  summary: 'Link this checkout to a taskdag server: its commands then run there (see docs/remote.md)',
  details:
    'Writes {"backend": {"type": "http", "url": <origin>}} into .taskdag.json and keeps project_id. Linking to another origin needs --replace=true and copies no data: use push or pull for that. Then run taskdag login.',
  examples: [
    ['Link this checkout to a server on this machine', '$0 link http://127.0.0.1:8080'],
    ['Move it to another server (no data is copied)', '$0 link http://127.0.0.1:8081 --replace=true'],
  ],
  mutates: false,
  args: () => ({
    origin: required(nonEmptyText(), 'The server, http(s)://host[:port][/base-path]', { positional: true }),
    replace: optional(flag(), 'Required to change the origin of an already linked checkout'),
  }),
  result: () => object({
    project_id: string(),
    checkout: string('The checkout root whose .taskdag.json was written'),
    backend: object({ type: string('Always http (remote v1, over http: or https:)'), url: string('The normalised origin') }),
    previous_url: nullable(string('The origin it was linked to before, if any')),
    created: boolean('Whether .taskdag.json was created'),
    warnings: warningsField(),
  }),
  run: async ({ client }, args) => {
    const { checkouts, ids } = client();
    const url = normalizeOrigin(args.origin);
    const found = checkouts.find();
    const previous = found?.backend ? normalizeOrigin(found.backend.url) : null;
    if (previous !== null && previous !== url && args.replace !== true) {
      throw new DomainError('INVALID_ARGUMENT', `This checkout is linked to ${previous}: pass --replace=true to link it to ${url} instead (no data is copied)`, {
        field: 'replace',
        current: previous,
        requested: url,
      });
    }
    const root = found?.root ?? checkouts.root();
    const saved = checkouts.save(root, found?.project_id ?? ids.projectId(root), { type: BACKEND_TYPE, url });
    return {
      project_id: saved.project_id,
      checkout: saved.root,
      backend: { type: BACKEND_TYPE, url },
      previous_url: previous,
      created: found === null,
      ...insecureHttpWarnings('link', url),
    };
  },
});
