import type { LayerTable } from './import-graph.js';

/**
 * The planes of src/, lowest first (docs/architecture.md "Planes"), each a list of module folders.
 * A module may import modules of its own plane and of the planes below, never above; no two
 * modules import each other, even through others; and from outside a module only its index.ts
 * is imported. Entries are folders only. A new module folder must be placed here.
 */
export const LAYERS: LayerTable = [
  {
    name: 'platform',
    modules: [
      'src/platform/contract',
      'src/platform/errors',
      'src/platform/ids',
      'src/platform/log',
      'src/platform/threads',
      'src/platform/memory',
      'src/platform/config',
      'src/platform/net',
      'src/platform/storage',
      'src/platform/node-format',
      'src/platform/jobs',
      'src/platform/http',
      'src/platform/app',
      'src/platform/job-runtime',
    ],
  },
  {
    name: 'control',
    modules: [
      'src/control/plans',
      'src/control/records',
      'src/control/access',
      'src/control/mail',
      'src/control/events',
      'src/control/connectors',
      'src/control/verification',
      'src/control/accounts',
      'src/control/organizations',
      'src/control/websites',
      'src/control/webhooks',
      'src/control/analytics',
      'src/control/waitlist',
    ],
  },
  {
    name: 'ingest',
    modules: [
      'src/ingest/extract',
      'src/ingest/graph',
      'src/ingest/embeddings',
      'src/ingest/endpoints',
      'src/ingest/handover',
      'src/ingest/ownership',
    ],
  },
  {
    name: 'output',
    modules: ['src/compiler', 'src/output/publish', 'src/output/node-files', 'src/output/knowledge', 'src/output/mcp'],
  },
  // src/console is browser code (its own tsconfig): it calls /v1 over HTTP and imports no module of src/.
  { name: 'surfaces', modules: ['src/sdk/client', 'src/sdk/api', 'src/daemon', 'src/cli', 'src/console'] },
];
