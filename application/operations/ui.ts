import { flag, nonNegativeInteger, optional } from '../args.js';
import { requireBoardBuild } from '../board/board-build.js';
import { DEFAULT_BOARD_PORT, localBoardPort, localBoardOrigin, projectPath } from '../board/board-links.js';
import { array, boolean, integer, literal, nullable, object, optional as optionalProperty, string } from '../contract/schema.js';
import { hostOperation } from '../define.js';

/** Spec 4.4 `ui`: the local read-only board; decisions in docs/board.md. */
export const ui = hostOperation({
  name: 'ui',
  summary: 'Serve the read-only web board of every local project on 127.0.0.1 until stopped',
  details:
    'Prints one JSON line {ok, url, ...} once listening, then serves in the foreground until SIGINT or SIGTERM (exit 0). Loopback only, no login: every project of $TASKDAG_HOME shows in its catalog. ' +
    '--open=true (the default) opens the launch project\'s board, or the catalog, with $BROWSER or xdg-open. The board is built from the source checkout\'s ui/ sub-project (npm run build:ui); without it, UI_UNAVAILABLE says what is missing.',
  examples: [['Serve the board on a free port, without opening a browser (stop it with Ctrl-C)', '$0 ui --port 0 --open=false']],
  mutates: false,
  args: () => ({
    port: optional(nonNegativeInteger(), `Port on 127.0.0.1 (default ${DEFAULT_BOARD_PORT}; 0 picks a free one)`),
    open: optional(flag(), 'Open the board in the browser (default true)'),
  }),
  result: () => object({
    ok: literal(true),
    url: string('The catalog'),
    project_url: nullable(string("The launch project's board (null outside a checkout)")),
    host: string(),
    port: integer(),
    project: nullable(string('The checkout the board was launched from; it only names the process')),
    local_only: literal(true, 'The links work on this machine, while this process runs'),
    opened: boolean('Whether a browser was asked to open the board'),
    warnings: optionalProperty(array(string())),
  }),
  run: async ({ system, project }, args) => {
    const port = localBoardPort(args.port);
    const { files, defaultUiRoot, board } = system();
    await requireBoardBuild(files, defaultUiRoot);
    const served = await board.serve({ port, uiRoot: defaultUiRoot });
    const url = `${localBoardOrigin(served.port)}/`;
    const projectUrl = project === null ? null : `${localBoardOrigin(served.port)}${projectPath(project)}`;
    const refused = (args.open ?? true) ? await board.open(projectUrl ?? url) : 'not asked';
    const opened = refused === null;
    return {
      ok: true as const,
      url,
      project_url: projectUrl,
      host: served.host,
      port: served.port,
      project,
      local_only: true as const,
      opened,
      ...(opened || refused === 'not asked' ? {} : { warnings: [`The browser did not open (${refused}): visit ${projectUrl ?? url}`] }),
    };
  },
});
