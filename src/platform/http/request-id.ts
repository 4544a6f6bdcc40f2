import type { IncomingMessage } from 'node:http';
import { newUlid } from '../ids/index.js';

const CLIENT_REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The id of a request: always a new ULID of the server's own. A caller's X-Request-Id is never
 * taken as the id, so no request can borrow another's id in the logs, the audit log or
 * meta.requestId; it is logged beside it as client_request_id (clientRequestIdOf).
 */
export function requestIdOf(_request: IncomingMessage): string {
  return newUlid();
}

/** The caller's X-Request-Id when it is a plain token of at most 128 characters (safe to log), else undefined. */
export function clientRequestIdOf(request: IncomingMessage): string | undefined {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && CLIENT_REQUEST_ID_PATTERN.test(incoming) ? incoming : undefined;
}
