import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { IngestItemSchema, type IngestItem } from '../platform/contract/ingest-item.js';
import { buildGraphFromItems } from '../ingest/graph/build-from-items.js';
import { parseEditorialJsonl, type EditorialEntry } from '../ingest/graph/editorial-entries.js';
import { PLANS, VERIFICATION_METHODS, VERIFICATION_STATES, type WebsiteInfo } from '../control/records/website-info.js';
import { compileNode } from './compile-node.js';
import type { NodeSink } from './sink.js';
import type { CompileOptions, CompileResult } from './types.js';

/** Build time of a fixture whose site.json names none. */
export const DEFAULT_FIXTURE_BUILD_TIME = '2026-01-01T00:00:00Z';

/**
 * fixtures/<name>/site.json. Only website_id and domain are required; every other key has a
 * default (docs/node-format.md "Fixtures").
 */
export const FixtureSiteSchema = z.strictObject({
  website_id: z.string().min(1),
  domain: z
    .string()
    .min(1)
    .transform((d) => d.toLowerCase()),
  brand: z.string().min(1).optional(),
  default_language: z.string().min(2).default('en'),
  plan: z.enum(PLANS).default('free'),
  verification: z
    .strictObject({
      method: z.enum(VERIFICATION_METHODS).nullable().default(null),
      state: z.enum(VERIFICATION_STATES).default('pending'),
    })
    .default({ method: null, state: 'pending' }),
  aliases: z.array(z.string().min(1)).default([]),
  build_time: z.string().default(DEFAULT_FIXTURE_BUILD_TIME),
  license: z.string().min(1).optional(),
  description: z.string().min(1).optional(),
  contact: z.string().min(1).optional(),
});

export interface Fixture {
  dir: string;
  site: WebsiteInfo;
  buildTime: string;
  items: IngestItem[];
  editorial: EditorialEntry[];
  presentation: Pick<CompileOptions, 'license' | 'description' | 'contact'>;
}

function readJsonl(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line, index) => {
      if (line.trim() === '') return [];
      try {
        return [JSON.parse(line)];
      } catch (error) {
        throw new Error(`${path} line ${index + 1}: not JSON (${(error as Error).message})`);
      }
    });
}

/** Reads fixtures/<name>: site.json, items.jsonl (IngestItems as a connector sends them) and optional editorial.jsonl. */
export function loadFixture(dir: string): Fixture {
  const sitePath = join(dir, 'site.json');
  if (!existsSync(sitePath)) throw new Error(`${dir} is not a fixture: site.json is missing`);
  const parsed = FixtureSiteSchema.safeParse(JSON.parse(readFileSync(sitePath, 'utf8')));
  if (!parsed.success)
    throw new Error(
      `${sitePath}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  const s = parsed.data;
  const items = readJsonl(join(dir, 'items.jsonl')).map((raw, index) => {
    const item = IngestItemSchema.safeParse(raw);
    if (!item.success)
      throw new Error(
        `${join(dir, 'items.jsonl')} line ${index + 1}: ${item.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    return item.data;
  });
  const editorialPath = join(dir, 'editorial.jsonl');
  const editorial = existsSync(editorialPath) ? parseEditorialJsonl(readFileSync(editorialPath, 'utf8')) : [];
  const site: WebsiteInfo = {
    websiteId: s.website_id,
    domain: s.domain,
    brand: s.brand ?? s.domain,
    defaultLanguage: s.default_language,
    plan: s.plan,
    verification: { method: s.verification.method, state: s.verification.state },
    aliases: s.aliases,
  };
  const presentation: Fixture['presentation'] = {};
  if (s.license !== undefined) presentation.license = s.license;
  if (s.description !== undefined) presentation.description = s.description;
  if (s.contact !== undefined) presentation.contact = s.contact;
  return { dir, site, buildTime: s.build_time, items, editorial, presentation };
}

/**
 * Compiles a fixture through the real pipeline: items into a fresh in-memory graph (the daemon's
 * ingest and extraction path, received at the build time), editorial state applied, then the
 * compiler. `buildTime` overrides the fixture's.
 */
export function compileFixture(
  fixture: Fixture,
  sink: NodeSink,
  overrides: Partial<CompileOptions> = {},
): CompileResult {
  const buildTime = overrides.buildTime ?? fixture.buildTime;
  const graph = buildGraphFromItems(fixture.items, fixture.site, {
    receivedAt: normalizeUtc(buildTime),
    editorial: fixture.editorial,
  });
  try {
    return compileNode(graph.reader, fixture.site, { ...fixture.presentation, ...overrides, buildTime }, sink);
  } finally {
    graph.close();
  }
}

function normalizeUtc(time: string): string {
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? time : new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
}
