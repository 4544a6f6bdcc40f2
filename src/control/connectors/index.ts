export * from './connectors.js';
export {
  hashConnectorSecret,
  matchConnectorSecret,
  RETIRED_SECRETS_KEPT,
  verifyConnectorSecret,
} from './secret-hash.js';
export type { SecretMatch, StoredSecret } from './secret-hash.js';
export { createConnector, listConnectors, readConnectorCredential, rotateConnector } from './connectors.js';
export type { ConnectorCredential } from './connectors.js';
export { connectorHeartbeatCheckJob } from './heartbeat-check-job.js';
export { connectorRoutes } from './routes.js';
export type { ConnectorSchema, ConnectorWithTokenSchema, CreateConnectorBodySchema } from './schemas.js';
