/** Version identifiers of the contract (docs/contract.md), reported by GET /v1/version. */
export const CONTRACT_VERSION = '0.4.0';
/** schema_version of every node file, frozen at 1.0.0 (docs/node-format.md). */
export const NODE_SCHEMA_VERSION = '1.0.0';
/** The connector signing scheme: the HKDF info string and the scheme's name (docs/contract.md#connector-signing). */
export const SIGNING_SCHEME = 'svc.connector.hmac.v1';
