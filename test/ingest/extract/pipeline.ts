import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileToDirectory } from '../../../src/compiler/directory.js';
import type { CompileResult } from '../../../src/compiler/types.js';
import { validateNode, type ValidationReport } from '../../../src/compiler/validate/validate-node.js';
import type { FieldMapping, IngestItem } from '../../../src/platform/contract/ingest-item.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import type { ProcessRawItemsResult } from '../../../src/ingest/graph/process-raw-items.js';
import type { WebsiteInfo } from '../../../src/control/records/website-info.js';

/** A website the pipeline tests compile: a paid plan, so every plan-gated file is built and validated too. */
export const PIPELINE_SITE: WebsiteInfo = {
  websiteId: 'web_01JEXTRACTPIPELINE000000',
  domain: 'shop.example',
  brand: 'Acme Shop',
  defaultLanguage: 'en',
  plan: 'pro',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};

export const BUILD_TIME = '2026-02-01T12:00:00Z';

export interface PipelineOutcome {
  ingest: ProcessRawItemsResult;
  compile: CompileResult;
  report: ValidationReport;
  /** item_contributions.warnings of every item, by item key. */
  warnings: Map<string, string[]>;
}

/**
 * The real path of a website's items into a published node: the ingest writer's raw_items rows,
 * processRawItems (extractor and graph store), compileToDirectory, then validateNode on the
 * directory, as a publisher runs it.
 */
export async function runPipeline(
  items: readonly IngestItem[],
  options: { site?: WebsiteInfo; mappings?: FieldMapping[] } = {},
): Promise<PipelineOutcome> {
  const site = options.site ?? PIPELINE_SITE;
  const graph = buildGraphFromItems(items, site, { receivedAt: BUILD_TIME, mappings: options.mappings });
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-extract-pipeline-'));
  try {
    const rows = graph.db
      .prepare('SELECT item_key, warnings FROM item_contributions ORDER BY item_key')
      .all() as Array<{ item_key: string; warnings: string }>;
    const warnings = new Map(rows.map((r) => [r.item_key, JSON.parse(r.warnings) as string[]]));
    const compile = await compileToDirectory(graph.reader, site, join(dir, 'node'), { buildTime: BUILD_TIME });
    const report = await validateNode(join(dir, 'node'));
    return { ingest: graph.result, compile, report, warnings };
  } finally {
    graph.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What a clean run shows: every item processed, nothing left out of the node, a node that validates. */
export function problemsOf(outcome: PipelineOutcome): {
  failures: unknown[];
  rejected: unknown[];
  rejectedCounts: number;
  errors: unknown[];
} {
  const counts = outcome.compile.counts.rejected as Record<string, number> | undefined;
  return {
    failures: outcome.ingest.failures,
    rejected: outcome.compile.rejected ?? [],
    rejectedCounts: Object.values(counts ?? {}).reduce((a, b) => a + b, 0),
    errors: outcome.report.errors,
  };
}

export const CLEAN = { failures: [], rejected: [], rejectedCounts: 0, errors: [] };
