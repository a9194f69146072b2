import Ajv2020 from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const DOCUMENT = JSON.parse(readFileSync(path.resolve(__dirname, '../../../docs/openapi.json'), 'utf8'));

let ajv: Ajv2020 | null = null;
function validator(): Ajv2020 {
  if (ajv) return ajv;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  // Component schemas are referenced as #/components/schemas/X from inside each response schema.
  ajv.addSchema({ $id: 'openapi', components: DOCUMENT.components }, 'openapi');
  return ajv;
}

const routes = Object.keys(DOCUMENT.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** Why an answer of the server breaks docs/openapi.json (route, status, body), or null when it holds. */
export function openApiViolation(method: string, url: string, status: number, body: unknown): string | null {
  const route = url.split('?')[0]!;
  const found = routes.find((candidate) => candidate.pattern.test(route));
  if (!found) return `${method} ${route} is not in docs/openapi.json`;
  const operation = DOCUMENT.paths[found.template][method.toLowerCase()];
  if (!operation) return `${method} ${found.template} is not in docs/openapi.json`;
  const response = operation.responses[String(status)] ?? operation.responses.default;
  if (!response) return `${method} ${found.template} has no documented ${status} answer`;
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return null; // 304, or an event stream
  const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));
  const validate = validator().compile(rewritten);
  return validate(body) ? null : `${method} ${url} ${status} breaks docs/openapi.json: ${JSON.stringify(validate.errors?.slice(0, 3))}`;
}
