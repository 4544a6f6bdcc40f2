export * from './common.js';
export * from './records.js';
export * from './feeds.js';
export * from './documents.js';
export * from './registry.js';
export { SCHEMA_ORG_TYPES, schemaOrgType } from './schema-org-types.js';
