// Writes schemas/<name>.schema.json (JSON Schema 2020-12) from the zod schemas in src/platform/node-format.
// Run with `npm run schemas` (builds first); test/compiler/schemas.test.ts fails when they drift.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { NODE_SCHEMAS, renderJsonSchemaFile } = await import('../dist/platform/node-format/registry.js');
const wanted = new Set(NODE_SCHEMAS.map((entry) => `${entry.name}.schema.json`));
for (const name of readdirSync(here)) if (name.endsWith('.schema.json') && !wanted.has(name)) rmSync(join(here, name));
for (const entry of NODE_SCHEMAS) writeFileSync(join(here, `${entry.name}.schema.json`), renderJsonSchemaFile(entry));
console.log(`wrote ${NODE_SCHEMAS.length} schemas to ${here}`);
