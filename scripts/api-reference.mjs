#!/usr/bin/env node
// Writes docs/api.md and docs/api-surface.txt from the OpenAPI document the built daemon serves,
// so the reference cannot drift from the routes (test/daemon/openapi/reference.app.test.ts and changelog.test.ts
// check both). Refuses, without writing, when a route or field disappears that CHANGELOG.md does
// not quote: removing one breaks clients and must be announced. Run after `npm run build`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateOpenApiDocument } from '../dist/daemon/openapi-document.js';
import { renderApiReference } from '../dist/daemon/openapi/reference.js';
import { apiSurface, unannouncedRemovals } from '../dist/daemon/openapi/surface.js';

const at = (path) => new URL(`../${path}`, import.meta.url);
const document = await generateOpenApiDocument();
const surface = apiSurface(document);
const committed = existsSync(at('docs/api-surface.txt'))
  ? readFileSync(at('docs/api-surface.txt'), 'utf8').split('\n')
  : [];
const removed = unannouncedRemovals(committed, surface, readFileSync(at('CHANGELOG.md'), 'utf8'));
if (removed.length > 0) {
  console.error(
    `These routes or fields left the API without a note in CHANGELOG.md; quote each line there (under the next release's "Removed") and run again:\n${removed.map((line) => `  ${line}`).join('\n')}`,
  );
  process.exit(1);
}
writeFileSync(at('docs/api.md'), renderApiReference(document));
writeFileSync(at('docs/api-surface.txt'), surface.join('\n') + '\n');
