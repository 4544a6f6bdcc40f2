#!/usr/bin/env node
// Writes docs/api.md from the OpenAPI document the built daemon serves, so the reference cannot
// drift from the routes: test/api/reference.test.ts checks it. Run after `npm run build`.
import { writeFileSync } from 'node:fs';
import { generateOpenApiDocument } from '../dist/daemon/openapi-document.js';
import { renderApiReference } from '../dist/openapi/reference.js';

writeFileSync(new URL('../docs/api.md', import.meta.url), renderApiReference(await generateOpenApiDocument()));
