/** The public face of src/ingest/endpoints: what the rest of src/ may import from it. */
export { ingestRoutes } from './routes.js';
export { claimedConnectorId } from './verify.js';
