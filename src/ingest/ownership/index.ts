/**
 * The public face of src/ingest/ownership: one writer per website's graph when daemons share a
 * PostgreSQL control store (docs/scaling.md "One writer per website").
 */
export { GraphOwnership, GRAPH_JOB_KINDS, newDaemonId, ownedGraphJobs } from './ownership.js';
export type { GraphHandoverOps, GraphLocation, GraphOwnershipOptions, RestoredGraph } from './ownership.js';
export { forwardGraphRequests, FORWARDED_BY_HEADER } from './forward.js';
