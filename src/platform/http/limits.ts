/** 1 MiB everywhere but /v1/ingest/* (16 MiB, set by the ingest plugin): docs/contract.md#limits. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The longest path parameter: a 253-character domain in a node file URL fits; longer is 414. */
export const MAX_PARAM_LENGTH = 256;
