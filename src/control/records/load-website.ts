import type { Db } from '../../platform/storage/index.js';
import type { FieldMapping } from '../../platform/contract/index.js';
import { PLANS, type Plan } from '../plans/index.js';
import { VERIFICATION_STATES, tierOfMethod, type WebsiteInfo, type VerificationState } from './website-info.js';

interface WebsiteSql {
  id: string;
  domain: string;
  name: string | null;
  brand: string | null;
  default_language: string | null;
  plan: string;
  method: string | null;
  state: string | null;
}

/**
 * What the extractor and the compiler need to know about a served website, from control.sqlite:
 * websites, the organization's plan, the verification (none yet: pending, no method) and the
 * verified aliases. Brand is the website's brand, else its name, else its domain. Undefined when
 * the website does not exist (deleted since the job was queued).
 */
export function loadWebsiteInfo(controlDb: Db, websiteId: string): WebsiteInfo | undefined {
  const row = controlDb
    .prepare(
      `SELECT w.id, w.domain, w.name, w.brand, w.default_language, o.plan, v.method, v.state
    FROM websites w JOIN organizations o ON o.id = w.organization_id LEFT JOIN verifications v ON v.website_id = w.id WHERE w.id = ?`,
    )
    .get(websiteId) as WebsiteSql | undefined;
  if (!row) return undefined;
  const aliases = controlDb
    .prepare('SELECT domain FROM website_aliases WHERE website_id = ? AND verified = 1 ORDER BY domain')
    .pluck()
    .all(websiteId) as string[];
  const state: VerificationState = (VERIFICATION_STATES as readonly string[]).includes(row.state ?? '')
    ? (row.state as VerificationState)
    : 'pending';
  const plan: Plan = (PLANS as readonly string[]).includes(row.plan) ? (row.plan as Plan) : 'free';
  const brand =
    [row.brand, row.name, row.domain].find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? row.domain;
  return {
    websiteId: row.id,
    domain: row.domain.toLowerCase(),
    brand,
    defaultLanguage: row.default_language ?? 'en',
    plan,
    // Rows written before the method names were one may hold a tier name: tierOfMethod takes either.
    verification: { method: tierOfMethod(row.method), state },
    aliases: aliases.map((a) => a.toLowerCase()),
  };
}

/** The website's field mappings (POST /v1/ingest/schema), by source_path. */
export function loadFieldMappings(controlDb: Db, websiteId: string): FieldMapping[] {
  const rows = controlDb
    .prepare(
      'SELECT source_path, target, attribute_name, provenance_method FROM field_mappings WHERE website_id = ? ORDER BY source_path',
    )
    .all(websiteId) as Array<{
    source_path: string;
    target: FieldMapping['target'];
    attribute_name: string | null;
    provenance_method: FieldMapping['provenance_method'];
  }>;
  return rows.map((r) => ({
    source_path: r.source_path,
    target: r.target,
    ...(r.attribute_name !== null ? { attribute_name: r.attribute_name } : {}),
    provenance_method: r.provenance_method,
  }));
}
