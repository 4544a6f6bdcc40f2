import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { generateOpenApiDocument } from '../../../src/daemon/openapi-document.js';
import { renderApiReference } from '../../../src/daemon/openapi/reference.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';

describe('the OpenAPI document and docs/api.md', () => {
  it('the document is valid OpenAPI 3.1 by an independent validator (@seriousme/openapi-schema-validator), with info.version from package.json', async () => {
    const document = await generateOpenApiDocument();
    const result = await new Validator().validate(document as never);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    const packageVersion = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    expect((document.info as { version: string }).version).toBe(packageVersion);
  });

  it('docs/api.md is what scripts/api-reference.mjs renders from the document (run `npm run docs:api` after changing a route)', async () => {
    const committed = readFileSync(join(PROJECT_ROOT, 'docs', 'api.md'), 'utf8');
    expect(committed).toBe(renderApiReference(await generateOpenApiDocument()));
  });
});
