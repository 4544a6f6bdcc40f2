import type { Metrics } from '../../platform/app/index.js';
import type { RejectedKind, RejectedRecord, CompileResult } from '../../compiler/index.js';

/**
 * Graph records the compile of a publish left out of the node because they failed their schema
 * or the URL policy (docs/node-format.md "Rejected records"): the count per kind, and the first
 * records (at most the compiler's REJECTED_LIST_LIMIT, sorted by file then id).
 */
export interface PublishRejections {
  total: number;
  counts: Record<RejectedKind, number>;
  records: RejectedRecord[];
}

/** What a publish that compiled nothing reports. */
export const NO_REJECTIONS: PublishRejections = Object.freeze({
  total: 0,
  counts: { sources: 0, entities: 0, facts: 0, relationships: 0, chunks: 0, qa: 0 },
  records: [],
});

export function rejectionsOf(compiled: Pick<CompileResult, 'counts' | 'rejected'>): PublishRejections {
  const counts = { ...compiled.counts.rejected };
  return { total: Object.values(counts).reduce((sum, n) => sum + n, 0), counts, records: compiled.rejected };
}

/** Adds a publish's rejected records to nodectl_compile_records_rejected_total{kind}. */
export function countRejections(
  metrics: Pick<Metrics, 'compileRecordsRejected'>,
  rejected: PublishRejections | undefined,
): void {
  if (!rejected) return;
  for (const [kind, n] of Object.entries(rejected.counts)) if (n > 0) metrics.compileRecordsRejected.inc({ kind }, n);
}
