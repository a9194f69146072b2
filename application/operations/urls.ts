import { allNodes, hasNode } from '../../domain/node-map.js';
import { DomainError } from '../../domain/errors.js';
import { nodeNotFound } from '../../domain/node-not-found.js';
import { nonEmptyText, nonNegativeInteger, optional } from '../args.js';
import { boardPaths, DEFAULT_BOARD_PORT, localBoardOrigin, localBoardPort } from '../board/board-links.js';
import { array, boolean, nullable, object, oneOf, string } from '../contract/schema.js';
import { hostOperation } from '../define.js';
import { requireCheckoutProject } from '../dispatcher.js';
import type { HostServices } from '../operation.js';
import { normalizeOrigin } from '../remote/origin.js';

const VIEWS = ['catalog', 'board', 'gates', 'graph', 'activity', 'initiative', 'initiative-graph', 'node', 'node-graph'] as const;

/** Spec 4.4 `urls`: the board's deep links; decisions in docs/board.md. */
export const urls = hostOperation({
  name: 'urls',
  summary: "Print the board's deep links for the project, an initiative or a node",
  details:
    'Links go to --origin when given, else to the server a linked checkout names, else to the local board (`taskdag ui`, 127.0.0.1:--port), marked local_only: they work while it runs. ' +
    'Local links are checked against the local state: an unknown --id is NODE_NOT_FOUND, an initiative no node or registration names INITIATIVE_NOT_FOUND.',
  examples: [
    ['Links to a node on the local board', '$0 urls --id T-invoice-schema'],
    ['Links to an initiative on a served board', '$0 urls --initiative billing --origin https://taskdag.example.com'],
  ],
  mutates: false,
  args: () => ({
    initiative: optional(nonEmptyText(), "Add the initiative's filtered board and graph"),
    id: optional(nonEmptyText(), "Add the node's detail and its neighbourhood in the graph", { placeholder: 'id' }),
    port: optional(nonNegativeInteger(), `The local board's port (default ${DEFAULT_BOARD_PORT}); not with --origin`),
    origin: optional(nonEmptyText(), 'A served board (the server of `server run`), e.g. https://taskdag.example.com'),
  }),
  result: () => object({
    project: nullable(string('The checkout\'s project; null outside a checkout (the catalog only)')),
    origin: string(),
    local_only: boolean('True for the local board: the links work on this machine while `taskdag ui` runs'),
    links: array(object({ view: oneOf(VIEWS), url: string(), local_only: boolean() })),
  }),
  run: async (services, args) => {
    const { project } = services;
    if (args.initiative !== undefined || args.id !== undefined) requireCheckoutProject(project, 'run urls in a checkout, or without --initiative and --id');
    const target = targetOf(services, args);
    if (target.localOnly && project !== null) await requireLocalFocus(services, project, args);
    const links = boardPaths(project, args).map(({ view, path }) => ({ view, url: `${target.origin}${path}`, local_only: target.localOnly }));
    return { project, origin: target.origin, local_only: target.localOnly, links };
  },
});

function targetOf({ client }: HostServices, args: { port?: number | undefined; origin?: string | undefined }): { origin: string; localOnly: boolean } {
  if (args.origin !== undefined) {
    if (args.port !== undefined) throw new DomainError('INVALID_ARGUMENT', '--port is the local board\'s; a served board\'s port goes in --origin', { field: 'port' });
    return { origin: normalizeOrigin(args.origin), localOnly: false };
  }
  const backend = args.port === undefined ? client().checkouts.find()?.backend : undefined;
  if (backend) return { origin: normalizeOrigin(backend.url), localOnly: false };
  return { origin: localBoardOrigin(localBoardPort(args.port)), localOnly: true };
}

/** A link into the local board names a node or initiative the local state has. */
async function requireLocalFocus({ stores }: HostServices, project: string, args: { initiative?: string | undefined; id?: string | undefined }): Promise<void> {
  if (args.initiative === undefined && args.id === undefined) return;
  await stores.open(project).readGraph((graph) => {
    if (args.id !== undefined && !hasNode(graph, args.id)) {
      throw nodeNotFound(graph, args.id, ` in project ${project}`);
    }
    const initiative = args.initiative;
    if (initiative !== undefined && !Object.hasOwn(graph.initiatives, initiative) && !allNodes(graph).some((node) => node.initiative === initiative)) {
      throw new DomainError('INITIATIVE_NOT_FOUND', `No initiative ${initiative} in project ${project}`, { initiative });
    }
  });
}
