export * from './connectors.js';
export { hashConnectorSecret, verifyConnectorSecret } from './secret-hash.js';
