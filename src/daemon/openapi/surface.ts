/**
 * The API's surface as sorted lines: every operation, parameter, body field and answer field of
 * the OpenAPI document (`GET /v1/websites/{id} 200 data.name`). docs/api-surface.txt holds the
 * committed one; a line that disappears is a breaking change and needs a CHANGELOG.md note that
 * quotes it (test/daemon/openapi/changelog.app.test.ts, scripts/api-reference.mjs).
 */
type Json = Record<string, unknown>;
type Schema = Json & { properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[] };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const MAX_DEPTH = 6;

function fieldPaths(schema: Schema | undefined, prefix: string, depth: number, out: string[]): void {
  if (!schema || depth > MAX_DEPTH) return;
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) fieldPaths(branch, prefix, depth, out);
  if (schema.items) fieldPaths(schema.items, `${prefix}[]`, depth + 1, out);
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    out.push(path);
    fieldPaths(field, path, depth + 1, out);
  }
}

function jsonSchemaOf(content: unknown): Schema | undefined {
  return ((content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Schema | undefined;
}

export function apiSurface(document: Json): string[] {
  const lines = new Set<string>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const route = `${method.toUpperCase()} ${path}`;
      lines.add(route);
      for (const parameter of (operation.parameters as Json[] | undefined) ?? [])
        lines.add(`${route} ${String(parameter.in)} ${String(parameter.name)}`);
      const body: string[] = [];
      fieldPaths(jsonSchemaOf((operation.requestBody as Json | undefined)?.content), '', 1, body);
      for (const field of body) lines.add(`${route} body ${field}`);
      for (const [status, response] of Object.entries(
        (operation.responses as Record<string, Json> | undefined) ?? {},
      )) {
        // @fastify/swagger's placeholder for a route without response schemas describes nothing.
        if (!status.startsWith('2') || (response.description === 'Default Response' && !response.content)) continue;
        const fields: string[] = [];
        fieldPaths(jsonSchemaOf(response.content), '', 1, fields);
        lines.add(`${route} ${status}`);
        for (const field of fields) lines.add(`${route} ${status} ${field}`);
      }
    }
  }
  return [...lines].sort();
}

/** The committed lines that the current document no longer has and CHANGELOG.md does not quote. */
export function unannouncedRemovals(
  committed: readonly string[],
  current: readonly string[],
  changelog: string,
): string[] {
  const now = new Set(current);
  return committed.filter((line) => line !== '' && !now.has(line) && !changelog.includes(line));
}
