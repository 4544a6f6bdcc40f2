import { createHash } from 'node:crypto';

/** The fields the default item checksum covers (docs/contract.md#ingest-item). */
export interface ChecksumInput {
  type: string;
  url: string;
  html?: string | undefined;
  text?: string | undefined;
  json?: unknown;
}

/**
 * The reference checksum of an item: sha256 over deeply key-sorted compact JSON of
 * {type, url, html, text, json}, absent fields as null; title, updated_at, id and attributes
 * are excluded. Returns `sha256:<64 lowercase hex>`.
 */
export function computeItemChecksum(item: ChecksumInput): string {
  const subject = { type: item.type, url: item.url, html: item.html ?? null, text: item.text ?? null, json: item.json ?? null };
  return 'sha256:' + createHash('sha256').update(canonicalJson(subject), 'utf8').digest('hex');
}

/** Compact JSON with object keys sorted at every depth (code-unit order); arrays keep their order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
