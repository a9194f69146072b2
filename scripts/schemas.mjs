// Writes schemas/ (the JSON Schema of every operation's input and output, and of the failure
// envelope) and docs/openapi.json (the server's /v1 routes), generated from the operation
// declarations (run `npm run build` first). Tests fail when the committed files differ.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { schemaFiles } = require('../build/application/contract/json-schemas.js');
const { OPERATIONS } = require('../build/application/operations/index.js');
const { openApiDocument } = require('../build/application/contract/openapi.js');
const { version } = require('../package.json');

const files = schemaFiles(OPERATIONS);
mkdirSync('schemas', { recursive: true });
for (const name of readdirSync('schemas')) if (!(name in files)) rmSync(`schemas/${name}`);
for (const [name, schema] of Object.entries(files)) writeFileSync(`schemas/${name}`, JSON.stringify(schema, null, 2) + '\n');
console.log(`schemas/: ${Object.keys(files).length} files`);
writeFileSync('docs/openapi.json', JSON.stringify(openApiDocument(OPERATIONS, version), null, 2) + '\n');
console.log('docs/openapi.json: the server routes');
