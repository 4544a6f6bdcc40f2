import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobQueue } from '../jobs/index.js';

/** The daemon's Prometheus metrics, one registry per daemon (tests run several in one process). */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly jobOutcomes: Counter<'kind' | 'outcome'>;
  readonly ingestItems: Counter<'endpoint' | 'outcome'>;
  readonly ingestRequests: Counter<'endpoint' | 'outcome'>;
  readonly nodeReads: Counter<'status'>;
  /**
   * Graph records a compile left out of a node (failed their
   * schema or the URL policy), by kind (CompileCounts.rejected).
   */
  readonly compileRecordsRejected: Counter<'kind'>;
  /** Webhook delivery jobs, by result (delivered, retrying, failed, kept, skipped: src/control/webhooks/deliver.ts). */
  readonly webhookAttempts: Counter<'result'>;
  /** Requests to the embeddings provider, by outcome (ok, error: src/ingest/embeddings/compute-job.ts). */
  readonly embeddingRequests: Counter<'outcome'>;
  /** Chunks given a vector. */
  readonly embeddedChunks: Counter;
}

export function createMetrics(queue: () => JobQueue | undefined): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'nodectl_' });
  // prom-client names three gauges *_total, which promtool rejects for non-counters.
  for (const name of ['active_handles_total', 'active_requests_total', 'active_resources_total'])
    registry.removeSingleMetric(`nodectl_nodejs_${name}`);
  const jobDepth = new Gauge({
    name: 'nodectl_job_queue_depth',
    help: 'Jobs in the durable queue, by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const q = queue();
      if (!q) return;
      for (const [state, n] of Object.entries(q.depth())) this.set({ state }, n);
    },
  });
  void jobDepth;
  return {
    registry,
    httpRequests: new Counter({
      name: 'nodectl_http_requests_total',
      help: 'HTTP requests, by route and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'nodectl_http_request_duration_seconds',
      help: 'HTTP request latency, by route and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    jobOutcomes: new Counter({
      name: 'nodectl_job_outcomes_total',
      help: 'Job attempts, by kind and outcome (succeeded, retry, dead).',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    ingestItems: new Counter({
      name: 'nodectl_ingest_items_total',
      help: 'Ingested items, by endpoint and outcome (accepted, skipped, error).',
      labelNames: ['endpoint', 'outcome'] as const,
      registers: [registry],
    }),
    ingestRequests: new Counter({
      name: 'nodectl_ingest_requests_total',
      help: 'Signed ingest requests, by endpoint and outcome (ok or error code).',
      labelNames: ['endpoint', 'outcome'] as const,
      registers: [registry],
    }),
    nodeReads: new Counter({
      name: 'nodectl_node_reads_total',
      help: 'Reads of published node files, by status.',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    compileRecordsRejected: new Counter({
      name: 'nodectl_compile_records_rejected_total',
      help: 'Graph records left out of a compiled node because they failed their schema or the URL policy, by kind.',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'nodectl_webhook_attempts_total',
      help: 'Webhook delivery jobs, by result (delivered, retrying, failed, kept by a re-send, skipped).',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    embeddingRequests: new Counter({
      name: 'nodectl_embedding_requests_total',
      help: 'Requests to the embeddings provider, by outcome (ok, error); an error is retried by its job.',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    embeddedChunks: new Counter({
      name: 'nodectl_embedded_chunks_total',
      help: 'Chunks given a vector by the embeddings provider.',
      registers: [registry],
    }),
  };
}
