import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateOpenApiDocument } from '../../../src/daemon/openapi-document.js';
import { apiSurface, unannouncedRemovals } from '../../../src/daemon/openapi/surface.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';

const committedSurface = () =>
  readFileSync(join(PROJECT_ROOT, 'docs', 'api-surface.txt'), 'utf8')
    .split('\n')
    .filter((line) => line !== '');
const changelog = () => readFileSync(join(PROJECT_ROOT, 'CHANGELOG.md'), 'utf8');

describe('the API only loses a route or field with a CHANGELOG.md note', () => {
  it('no line of the committed surface (docs/api-surface.txt) is missing from the document unless CHANGELOG.md quotes it', async () => {
    const current = apiSurface(await generateOpenApiDocument());
    expect(unannouncedRemovals(committedSurface(), current, changelog())).toEqual([]);
  });

  it('the committed surface is current: every route and field of the document is in it (run `npm run docs:api`)', async () => {
    const current = apiSurface(await generateOpenApiDocument());
    const committed = new Set(committedSurface());
    expect(current.filter((line) => !committed.has(line))).toEqual([]);
  });

  it('a removed field is caught, and quoting its line in the changelog lets it go', () => {
    const before = [
      'GET /v1/websites/{id}',
      'GET /v1/websites/{id} 200 data.brand',
      'GET /v1/websites/{id} 200 data.name',
    ];
    const after = ['GET /v1/websites/{id}', 'GET /v1/websites/{id} 200 data.name'];
    expect(unannouncedRemovals(before, after, '## Unreleased\n### Removed\n- nothing')).toEqual([
      'GET /v1/websites/{id} 200 data.brand',
    ]);
    expect(
      unannouncedRemovals(before, after, '### Removed\n- `GET /v1/websites/{id} 200 data.brand`: use data.name'),
    ).toEqual([]);
  });

  it('the surface lists operations, parameters, body fields and answer fields, nested ones by their path', () => {
    const document = {
      paths: {
        '/v1/things/{id}': {
          patch: {
            parameters: [{ in: 'path', name: 'id' }],
            requestBody: { content: { 'application/json': { schema: { properties: { name: {} } } } } },
            responses: {
              '200': {
                content: {
                  'application/json': {
                    schema: {
                      properties: { data: { properties: { tags: { items: { properties: { label: {} } } } } } },
                    },
                  },
                },
              },
              '404': {},
            },
          },
        },
      },
    };
    expect(apiSurface(document)).toEqual([
      'PATCH /v1/things/{id}',
      'PATCH /v1/things/{id} 200',
      'PATCH /v1/things/{id} 200 data',
      'PATCH /v1/things/{id} 200 data.tags',
      'PATCH /v1/things/{id} 200 data.tags[].label',
      'PATCH /v1/things/{id} body name',
      'PATCH /v1/things/{id} path id',
    ]);
  });
});
