import { activitySchema } from '../board/activity.js';
import { catalogSchema } from '../board/catalog.js';
import { nodeDetailSchema } from '../board/node-detail.js';
import { boardSnapshotSchema } from '../board/snapshot.js';
import type { Declaration, Operation } from '../operation.js';
import { servedRemotely } from '../remote-offer.js';
import { argumentsSchema } from './json-schemas.js';
import { withWarningsField } from '../remote/warnings.js';
import { errorEnvelopeSchema, loginAnswerSchema, pluginTableSchema, stateSchema, transferAnswerSchema, transferStateSchema } from './results.js';
import { array, boolean, integer, nullable, object, optional, string, type JsonSchema } from './schema.js';

const ERROR = { $ref: '#/components/schemas/Error' };
const PROTOCOL = { $ref: '#/components/parameters/ProtocolVersion' };
const REQUEST_ID = { $ref: '#/components/parameters/IdempotencyKey' };
const PROJECT = { name: 'project', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' } };

const json = (schema: JsonSchema, description: string) => ({ description, content: { 'application/json': { schema } } });
/** An answer written from a project's stored text, which may carry the warning that some of it is shown as U+FFFD. */
const answer = (schema: JsonSchema, description: string) => json(withWarningsField(schema), description);
const failures = {
  default: json(ERROR, 'The failure envelope; the status follows the error code (docs/http-api.md)'),
};

function operationPath(operation: Declaration) {
  return {
    post: {
      operationId: operation.name.replace(/[ -](.)/g, (_, letter: string) => letter.toUpperCase()),
      summary: operation.summary,
      tags: ['operations'],
      parameters: operation.mutates ? [PROTOCOL, PROJECT, REQUEST_ID] : [PROTOCOL, PROJECT],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                args: argumentsSchema(operation),
                agent: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }], description: 'The acting agent (--as); mutations need one' },
              },
              additionalProperties: false,
            },
          },
        },
      },
      responses: { '200': answer(operation.result, 'What the command prints'), ...failures },
    },
  };
}

const read = (summary: string, schema: JsonSchema, extra: object = {}) => ({
  get: { summary, tags: ['board'], parameters: [PROTOCOL, PROJECT], responses: { '200': answer(schema, summary), ...failures }, ...extra },
});

/**
 * The OpenAPI 3.1 document of the server's /v1 routes, generated from the operation
 * declarations and the board's views: what `docs/openapi.json` holds.
 */
export function openApiDocument(operations: readonly Operation[], version: string): JsonSchema {
  const paths: Record<string, unknown> = {
    '/v1/auth/login': {
      post: {
        summary: 'Exchange the password for a bearer',
        tags: ['auth'],
        security: [],
        parameters: [PROTOCOL],
        requestBody: { required: true, content: { 'application/json': { schema: object({ password: string() }) } } },
        responses: { '200': json(loginAnswerSchema(), 'A new session'), ...failures },
      },
    },
    '/v1/auth/session': {
      get: {
        summary: 'Whether the bearer is still good, and until when',
        tags: ['auth'],
        parameters: [PROTOCOL],
        responses: {
          '200': json(
            object({
              authenticated: boolean(),
              created_at: string(),
              expires_at: string(),
              agents: nullable(array(string('An agent the bearer may act as (its bound credential names it); null: any agent (the shared password)'))),
            }),
            'The session',
          ),
          ...failures,
        },
      },
    },
    '/v1/server/status': {
      get: {
        summary: 'Live event streams open, and the resources the process holds (for operators)',
        tags: ['server'],
        parameters: [PROTOCOL],
        responses: { '200': json(object({ subscribers: integer(), active_resources: integer(), uptime_ms: integer() }), 'Now'), ...failures },
      },
    },
    '/v1/projects': { get: { summary: 'The project catalog', tags: ['board'], parameters: [PROTOCOL], responses: { '200': answer(catalogSchema, 'Every project'), ...failures } } },
    '/v1/projects/{project}/ui/snapshot': read('Everything the board draws, revalidated with ETag', boardSnapshotSchema, {}),
    '/v1/projects/{project}/ui/nodes/{nodeId}': {
      get: {
        summary: 'One node as the detail view shows it',
        tags: ['board'],
        parameters: [PROTOCOL, PROJECT, { name: 'nodeId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': answer(nodeDetailSchema, 'The node'), ...failures },
      },
    },
    '/v1/projects/{project}/ui/activity': {
      get: {
        summary: 'The log, newest first, a page at a time',
        tags: ['board'],
        parameters: [
          PROTOCOL,
          PROJECT,
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } },
          { name: 'before', in: 'query', schema: { type: 'integer', minimum: 1 } },
        ],
        responses: { '200': answer(activitySchema, 'A page'), ...failures },
      },
    },
    '/v1/projects/{project}/transfer': {
      get: {
        summary: 'pull: the whole state of the project and its policy plugins (never provisions it)',
        tags: ['transfer'],
        parameters: [PROTOCOL, PROJECT],
        responses: { '200': json(transferStateSchema(), 'The state'), ...failures },
      },
      put: {
        summary:
          "push: replace the whole state and its plugins if the server is still at expected_revision (null: pristine); 409 STATE_REVISION_CONFLICT otherwise, 409 PLUGIN_REFUSED when the project's plugins refuse it, 409 PLUGIN_NOT_ALLOWED when it names a plugin the server does not run (plugins travel by name; a module sent is ignored)",
        tags: ['transfer'],
        parameters: [PROTOCOL, PROJECT],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: object({
                state: stateSchema(),
                plugins: optional(pluginTableSchema()),
                expected_revision: nullable(integer('The server revision of the last confirmed transfer')),
                force: boolean('Replace whatever the server holds'),
                agent: string(),
              }),
            },
          },
        },
        responses: {
          '200': json(transferAnswerSchema(), 'Replaced'),
          ...failures,
        },
      },
    },
    '/v1/projects/{project}/ui/events': {
      get: {
        summary: 'Server-sent events: `revision` (id: <revision>), `refresh` when the client must reload',
        tags: ['board'],
        parameters: [PROTOCOL, PROJECT, { name: 'Last-Event-ID', in: 'header', schema: { type: 'string' } }],
        responses: { '200': { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...failures },
      },
    },
  };
  (paths['/v1/projects/{project}/ui/snapshot'] as { get: { responses: Record<string, unknown> } }).get.responses['304'] = {
    description: 'Not modified: If-None-Match named the current ETag',
  };
  for (const operation of operations.filter(servedRemotely)) paths[`/v1/projects/{project}/ops/${operation.name}`] = operationPath(operation);
  paths['/v1/projects/{project}/ops/{operation}'] = {
    post: {
      summary: 'Any other name: a local-only operation (REMOTE_UNSUPPORTED_OPERATION, 400) or none at all (UNKNOWN_COMMAND, 404)',
      tags: ['operations'],
      parameters: [PROTOCOL, PROJECT, { name: 'operation', in: 'path', required: true, schema: { type: 'string' } }],
      responses: failures,
    },
  };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'taskdag server', version, description: 'Remote v1: every operation of a linked checkout, the board reads and live events (docs/http-api.md).' },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'From POST /v1/auth/login' } },
      parameters: {
        ProtocolVersion: { name: 'X-Taskdag-Protocol-Version', in: 'header', required: true, schema: { const: '1' } },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'One id per logical mutation, the same on each retry: the server applies it once and answers a retry with the first answer; the same id with another request is 409 REQUEST_ID_REUSED (docs/remote.md)',
          schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
        },
      },
      schemas: { Error: errorEnvelopeSchema() },
    },
  };
}
