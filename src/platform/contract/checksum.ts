import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

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
  const subject = {
    type: item.type,
    url: item.url,
    html: item.html ?? null,
    text: item.text ?? null,
    json: item.json ?? null,
  };
  return 'sha256:' + createHash('sha256').update(canonicalJson(subject), 'utf8').digest('hex');
}
