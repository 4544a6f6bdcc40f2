/** Items per batch request, and ids per delete request (docs/contract.md#limits). */
export const MAX_BATCH_ITEMS = 500;
/** Body limit of /v1/ingest/* (docs/contract.md#limits). */
export const INGEST_BODY_LIMIT = 16 * 1024 * 1024;
