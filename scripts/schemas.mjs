// Writes schemas/: the JSON Schema of every operation's input and output, and of the failure
// envelope, generated from the operation declarations (run `npm run build` first). A test fails
// when the committed files differ from what the declarations say.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { schemaFiles } = require('../build/application/contract/json-schemas.js');
const { OPERATIONS } = require('../build/application/operations/index.js');

const files = schemaFiles(OPERATIONS);
mkdirSync('schemas', { recursive: true });
for (const name of readdirSync('schemas')) if (!(name in files)) rmSync(`schemas/${name}`);
for (const [name, schema] of Object.entries(files)) writeFileSync(`schemas/${name}`, JSON.stringify(schema, null, 2) + '\n');
console.log(`schemas/: ${Object.keys(files).length} files`);
