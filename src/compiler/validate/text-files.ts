import { type EmbeddingsManifest, type Manifest, schemaForPath } from '../../platform/node-format/index.js';
import { LLMS_FULL_BUDGET, LLMS_TXT_BUDGET } from '../llms.js';
import { schemaJsonLdBase } from '../schema-jsonld.js';
import { UNSAFE_TEXT_CHARACTER } from '../markdown.js';
import { AI_SITEMAP_NS, SITEMAP_NS } from '../sitemap.js';
import { IssueList, recordIssues, type RefKind } from './checks.js';
import { parseLlmsTxt } from './llms-parse.js';

/** A schema.jsonld @id as nodectl wrote it before the ids were absolute IRIs (issue 37): the bare record id. */
const RELATIVE_RECORD_ID = /^(entity|fact)_[0-9a-f]{8,64}$/;

/**
 * schema.jsonld as an older nodectl wrote it, every @id (nodes and additionalProperty links) a
 * bare record id: the same document with each id made `base` + id, as the compiler writes it now,
 * so every other check runs unchanged. Null when the document is not in that form (mixed or
 * absolute ids are checked as they are).
 */
function absoluteLegacyIds(value: unknown, base: string): Record<string, unknown> | null {
  const graph = (value as { '@graph'?: unknown } | null)?.['@graph'];
  if (!Array.isArray(graph) || !graph.every((node) => node !== null && typeof node === 'object')) return null;
  const nodes = graph as Array<{ '@id'?: unknown; additionalProperty?: unknown }>;
  const links = (node: (typeof nodes)[number]) =>
    Array.isArray(node.additionalProperty) ? (node.additionalProperty as Array<{ '@id'?: unknown } | null>) : [];
  const ids = nodes.flatMap((node) => [node['@id'], ...links(node).map((ref) => ref?.['@id'])]);
  if (ids.length === 0 || !ids.every((id) => typeof id === 'string' && RELATIVE_RECORD_ID.test(id))) return null;
  return {
    ...(value as Record<string, unknown>),
    '@graph': nodes.map((node) => ({
      ...node,
      '@id': base + String(node['@id']),
      ...(Array.isArray(node.additionalProperty)
        ? { additionalProperty: links(node).map((ref) => ({ ...ref, '@id': base + String(ref?.['@id']) })) }
        : {}),
    })),
  };
}

/** How checkTextFile treats a form only an older nodectl wrote (ValidateOptions.forNewVersion). */
export interface TextFileOptions {
  /** The node is to become a new version: relative schema.jsonld ids are an error, not a warning. */
  forNewVersion?: boolean;
}

/** Checks of the whole-file node files (JSON documents, llms texts, the sitemap). */
export function checkTextFile(
  path: string,
  text: string,
  manifest: Manifest,
  ids: Record<RefKind, { has(id: string): boolean }>,
  issues: IssueList,
  options: TextFileOptions = {},
): void {
  const err = (code: string, message: string) => issues.add({ code, severity: 'error', file: path, message });
  if (!text.endsWith('\n'))
    issues.add({
      code: 'file.final_newline',
      severity: 'warning',
      file: path,
      message: 'does not end with a line feed',
    });
  if ((path === 'llms.txt' || path === 'llms-full.txt') && UNSAFE_TEXT_CHARACTER.test(text)) {
    const char = UNSAFE_TEXT_CHARACTER.exec(text)![0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    err(
      'text.control_character',
      `holds U+${char}, a control or bidi control character; node text files must not (they can make a line read differently from its bytes)`,
    );
  }
  if (path === 'llms.txt') {
    const parsed = parseLlmsTxt(text);
    if (parsed.title === null) err('llms.no_title', 'llms.txt must start with an H1 title');
    if (parsed.summary === null) err('llms.no_summary', 'llms.txt needs a blockquote summary after the title');
    if (parsed.links.length === 0) err('llms.no_links', 'llms.txt needs a markdown link list to key node files');
    const paths = new Set(manifest.files.map((f) => f.path).concat('manifest.json'));
    for (const link of parsed.links)
      if (!/^https?:/.test(link.url) && !paths.has(link.url))
        err('ref.dangling', `links to ${link.url}, which is not a file of this node`);
    if (text.length > LLMS_TXT_BUDGET)
      issues.add({
        code: 'llms.too_long',
        severity: 'warning',
        file: path,
        message: `${text.length} characters; the budget is ${LLMS_TXT_BUDGET}`,
      });
    return;
  }
  if (path === 'llms-full.txt') {
    if (!text.startsWith('# ')) err('llms.no_title', 'llms-full.txt must start with an H1 title');
    if (text.length > LLMS_FULL_BUDGET)
      err('llms.too_long', `${text.length} characters; llms-full.txt is limited to ${LLMS_FULL_BUDGET}`);
    return;
  }
  if (path === 'sitemap-ai.xml') {
    if (!text.startsWith('<?xml')) err('sitemap.invalid', 'must start with an XML declaration');
    if (!text.includes(`<urlset xmlns="${SITEMAP_NS}"`))
      err('sitemap.invalid', `the root must be urlset in the ${SITEMAP_NS} namespace`);
    if (text.includes('<ai:') && !text.includes(`xmlns:ai="${AI_SITEMAP_NS}"`))
      err('sitemap.invalid', `ai: elements need the ${AI_SITEMAP_NS} namespace`);
    for (const m of text.matchAll(/<ai:importance>([^<]*)<\/ai:importance>/g))
      if (!/^[1-5]$/.test(m[1]!)) err('sitemap.invalid', `ai:importance ${m[1]} is not an integer 1 to 5`);
    for (const m of text.matchAll(/<loc>([^<]*)<\/loc>/g))
      if (!/^https?:\/\//.test(m[1]!)) err('sitemap.invalid', `loc ${m[1]} is not an absolute http(s) URL`);
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return err('json.invalid', `not JSON: ${(error as Error).message}`);
  }
  if (path === 'schema.jsonld') {
    const base = schemaJsonLdBase(manifest.domain);
    const legacy = absoluteLegacyIds(value, base);
    if (legacy !== null) {
      // A version published before issue 37 stays valid and servable (rollback, validate); a new one may not be so.
      issues.add({
        code: 'schema.relative_ids',
        severity: options.forNewVersion === true ? 'error' : 'warning',
        file: path,
        message:
          options.forNewVersion === true
            ? `has relative @ids (entity_*, fact_*), as nodectl wrote the file before absolute IRIs; a new version needs ${base}<id>: compile the node again with this nodectl (nodectl compile, or nodectl publish --website), or serve the old version as it is with nodectl rollback`
            : `has relative @ids (entity_*, fact_*), as nodectl wrote the file before absolute IRIs: the version stays valid and servable, but JSON-LD and RDF tools need a base IRI to read it; republish (nodectl publish --website <id>) to get ${base}<id> ids`,
      });
      value = legacy;
    }
  }
  const entry = schemaForPath(path);
  if (entry !== undefined) {
    const parsed = entry.schema.safeParse(value);
    if (!parsed.success) {
      for (const i of parsed.error.issues.slice(0, 5))
        err('schema.invalid', `fails schemas/${entry.name}.schema.json: ${i.path.join('.') || '(root)'}: ${i.message}`);
      return;
    }
  }
  // The document passed its schema above: its fields are read as plain JSON, without a type per file.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const doc = value as Record<string, any>;
  for (const { code, severity, message } of recordIssues(doc, path, 0))
    if (code === 'node.uuid_leak') issues.add({ code, severity, file: path, message });
  const paths = new Set(manifest.files.map((f) => f.path).concat('manifest.json'));
  switch (path) {
    case 'ai.json':
      for (const p of doc.consumes ?? [])
        if (!paths.has(p)) err('ref.dangling', `consumes ${p}, which is not in manifest.json`);
      if (doc.website_id !== manifest.website_id) err('ref.mismatch', 'website_id differs from manifest.json');
      break;
    case 'schema.jsonld': {
      // Every @id is the website's origin + '#' + a record id of this node (docs/node-format.md).
      const base = schemaJsonLdBase(manifest.domain);
      const recordOf = (iri: string) => (iri.startsWith(base) ? iri.slice(base.length) : null);
      for (const node of doc['@graph'] ?? []) {
        const iri = String(node['@id']);
        const id = recordOf(iri);
        const kind: RefKind = id?.startsWith('fact_') ? 'fact' : 'entity';
        if (id === null || !ids[kind].has(id))
          err('ref.dangling', `@id ${iri} does not resolve to a record of this node (base ${base})`);
        for (const ref of node.additionalProperty ?? []) {
          const fact = recordOf(String(ref['@id']));
          if (fact === null || !ids.fact.has(fact))
            err('ref.dangling', `additionalProperty ${String(ref['@id'])} does not resolve to a fact`);
        }
      }
      break;
    }
    case 'embeddings-manifest.json':
      for (const v of doc.vectors ?? [])
        if (!ids.chunk.has(v.chunk_id))
          err('ref.dangling', `vector for ${v.chunk_id}, which is not a chunk of this node`);
      checkVectorFile(doc as EmbeddingsManifest, manifest, err);
      break;
    case 'versions.json':
      if (doc.current?.node_version !== manifest.node_version)
        err('ref.mismatch', 'current.node_version differs from manifest.node_version');
      break;
    case 'openapi.json':
      if (
        manifest.node_version_label !== undefined &&
        doc.info?.['x-service-node-version'] !== manifest.node_version_label
      )
        issues.add({
          code: 'ref.mismatch',
          severity: 'warning',
          file: path,
          message: 'info.x-service-node-version should echo node_version_label',
        });
      break;
    case 'trust.json':
      if (manifest.trust_tier !== undefined && doc.trust_tier !== manifest.trust_tier)
        err('ref.mismatch', 'trust_tier differs from manifest.trust_tier');
      break;
    case 'mcp.json':
      if (doc.website_id !== manifest.website_id) err('ref.mismatch', 'website_id differs from manifest.json');
      break;
  }
}

/**
 * A computed embeddings manifest against its vector file: listed in manifest.json, rows ×
 * dimensions × 4 bytes (its entry's size, which the scan checked against the file), one vector
 * entry per row in row order, each chunk once; a node without vectors lists no vector file.
 */
function checkVectorFile(
  doc: EmbeddingsManifest,
  manifest: Manifest,
  err: (code: string, message: string) => void,
): void {
  const binary = manifest.files.filter((f) => f.path.endsWith('.f32'));
  if (doc.status !== 'computed' || doc.vector_file === undefined || doc.dimensions === null) {
    for (const f of binary)
      err('embeddings.unexpected_file', `${f.path} is listed but the embeddings are not_computed`);
    return;
  }
  const { path, rows } = doc.vector_file;
  for (const f of binary)
    if (f.path !== path) err('embeddings.unexpected_file', `${f.path} is listed but vector_file is ${path}`);
  const entry = manifest.files.find((f) => f.path === path);
  if (entry === undefined) return err('ref.dangling', `vector_file ${path} is not in manifest.json`);
  if (entry.bytes !== rows * doc.dimensions * 4)
    err(
      'embeddings.size_mismatch',
      `${path} is ${entry.bytes} bytes; ${rows} rows of ${doc.dimensions} float32 make ${rows * doc.dimensions * 4}`,
    );
  if (doc.vectors.length !== rows)
    err('embeddings.rows_mismatch', `vectors lists ${doc.vectors.length} chunks, vector_file.rows says ${rows}`);
  const seen = new Set<string>();
  doc.vectors.forEach((v, i) => {
    if (v.row !== i)
      err('embeddings.row_order', `vectors[${i}] (${v.chunk_id}) says row ${v.row}; row i is vectors[i]`);
    if (seen.has(v.chunk_id)) err('embeddings.duplicate_chunk', `${v.chunk_id} has more than one row`);
    seen.add(v.chunk_id);
  });
}
