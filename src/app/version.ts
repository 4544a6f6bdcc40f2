import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const NODECTL_VERSION: string = (require('../../package.json') as { version: string }).version;
export const CONTRACT_VERSION = '0.4.0';
export const NODE_SCHEMA_VERSION = '1.0.0';
export const SIGNING_SCHEME = 'svc.connector.hmac.v1';
