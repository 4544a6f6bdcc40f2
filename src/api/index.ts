/**
 * nodectl/api: the typed client of the management API. Types come from the zod schemas the
 * routes validate with (z.input for requests, z.output for answers); failures are ApiError.
 */
export * from './client.js';
export { ApiError, isApiError, type ClientErrorCode } from './errors.js';
export type { ApiCredential, TransportOptions } from './transport.js';
export type { ErrorCode } from '../errors/registry.js';
