import type { LayerTable } from './import-graph.js';

/**
 * The layers of src/, lowest first (docs/architecture.md "Layers"). A module may import modules
 * of its own layer and of the layers below, never above; an entry may be a folder or one file
 * (the most specific entry wins). A new top-level folder must be placed here.
 */
export const LAYERS: LayerTable = [
  { name: 'contract', modules: ['src/contract', 'src/errors', 'src/ids', 'src/log', 'src/threads'] },
  { name: 'base', modules: ['src/config', 'src/node-format', 'src/client', 'src/net'] },
  { name: 'storage', modules: ['src/storage', 'src/jobs/queue.ts', 'src/jobs/payload.ts'] },
  { name: 'records', modules: ['src/website', 'src/plans', 'src/tenancy', 'src/connectors', 'src/events'] },
  { name: 'extract', modules: ['src/extract'] },
  { name: 'graph', modules: ['src/graph'] },
  { name: 'compiler', modules: ['src/compiler'] },
  { name: 'http-app', modules: ['src/http', 'src/app'] },
  { name: 'runtime', modules: ['src/auth', 'src/jobs', 'src/openapi'] },
  {
    name: 'features',
    modules: ['src/publish', 'src/knowledge', 'src/analytics', 'src/mcp', 'src/ingest', 'src/probes', 'src/waitlist', 'src/node-files', 'src/push', 'src/accounts', 'src/organizations', 'src/plans/routes.ts', 'src/connectors/routes.ts', 'src/webhooks', 'src/verification', 'src/websites', 'src/jobs/kinds', 'src/jobs/routes.ts'],
  },
  { name: 'entry', modules: ['src/daemon', 'src/cli', 'src/api', 'src/jobs/kinds/index.ts'] },
];
