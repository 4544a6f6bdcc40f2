import type { LayerTable } from './import-graph.js';

/**
 * The layers of src/, lowest first (docs/architecture.md "Layers"). A module may import modules
 * of its own layer and of the layers below, never above; an entry may be a folder or one file
 * (the most specific entry wins). A new top-level folder must be placed here.
 */
export const LAYERS: LayerTable = [
  {
    name: 'contract',
    modules: [
      'src/platform/contract',
      'src/platform/errors',
      'src/platform/ids',
      'src/platform/log',
      'src/platform/threads',
    ],
  },
  { name: 'base', modules: ['src/platform/config', 'src/output/node-format', 'src/sdk/client', 'src/platform/net'] },
  { name: 'storage', modules: ['src/platform/storage', 'src/platform/jobs/queue.ts', 'src/platform/jobs/payload.ts'] },
  {
    name: 'records',
    modules: [
      'src/control/records/website-info.ts',
      'src/control/records/load-website.ts',
      'src/control/plans',
      'src/control/records',
      'src/platform/app/usage-counters.ts',
      'src/platform/app/usage-buffer.ts',
      'src/control/connectors',
      'src/control/events',
    ],
  },
  { name: 'extract', modules: ['src/ingest/extract'] },
  { name: 'graph', modules: ['src/ingest/graph'] },
  { name: 'compiler', modules: ['src/compiler'] },
  { name: 'http-app', modules: ['src/platform/http', 'src/platform/app'] },
  { name: 'runtime', modules: ['src/control/access', 'src/platform/jobs', 'src/daemon/openapi'] },
  {
    name: 'features',
    modules: [
      'src/output/publish',
      'src/output/knowledge',
      'src/control/analytics',
      'src/output/mcp',
      'src/ingest/endpoints',
      'src/daemon/probe-routes.ts',
      'src/control/connectors/heartbeat-check-job.ts',
      'src/control/mail',
      'src/control/records/expire-job.ts',
      'src/platform/http/rate-limits-prune-job.ts',
      'src/ingest/graph/content-ingest-job.ts',
      'src/control/waitlist',
      'src/output/node-files',
      'src/cli/push',
      'src/control/accounts',
      'src/control/organizations',
      'src/control/plans/routes.ts',
      'src/control/connectors/routes.ts',
      'src/control/webhooks',
      'src/control/verification',
      'src/control/websites',
      'src/control/websites/job-routes.ts',
    ],
  },
  { name: 'entry', modules: ['src/daemon', 'src/cli', 'src/sdk/api', 'src/daemon/job-kinds.ts'] },
];
