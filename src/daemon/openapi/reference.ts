/**
 * Renders the API reference (docs/api.md) from the OpenAPI document: one section per tag, one
 * entry per operation with who may call it, its parameters, body and answer fields, and every
 * error code by status. Plain functions over the document's JSON, so the reference cannot say
 * anything the document does not (test/daemon/openapi/reference.app.test.ts compares it with docs/api.md).
 */
type Json = Record<string, unknown>;
type Schema = Json & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  description?: string;
  $ref?: string;
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Nested object fields are listed to this depth (data.items[].name is depth 3). */
const MAX_FIELD_DEPTH = 4;

/** A table cell: pipes escaped, angle brackets as entities (a description's <mark> is text, not HTML), one line. */
function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r?\n/g, ' ');
}

function typeOf(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return schema.$ref.split('/').pop()!;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeOf).join(' | ');
  if (schema.allOf) return schema.allOf.map(typeOf).join(' & ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('array')) return `${typeOf(schema.items)}[]`;
  const format = typeof schema.format === 'string' ? ` (${schema.format})` : '';
  return types.length > 0 ? types.join(' | ') + format : 'any';
}

/** The object branch of a nullable or single-member union, to list its fields. */
function objectBranch(schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  if (schema.properties) return schema;
  const branches = (schema.anyOf ?? schema.oneOf ?? []).filter((branch) => branch.properties);
  return branches.length === 1 ? branches[0] : undefined;
}

function fieldRows(schema: Schema | undefined, prefix: string, depth: number, rows: string[]): void {
  const object = objectBranch(schema);
  if (!object?.properties || depth > MAX_FIELD_DEPTH) return;
  const required = new Set(object.required ?? []);
  for (const [name, field] of Object.entries(object.properties)) {
    const path = prefix + name;
    rows.push(
      `| \`${path}\` | ${escapeCell(typeOf(field))} | ${required.has(name) ? 'yes' : 'no'} | ${escapeCell(field.description ?? '')} |`,
    );
    const items = field.items ?? (field.anyOf ?? []).find((branch) => branch.items)?.items;
    if (objectBranch(field)) fieldRows(field, `${path}.`, depth + 1, rows);
    else if (objectBranch(items)) fieldRows(items, `${path}[].`, depth + 1, rows);
  }
}

function fieldTable(schema: Schema | undefined, prefix = ''): string {
  const rows: string[] = [];
  fieldRows(schema, prefix, 1, rows);
  return rows.length === 0
    ? ''
    : ['| Field | Type | Required | Description |', '|---|---|---|---|', ...rows].join('\n');
}

function jsonSchemaOf(content: unknown): Schema | undefined {
  return ((content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Schema | undefined;
}

function eventStreamOf(content: unknown): Schema | undefined {
  return ((content as Json | undefined)?.['text/event-stream'] as Json | undefined)?.schema as Schema | undefined;
}

/**
 * A streamed answer (text/event-stream): its description, then each event by name, with the
 * fields of its data; the `result` event's data is the JSON answer listed above it.
 */
function renderEventStream(status: string, schema: Schema): string {
  const out = [`Answer ${status} as Server-Sent Events (Accept: text/event-stream): ${schema.description ?? ''}`];
  for (const branch of schema.oneOf ?? schema.anyOf ?? []) {
    const event = branch.properties?.event;
    const name = event?.const ?? (event?.enum?.length === 1 ? event.enum[0] : undefined);
    if (typeof name !== 'string') continue;
    const data = branch.properties?.data;
    out.push(
      name === 'result'
        ? 'Event `result`: `data` is the JSON answer above.'
        : `Event \`${name}\`:\n\n${fieldTable(data, 'data.') || `\`data\`: ${typeOf(data)}`}`,
    );
  }
  return out.join('\n\n');
}

function renderOperation(method: string, path: string, operation: Json): string {
  const out: string[] = [`### ${method.toUpperCase()} ${path}`];
  if (typeof operation.summary === 'string') out.push(operation.summary);
  if (typeof operation.description === 'string') out.push(operation.description);
  const security = operation.security as Array<Record<string, unknown>> | undefined;
  const role = operation['x-required-role'];
  const who =
    !security || security.length === 0
      ? 'No credential needed.'
      : `Credential: ${security.map((requirement) => Object.keys(requirement).join(' + ')).join(' or ')}${typeof role === 'string' ? `; role ${role} or higher` : ''}.`;
  out.push(`${who} Operation id \`${String(operation.operationId)}\`.`);
  const parameters = (operation.parameters as Array<Json & { schema?: Schema }> | undefined) ?? [];
  if (parameters.length > 0) {
    out.push(
      [
        '| Parameter | In | Type | Required | Description |',
        '|---|---|---|---|---|',
        ...parameters.map(
          (p) =>
            `| \`${String(p.name)}\` | ${String(p.in)} | ${escapeCell(typeOf(p.schema))} | ${p.required ? 'yes' : 'no'} | ${escapeCell(String(p.description ?? p.schema?.description ?? ''))} |`,
        ),
      ].join('\n'),
    );
  }
  const body = jsonSchemaOf((operation.requestBody as Json | undefined)?.content);
  if (body) out.push('Body (JSON):\n\n' + (fieldTable(body) || `\`${typeOf(body)}\``));
  const responses = Object.entries((operation.responses as Record<string, Json> | undefined) ?? {});
  for (const [status, response] of responses.filter(([status]) => status.startsWith('2'))) {
    const schema = jsonSchemaOf(response.content);
    const data = objectBranch(schema)?.properties?.data;
    out.push(
      `Answer ${status}${schema ? '' : ' (no body)'}${typeof response.description === 'string' && response.description !== 'Default Response' ? `: ${response.description}` : ''}` +
        (data
          ? '\n\n' + (fieldTable(data, 'data.') || `\`data\`: ${typeOf(data)}`)
          : schema
            ? '\n\n' + fieldTable(schema)
            : ''),
    );
  }
  for (const [status, response] of responses.filter(([status]) => status.startsWith('2'))) {
    const stream = eventStreamOf(response.content);
    if (stream) out.push(renderEventStream(status, stream));
  }
  const errors = responses.filter(([status]) => !status.startsWith('2'));
  if (errors.length > 0) {
    out.push(
      [
        '| Status | Error codes |',
        '|---|---|',
        ...errors.map(([status, response]) => {
          const allOf = (jsonSchemaOf(response.content)?.allOf ?? []) as Schema[];
          const codes = (allOf[1]?.properties?.error?.properties?.code?.enum ?? []) as string[];
          return `| ${status} | ${codes.map((code) => `\`${code}\``).join(', ')} |`;
        }),
      ].join('\n'),
    );
  }
  return out.join('\n\n');
}

export function renderApiReference(document: Json): string {
  const info = document.info as Json;
  const paths = document.paths as Record<string, Json>;
  const byTag = new Map<string, string[]>();
  for (const path of Object.keys(paths).sort()) {
    for (const method of METHODS) {
      const operation = paths[path]![method] as Json | undefined;
      if (!operation) continue;
      const tag = ((operation.tags as string[] | undefined) ?? ['other'])[0]!;
      byTag.set(tag, [...(byTag.get(tag) ?? []), renderOperation(method, path, operation)]);
    }
  }
  const schemes = Object.entries(
    ((document.components as Json | undefined)?.securitySchemes ?? {}) as Record<string, Json>,
  );
  const tags = [...byTag.keys()].sort();
  return (
    [
      '# API reference',
      `<!-- Generated from the OpenAPI document by scripts/api-reference.mjs; do not edit by hand (test/daemon/openapi/reference.app.test.ts checks it). -->`,
      `${String(info.title)} ${String(info.version)}. ${String(info.description ?? '')}`,
      'The machine-readable form of this page is the OpenAPI 3.1 document a daemon serves at `GET /v1/openapi.json`. Every answer is the envelope `{ "ok": true, "data": ..., "meta": { "requestId" } }` or `{ "ok": false, "error": { "code", "message", "details", "retryable" }, "meta": { "requestId" } }`; the error codes are explained in [errors.md](errors.md). Lists take `?limit` (1 to 100) and `?cursor` (the previous page\'s `next_cursor`).',
      '## Credentials',
      [
        '| Scheme | Kind | Description |',
        '|---|---|---|',
        ...schemes.map(
          ([name, scheme]) =>
            `| \`${name}\` | ${String(scheme.type)}${scheme.scheme ? ` ${String(scheme.scheme)}` : ''}${scheme.name ? ` (${String(scheme.name)} header)` : ''} | ${escapeCell(String(scheme.description ?? ''))} |`,
        ),
      ].join('\n'),
      '## Contents',
      tags.map((tag) => `- [${tag}](#${tag})`).join('\n'),
      ...tags.flatMap((tag) => [`## ${tag}`, ...byTag.get(tag)!]),
    ].join('\n\n') + '\n'
  );
}
