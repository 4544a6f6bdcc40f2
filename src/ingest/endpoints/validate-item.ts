import { compiledSchema } from '../../platform/contract/compiled-schema.js';
import { IngestItemSchema, type IngestItem } from '../../platform/contract/ingest-item.js';

export type ItemCheck =
  | { ok: true; item: IngestItem; host: string }
  | { ok: false; id: string | null; checksum: string | null; code: 'validation.failed'; message: string };

/**
 * Validates one IngestItem against the contract (strict, every constraint) and checks that its
 * url's host is the website's domain or a verified alias. The message names each field to fix.
 */
export function checkItem(raw: unknown, allowedHosts: ReadonlySet<string>): ItemCheck {
  const rawObj = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const id = typeof rawObj.id === 'string' ? rawObj.id : null;
  const checksum = typeof rawObj.checksum === 'string' ? rawObj.checksum : null;
  // Most items are valid: the compiled schema settles those (the item is then the parsed JSON
  // itself, which the schema would only copy: it has no defaults or transforms); safeParse explains the others.
  const parsed = compiledSchema(IngestItemSchema).validate(raw)
    ? { success: true as const, data: raw as IngestItem }
    : IngestItemSchema.safeParse(raw);
  if (!parsed.success) {
    const message = parsed.error.issues
      .map((issue) => {
        const path = issue.path.map(String).join('.') || '(item)';
        if (issue.code === 'unrecognized_keys')
          return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')} (IngestItem is strict)`;
        return `${path}: ${issue.message}`;
      })
      .join('; ');
    return { ok: false, id, checksum, code: 'validation.failed', message };
  }
  const host = new URL(parsed.data.url).hostname.toLowerCase();
  if (!allowedHosts.has(host)) {
    return {
      ok: false,
      id,
      checksum,
      code: 'validation.failed',
      message: `url: host ${host} is not ${[...allowedHosts].sort().join(' or ')}; send urls of this website only`,
    };
  }
  return { ok: true, item: parsed.data, host };
}
